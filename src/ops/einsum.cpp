// torch.einsum (torch 1.13's grammar and algorithm, aten/native/Linear.cpp):
// the equation is parsed into labels per operand; repeated labels in one
// operand take a diagonal; every operand is permuted to one label order
// (output labels first) with size-1 dims for labels it lacks; operands are
// then multiplied left to right, each pair contracted over the labels no
// later operand and no output needs through bmm (sumproduct_pair). Built
// from differentiable ops, so autograd comes with them.
#include "ops/shape_ops.h"

#include <algorithm>
#include <array>

#include "ops/linalg_batched.h"
#include "ops/math.h"
#include "ops/views.h"

namespace tsr::ops {

namespace {

constexpr int kLetters = 52;  // a-z, A-Z; ellipsis dims are labels past them

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return c - 'a' + 26;
}
char letter_of(int l) { return char(l < 26 ? 'A' + l : 'a' + (l - 26)); }

struct Parsed {
  std::vector<std::vector<int>> operands;  // labels; -1 marks the ellipsis
  std::vector<int> output;                 // labels; -1 the ellipsis
  bool explicit_output = false;
};

Parsed parse(const std::string& eq, size_t n_operands) {
  Parsed p;
  std::vector<int>* cur = nullptr;
  p.operands.emplace_back();
  cur = &p.operands.back();
  bool in_output = false, ellipsis_here = false;
  for (size_t i = 0; i < eq.size(); ++i) {
    const char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      TSR_CHECK(i + 2 < eq.size() && eq[i + 1] == '.' && eq[i + 2] == '.', TSR_ERR_INVALID_ARGUMENT,
                "einsum(): found '.' for operand ", in_output ? 0 : p.operands.size() - 1,
                " that is not part of any ellipsis");
      TSR_CHECK(!ellipsis_here, TSR_ERR_INVALID_ARGUMENT, "einsum(): found '...' twice for ",
                in_output ? "the output" : "an operand");
      ellipsis_here = true;
      cur->push_back(-1);
      i += 2;
    } else if (c == ',') {
      TSR_CHECK(!in_output, TSR_ERR_INVALID_ARGUMENT, "einsum(): found ',' in the output subscripts");
      p.operands.emplace_back();
      cur = &p.operands.back();
      ellipsis_here = false;
    } else if (c == '-') {
      TSR_CHECK(i + 1 < eq.size() && eq[i + 1] == '>' && !in_output, TSR_ERR_INVALID_ARGUMENT,
                "einsum(): found '-' at index ", i, " that is not part of '->'");
      in_output = true;
      p.explicit_output = true;
      cur = &p.output;
      ellipsis_here = false;
      ++i;
    } else {
      TSR_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), TSR_ERR_INVALID_ARGUMENT,
                "einsum(): invalid subscript given at index ", i, " in the equation string, subscripts must be in [a-zA-Z]");
      cur->push_back(label_of(c));
    }
  }
  TSR_CHECK(p.operands.size() == n_operands, TSR_ERR_INVALID_ARGUMENT,
            p.operands.size() > n_operands ? "einsum(): fewer operands were provided than specified in the equation"
                                           : "einsum(): more operands were provided than specified in the equation");
  return p;
}

