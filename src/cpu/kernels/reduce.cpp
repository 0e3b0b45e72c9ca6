#include "cpu/kernels/reduce.h"

#include <cmath>

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/strided_loop.h"

namespace tsr::kernels {

std::vector<bool> reduction_mask(const Tensor& t, const Shape& dims) {
  const int64_t n = t.ndim();
  std::vector<bool> mask(n, dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, n);
    if (n == 0) continue;  // reducing a scalar over dim 0/-1 is the identity
    TSR_CHECK(!mask[w], TSR_ERR_INVALID_ARGUMENT, "dim ", w,
              " appears multiple times in the list of dims ", dims);
    mask[w] = true;
  }
  return mask;
}

Shape reduced_sizes(const Shape& sizes, const std::vector<bool>& mask, bool keepdim) {
  Shape out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!mask[i]) out.push_back(sizes[i]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

namespace {

// a + b; int64 sums wrap modulo 2^64 like torch's (unsigned, so overflow
// is not undefined behaviour).
template <typename Acc>
Acc acc_add(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) return Acc(uint64_t(a) + uint64_t(b));
  else return a + b;
}

// acc (contiguous, keepdim sizes) += every element of t: acc is broadcast to
// t's sizes with stride 0 on reduced dims, so the inner loop accumulates.
template <typename Acc>
void accumulate_into(const Tensor& acc, const Tensor& t) {
  Shape acc_strides(t.ndim());
  for (int64_t i = 0; i < t.ndim(); ++i)
    acc_strides[i] = acc.sizes()[i] == 1 ? 0 : acc.strides()[i] * int64_t(sizeof(Acc));
  auto g = make_geometry<2>(t.sizes(), {acc_strides, byte_strides(t)});
  dispatch_all(t.dtype(), [&]<typename T>() {
    for_each_run<2>(g, {static_cast<char*>(acc.data_ptr()), static_cast<char*>(t.data_ptr())},
                    [](char** p, const int64_t* s, int64_t n) {
                      Acc* o = reinterpret_cast<Acc*>(p[0]);
                      const T* x = reinterpret_cast<const T*>(p[1]);
                      const int64_t so = s[0] / int64_t(sizeof(Acc)), sx = s[1] / int64_t(sizeof(T));
                      if (so == 0) {
                        Acc total = 0;
                        for (int64_t i = 0; i < n; ++i) total = acc_add(total, convert<Acc>(x[i * sx]));
                        *o = acc_add(*o, total);
                      } else {
                        for (int64_t i = 0; i < n; ++i)
                          o[i * so] = acc_add(o[i * so], convert<Acc>(x[i * sx]));
                      }
                    });
  });
}

// The accumulated sum with keepdim sizes, in double or int64.
Tensor wide_sum(const Tensor& t, const std::vector<bool>& mask) {
  bool fp = is_floating(t.dtype());
  Tensor acc = empty_cpu(reduced_sizes(t.sizes(), mask, true), fp ? TSR_FLOAT64 : TSR_INT64);
  fill(acc, 0.0);
  if (t.numel() > 0) {
    if (fp) accumulate_into<double>(acc, t);
    else accumulate_into<int64_t>(acc, t);
  }
  return acc;
}

Tensor finish(const Tensor& acc, const std::vector<bool>& mask, bool keepdim, tsr_dtype dtype) {
  Tensor out = empty_cpu(acc.sizes(), dtype);
  copy_strided(out, acc);
  if (keepdim) return out;
  return make_view(out, reduced_sizes(out.sizes(), mask, false),
                   contiguous_strides(reduced_sizes(out.sizes(), mask, false)), 0);
}

}  // namespace

Tensor sum(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  tsr_dtype d = is_floating(t.dtype()) ? t.dtype() : TSR_INT64;
  return finish(wide_sum(t, mask), mask, keepdim, d);
}

void check_mean_dtype(tsr_dtype d) {
  TSR_CHECK(is_floating(d), TSR_ERR_DTYPE_MISMATCH,
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            "complex dtype. Got: ", dtype_name(d));
}

int64_t reduced_count(const Shape& sizes, const std::vector<bool>& mask) {
  int64_t count = 1;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (mask[i]) count *= sizes[i];
  return count;
}

Tensor mean(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  check_mean_dtype(t.dtype());
  Tensor acc = wide_sum(t, mask);
  const int64_t count = reduced_count(t.sizes(), mask);
  double* p = acc.data<double>();
  for (int64_t i = 0; i < acc.numel(); ++i) p[i] /= double(count);  // 0/0 -> nan, as torch
  return finish(acc, mask, keepdim, t.dtype());
}

std::vector<bool> max_dim_mask(const Tensor& t, int64_t* dim) {
  const int64_t n = t.ndim();
  *dim = wrap_dim(*dim, n);
  TSR_CHECK(n == 0 || t.sizes()[*dim] > 0, TSR_ERR_SHAPE_MISMATCH, "max(): Expected reduction dim ",
            *dim, " to have non-zero size.");
  std::vector<bool> mask(n, false);
  if (n > 0) mask[*dim] = true;
  return mask;
}

