#include "cpu/kernels/reduce.h"

#include <cmath>

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/max_kernel.h"
#include "cpu/kernels/sum_kernel.h"

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

// The result in `dtype` with contiguous keepdim sizes, viewed without the
// reduced dims unless keepdim. The accumulator is used as it is when it
// already is that tensor (a float32 or float64 sum laid out in C order;
// reduce_plan.h gives size-1 dims their C-order strides, so a reduction
// over dim 0 is one too).
Tensor finish(const Tensor& acc, const std::vector<bool>& mask, bool keepdim, tsr_dtype dtype) {
  Tensor out = acc;
  if (acc.dtype() != dtype || acc.strides() != contiguous_strides(acc.sizes())) {
    out = empty_cpu(acc.sizes(), dtype);
    copy_strided(out, acc);
  }
  if (keepdim) return out;
  return make_view(out, reduced_sizes(out.sizes(), mask, false),
                   contiguous_strides(reduced_sizes(out.sizes(), mask, false)), 0);
}

}  // namespace

Tensor sum(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  return finish(accumulate_sum(t, mask), mask, keepdim, sum_result_dtype(t.dtype()));
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
  // torch 1.13's CPU mean is sum(...).div_(count): the sum rounded to the
  // dtype, then divided in its compute type (float for 16-bit floats).
  Tensor out = finish(accumulate_sum(t, mask), mask, true, t.dtype());
  const int64_t count = reduced_count(t.sizes(), mask);
  dispatch_floating(t.dtype(), "mean", [&]<typename T>() {
    using C = compute_t<T>;
    T* p = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = T(C(p[i]) / C(count));  // 0/0 -> nan, as torch
  });
  if (keepdim) return out;
  return make_view(out, reduced_sizes(out.sizes(), mask, false),
                   contiguous_strides(reduced_sizes(out.sizes(), mask, false)), 0);
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
  const std::vector<bool> mask = max_dim_mask(t, &dim);
  auto [values, indices] = max_dim_values_indices(t, dim);
  return {finish(values, mask, keepdim, t.dtype()), finish(indices, mask, keepdim, TSR_INT64)};
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