// a and b (one rank, size-1 dims broadcast) multiplied and summed over
// sum_dims, through one bmm: torch's sumproduct_pair. The result keeps
// the rank, summed dims as size 1.
Tensor sumproduct_pair(Tensor a, Tensor b, const std::vector<bool>& sum_dim) {
  const int64_t nd = a.ndim();
  Shape lro, lo, ro, sum_dims;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < nd; ++i) {
    const bool sl = a.sizes()[size_t(i)] > 1, sr = b.sizes()[size_t(i)] > 1;
    if (sum_dim[size_t(i)]) {
      if (sl && sr) {
        sum_dims.push_back(i);
        sum_size *= a.sizes()[size_t(i)];
      } else if (sl) {
        a = sum(a, {i}, true);
      } else if (sr) {
        b = sum(b, {i}, true);
      }
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size *= a.sizes()[size_t(i)];
    } else if (sl) {
      lo.push_back(i);
      lo_size *= a.sizes()[size_t(i)];
    } else {
      ro.push_back(i);
      ro_size *= b.sizes()[size_t(i)];
    }
  }
  // a as [lro, lo, sum, (the rest)], b as [lro, sum, ro, (the rest)]
  Shape pa = lro, pb = lro;
  pa.insert(pa.end(), lo.begin(), lo.end());
  pa.insert(pa.end(), sum_dims.begin(), sum_dims.end());
  pb.insert(pb.end(), sum_dims.begin(), sum_dims.end());
  pb.insert(pb.end(), ro.begin(), ro.end());
  for (int64_t i = 0; i < nd; ++i) {
    if (std::find(pa.begin(), pa.end(), i) == pa.end()) pa.push_back(i);
    if (std::find(pb.begin(), pb.end(), i) == pb.end()) pb.push_back(i);
  }
  const Tensor a3 = reshape(permute(a, pa), {lro_size, lo_size, sum_size});
  const Tensor b3 = reshape(permute(b, pb), {lro_size, sum_size, ro_size});
  Tensor r = bmm(a3, b3);  // [lro, lo, ro]
  // back to rank nd: sizes of lro, lo, ro dims, 1 elsewhere, in dim order
  Shape order = lro;
  order.insert(order.end(), lo.begin(), lo.end());
  order.insert(order.end(), ro.begin(), ro.end());
  Shape out_sizes;
  for (int64_t d : order) out_sizes.push_back(std::max(a.sizes()[size_t(d)], b.sizes()[size_t(d)]));
  for (int64_t i = 0; i < nd; ++i)
    if (std::find(order.begin(), order.end(), i) == order.end()) {
      order.push_back(i);
      out_sizes.push_back(1);
    }
  r = reshape(r, out_sizes);
  Shape inverse(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) inverse[size_t(order[size_t(i)])] = i;
  return permute(r, inverse);
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& ops) {
  TSR_CHECK(!ops.empty(), TSR_ERR_INVALID_ARGUMENT, "einsum(): must provide at least one operand");
  const Parsed p = parse(equation, ops.size());

  // Ellipsis dims: as many as the widest operand's, right-aligned.
  int64_t ell = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    const auto& labels = p.operands[k];
    const bool has_ell = std::find(labels.begin(), labels.end(), -1) != labels.end();
    const int64_t named = int64_t(labels.size()) - (has_ell ? 1 : 0);
    if (has_ell) {
      TSR_CHECK(ops[k].ndim() >= named, TSR_ERR_INVALID_ARGUMENT, "einsum(): the number of subscripts in the equation (",
                named, ") is more than the number of dimensions (", ops[k].ndim(), ") for operand ", k);
      ell = std::max(ell, ops[k].ndim() - named);
    } else {
      TSR_CHECK(ops[k].ndim() == named, TSR_ERR_INVALID_ARGUMENT, "einsum(): the number of subscripts in the equation (",
                named, ") does not match the number of dimensions (", ops[k].ndim(), ") for operand ", k,
                " and no ellipsis was given");
    }
  }
  // Each operand's labels per dim; ellipsis dims are labels kLetters + j.
  std::vector<std::vector<int>> dim_labels(ops.size());
  std::array<int, kLetters> count{};
  for (size_t k = 0; k < ops.size(); ++k) {
    const auto& labels = p.operands[k];
    const int64_t named = int64_t(labels.size()) - int64_t(std::count(labels.begin(), labels.end(), -1));
    for (int l : labels) {
      if (l >= 0) {
        dim_labels[k].push_back(l);
        ++count[size_t(l)];
      } else {
        const int64_t e = ops[k].ndim() - named;
        for (int64_t j = ell - e; j < ell; ++j) dim_labels[k].push_back(kLetters + int(j));
      }
    }
  }
  // Output labels: explicit, or the ellipsis then the labels seen once in
  // alphabetical order (torch's implicit output).
  std::vector<int> out;
  if (p.explicit_output) {
    std::array<bool, kLetters> seen{};
    for (int l : p.output) {
      if (l < 0) {
        for (int64_t j = 0; j < ell; ++j) out.push_back(kLetters + int(j));
        continue;
      }
      TSR_CHECK(!seen[size_t(l)], TSR_ERR_INVALID_ARGUMENT, "einsum(): output subscript ", letter_of(l),
                " appears more than once in the output");
      TSR_CHECK(count[size_t(l)] > 0, TSR_ERR_INVALID_ARGUMENT, "einsum(): output subscript ", letter_of(l),
                " does not appear in the equation for any input operand");
      seen[size_t(l)] = true;
      out.push_back(l);
    }
  } else {
    for (int64_t j = 0; j < ell; ++j) out.push_back(kLetters + int(j));
    for (int l = 0; l < kLetters; ++l)
      if (count[size_t(l)] == 1) out.push_back(l);
  }
  // The common order: output labels, then the others as they appear.
  std::vector<int> order = out;
  for (const auto& labels : dim_labels)
    for (int l : labels)
      if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  const int64_t rank = int64_t(order.size());

  // Each operand: diagonals of repeated labels, then permuted to `order`
  // with size-1 dims for missing labels; sizes checked to broadcast.
  std::vector<int64_t> size_of(size_t(rank), 1);
  std::vector<Tensor> aligned;
  for (size_t k = 0; k < ops.size(); ++k) {
    Tensor t = ops[k];
    std::vector<int> labels = dim_labels[k];
    for (size_t i = 0; i < labels.size(); ++i)
      for (size_t j = labels.size(); j-- > i + 1;)
        if (labels[j] == labels[i]) {
          TSR_CHECK(t.sizes()[i] == t.sizes()[j], TSR_ERR_INVALID_ARGUMENT, "einsum(): subscript ",
                    letter_of(labels[i]), " is repeated for operand ", k, " but the sizes don't match, ",
                    t.sizes()[j], " != ", t.sizes()[i]);
          t = movedim(diagonal(t, 0, int64_t(i), int64_t(j)), {-1}, {int64_t(i)});
          labels.erase(labels.begin() + int64_t(j));
        }
    Shape perm;
    Shape sizes(size_t(rank), 1);
    for (int64_t d = 0; d < rank; ++d) {
      const auto it = std::find(labels.begin(), labels.end(), order[size_t(d)]);
      if (it == labels.end()) continue;
      const int64_t src = it - labels.begin();
      perm.push_back(src);
      const int64_t s = t.sizes()[size_t(src)];
      sizes[size_t(d)] = s;
      if (s != 1) {
        TSR_CHECK(size_of[size_t(d)] == 1 || size_of[size_t(d)] == s, TSR_ERR_INVALID_ARGUMENT, "einsum(): subscript ",
                  order[size_t(d)] < kLetters ? std::string(1, letter_of(order[size_t(d)])) : std::string("..."),
                  " has size ", s, " for operand ", k, " which does not broadcast with previously seen size ",
                  size_of[size_t(d)]);
        size_of[size_t(d)] = s;
      }
    }
    aligned.push_back(reshape(permute(t, perm), sizes));
  }

  // Left to right: each pair contracted over the labels nothing later needs.
  const int64_t n_out = int64_t(out.size());
  auto needed_later = [&](int64_t d, size_t after) {
    if (d < n_out) return true;
    for (size_t k = after + 1; k < aligned.size(); ++k)
      if (aligned[k].sizes()[size_t(d)] != 1 || std::find(dim_labels[k].begin(), dim_labels[k].end(),
                                                          order[size_t(d)]) != dim_labels[k].end())
        return true;
    return false;
  };
  Tensor result = aligned[0];
  for (size_t k = 1; k < aligned.size(); ++k) {
    std::vector<bool> sum_dim(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) sum_dim[size_t(d)] = !needed_later(d, k);
    result = sumproduct_pair(result, aligned[k], sum_dim);
  }
  // Whatever is left to sum (one operand, or labels of the last only).
  Shape rest;
  for (int64_t d = n_out; d < rank; ++d) rest.push_back(d);
  if (!rest.empty()) result = sum(result, rest, true);
  // The output's sizes (broadcast ones included) in output order.
  Shape out_sizes;
  for (int64_t d = 0; d < n_out; ++d) out_sizes.push_back(result.sizes()[size_t(d)]);
  return reshape(result, out_sizes);
}

}  // namespace tsr::ops
