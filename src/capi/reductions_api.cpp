// C API: scans and statistics (reductions.h). Arguments are checked, then
// the differentiable op runs; out values are written last, so a failing
// call leaves them untouched.
#include <tessera/reductions.h>

#include <memory>
#include <optional>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/dtype.h"
#include "ops/reductions.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
// An optional dtype argument: NULL for none, else a checked tsr_dtype.
std::optional<tsr_dtype> dtype_arg(const tsr_dtype* d) {
  if (!d) return std::nullopt;
  check_dtype(enum_arg(*d));
  return *d;
}
}  // namespace

TSR_EXTERN tsr_status tsr_cumsum(const tsr_tensor* a, int64_t dim, const tsr_dtype* dtype, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const auto d = dtype_arg(dtype);
    require(out, "out");
    emit(out, ops::cumsum(x, dim, d));
  });
}

TSR_EXTERN tsr_status tsr_cumprod(const tsr_tensor* a, int64_t dim, const tsr_dtype* dtype, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const auto d = dtype_arg(dtype);
    require(out, "out");
    emit(out, ops::cumprod(x, dim, d));
  });
}

TSR_EXTERN tsr_status tsr_prod(const tsr_tensor* a, const tsr_dtype* dtype, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const auto d = dtype_arg(dtype);
    require(out, "out");
    emit(out, ops::prod(x, d));
  });
}

TSR_EXTERN tsr_status tsr_prod_dim(const tsr_tensor* a, int64_t dim, bool keepdim, const tsr_dtype* dtype,
                                   tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const auto d = dtype_arg(dtype);
    require(out, "out");
    emit(out, ops::prod_dim(x, dim, keepdim, d));
  });
}

namespace {
Shape dims_arg(int64_t n, const int64_t* dims) { return shape_from(n, dims, "dims", false); }

// var_mean / std_mean: both handles made before either is written.
tsr_status two_outputs(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction, bool keepdim,
                       tsr_tensor** first, tsr_tensor** mean, bool take_sqrt) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(first, take_sqrt ? "std" : "var");
    require(mean, "mean");
    auto [v, m] = take_sqrt ? ops::std_mean(x, d, correction, keepdim) : ops::var_mean(x, d, correction, keepdim);
    auto vh = std::make_unique<tsr_tensor>(std::move(v));
    auto mh = std::make_unique<tsr_tensor>(std::move(m));
    *first = vh.release();
    *mean = mh.release();
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_var(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction,
                              bool keepdim, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::var(x, d, correction, keepdim));
  });
}

TSR_EXTERN tsr_status tsr_std(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction,
                              bool keepdim, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::std_(x, d, correction, keepdim));
  });
}

TSR_EXTERN tsr_status tsr_var_mean(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction,
                                   bool keepdim, tsr_tensor** var, tsr_tensor** mean) {
  return two_outputs(a, n, dims, correction, keepdim, var, mean, false);
}

TSR_EXTERN tsr_status tsr_std_mean(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction,
                                   bool keepdim, tsr_tensor** std, tsr_tensor** mean) {
  return two_outputs(a, n, dims, correction, keepdim, std, mean, true);
}

TSR_EXTERN tsr_status tsr_logsumexp(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim,
                                    tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::logsumexp(x, d, keepdim));
  });
}

namespace {
tsr_status any_all_call(const tsr_tensor* a, bool all_dims, int64_t dim, bool keepdim, bool is_all,
                        tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    require(out, "out");
    emit(out, ops::any_all(x, all_dims, dim, keepdim, is_all));
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_any(const tsr_tensor* a, tsr_tensor** out) {
  return any_all_call(a, true, 0, false, false, out);
}
TSR_EXTERN tsr_status tsr_all(const tsr_tensor* a, tsr_tensor** out) {
  return any_all_call(a, true, 0, false, true, out);
}
TSR_EXTERN tsr_status tsr_any_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out) {
  return any_all_call(a, false, dim, keepdim, false, out);
}
TSR_EXTERN tsr_status tsr_all_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out) {
  return any_all_call(a, false, dim, keepdim, true, out);
}

TSR_EXTERN tsr_status tsr_min(const tsr_tensor* a, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    require(out, "out");
    emit(out, ops::min(x));
  });
}

TSR_EXTERN tsr_status tsr_min_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** values,
                                  tsr_tensor** indices) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    TSR_CHECK(values || indices, TSR_ERR_INVALID_ARGUMENT, "min_dim: values and indices are both NULL");
    auto [v, i] = ops::min_dim(x, dim, keepdim);
    // Both handles made before either is written.
    std::unique_ptr<tsr_tensor> vh = values ? std::make_unique<tsr_tensor>(std::move(v)) : nullptr;
    std::unique_ptr<tsr_tensor> ih = indices ? std::make_unique<tsr_tensor>(std::move(i)) : nullptr;
    if (values) *values = vh.release();
    if (indices) *indices = ih.release();
  });
}

TSR_EXTERN tsr_status tsr_argmin(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    require(out, "out");
    emit(out, ops::argmin(x, dim, keepdim));
  });
}

TSR_EXTERN tsr_status tsr_maximum(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Tensor& y = tensor_of(b, "b");
    require(out, "out");
    emit(out, ops::maximum(x, y));
  });
}

TSR_EXTERN tsr_status tsr_minimum(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Tensor& y = tensor_of(b, "b");
    require(out, "out");
    emit(out, ops::minimum(x, y));
  });
}

TSR_EXTERN tsr_status tsr_amax(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::amax(x, d, keepdim));
  });
}

TSR_EXTERN tsr_status tsr_amin(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::amin(x, d, keepdim));
  });
}

TSR_EXTERN tsr_status tsr_norm(const tsr_tensor* a, double p, int64_t n, const int64_t* dims, bool keepdim,
                               tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::norm(x, p, d, keepdim));
  });
}

TSR_EXTERN tsr_status tsr_linalg_vector_norm(const tsr_tensor* a, double ord, int64_t n, const int64_t* dims,
                                             bool keepdim, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Shape d = dims_arg(n, dims);
    require(out, "out");
    emit(out, ops::linalg_vector_norm(x, ord, d, keepdim));
  });
}