std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim) {
  const int64_t n = t.ndim();
  const std::vector<bool> mask = max_dim_mask(t, &dim);
  const int64_t len = n == 0 ? 1 : t.sizes()[dim];
  Shape out_sizes = reduced_sizes(t.sizes(), mask, keepdim);
  Tensor values = empty_cpu(out_sizes, t.dtype()), indices = empty_cpu(out_sizes, TSR_INT64);
  // Iterate the kept dims (the input with dim removed) alongside the outputs.
  Tensor rows = n == 0 ? t : views::select(t, dim, 0);
  const int64_t step = n == 0 ? 0 : t.strides()[dim] * t.element_size();
  if (rows.numel() == 0) return {values, indices};
  // values and indices are contiguous over the kept dims.
  const Shape kept = contiguous_strides(rows.sizes());
  auto g = make_geometry<3>(rows.sizes(), {scaled_strides(kept, t.element_size()),
                                           scaled_strides(kept, int64_t(sizeof(int64_t))),
                                           byte_strides(rows)});
  dispatch_all(t.dtype(), [&]<typename T>() {
    using C = compute_t<T>;
    auto is_nan = [](C x) {
      if constexpr (std::is_floating_point_v<C>) return std::isnan(x);
      else return false;
    };
    for_each_run<3>(g, {static_cast<char*>(values.data_ptr()), static_cast<char*>(indices.data_ptr()),
                        static_cast<char*>(rows.data_ptr())},
                    [&](char** p, const int64_t* s, int64_t count) {
                      for (int64_t r = 0; r < count; ++r) {
                        const char* row = p[2] + r * s[2];
                        C best = C(*reinterpret_cast<const T*>(row));
                        int64_t arg = 0;
                        // The first NaN is the maximum: nothing after it can win.
                        if (!is_nan(best))
                          for (int64_t k = 1; k < len; ++k) {
                            C v = C(*reinterpret_cast<const T*>(row + k * step));
                            if (v > best) {
                              best = v;
                              arg = k;
                            } else if (is_nan(v)) {
                              best = v;
                              arg = k;
                              break;
                            }
                          }
                        *reinterpret_cast<T*>(p[0] + r * s[0]) = T(best);
                        *reinterpret_cast<int64_t*>(p[1] + r * s[1]) = arg;
                      }
                    });
  });
  return {values, indices};
}

std::vector<bool> sum_to_size_mask(const Shape& from, const Shape& to) {
  const int64_t n = int64_t(from.size()), lead = n - int64_t(to.size());
  TSR_CHECK(lead >= 0, TSR_ERR_INTERNAL, "sum_to_size: ", from, " to ", to);
  std::vector<bool> mask(size_t(n), false);
  for (int64_t i = 0; i < n; ++i) mask[i] = i < lead || (to[i - lead] == 1 && from[i] != 1);
  return mask;
}

Tensor sum_to_size(const Tensor& t, const Shape& sizes) {
  if (t.sizes() == sizes) return t;
  Tensor s = sum(t, sum_to_size_mask(t.sizes(), sizes), true);
  return make_view(s, sizes, contiguous_strides(sizes), s.storage_offset());
}

Tensor unsqueeze_reduced(const Tensor& g, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) r = views::unsqueeze(r, int64_t(d));
  return r;
}

Tensor max_dim_backward(const Tensor& grad, const Tensor& indices, const Shape& input_sizes,
                        int64_t dim, bool keepdim) {
  Tensor out = empty_cpu(input_sizes, grad.dtype());
  fill(out, 0.0);
  if (out.numel() == 0) return out;
  std::vector<bool> mask(input_sizes.size(), false);
  if (!mask.empty()) mask[dim] = true;
  // Walk every output position: out[..., idx, ...] = g[..., 0, ...].
  Tensor gk = unsqueeze_reduced(grad, mask, keepdim);
  Tensor ik = unsqueeze_reduced(indices, mask, keepdim);
  Tensor gi = contiguous_copy(gk, gk.dtype());
  Tensor ii = contiguous_copy(ik, TSR_INT64);
  const int64_t nd = int64_t(input_sizes.size());
  const int64_t ostride = nd ? out.strides()[dim] : 0;
  dispatch_floating(out.dtype(), "max backward", [&]<typename T>() {
    const T* gp = gi.data<T>();
    const int64_t* ip = ii.data<int64_t>();
    T* op = out.data<T>();
    for (int64_t k = 0; k < gi.numel(); ++k) {
      int64_t off = 0, rem = k;
      for (int64_t d = nd - 1; d >= 0; --d) {
        int64_t size = gi.sizes()[d];
        off += (rem % size) * out.strides()[d];
        rem /= size;
      }
      op[off + ip[k] * ostride] = gp[k];
    }
  });
  return out;
}

Tensor max_all_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  Tensor x = contiguous_copy(input, grad.dtype());
  Tensor out = empty_cpu(x.sizes(), x.dtype());
  fill(out, 0.0);
  dispatch_floating(x.dtype(), "max backward", [&]<typename T>() {
    using C = compute_t<T>;
    const C m = C(*contiguous_copy(result, grad.dtype()).data<T>());
    const C gv = C(*grad.data<T>());
    const T* xp = x.data<T>();
    T* op = out.data<T>();
    const bool nan = m != m;
    int64_t count = 0;
    for (int64_t i = 0; i < x.numel(); ++i) count += nan ? C(xp[i]) != C(xp[i]) : C(xp[i]) == m;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (nan ? C(xp[i]) != C(xp[i]) : C(xp[i]) == m) op[i] = T(C(gv / C(count)));
  });
  return out;
}

}  // namespace tsr::kernels
