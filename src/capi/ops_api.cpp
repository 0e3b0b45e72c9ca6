// C API: math (ops.h). Argument checks, then the differentiable op.
#include <tessera/ops.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/compare.h"
#include "ops/inplace.h"
#include "ops/math.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
template <typename Fn>
tsr_status binary_call(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out, Fn&& fn) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Tensor& y = tensor_of(b, "b");
    require(out, "out");
    emit(out, fn(x, y));
  });
}
template <typename Fn>
tsr_status unary_call(const tsr_tensor* a, tsr_tensor** out, Fn&& fn) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    require(out, "out");
    emit(out, fn(x));
  });
}
Shape dims_arg(int64_t n, const int64_t* dims) { return shape_from(n, dims, "dims", false); }
}  // namespace

TSR_EXTERN tsr_status tsr_add(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::add);
}
TSR_EXTERN tsr_status tsr_sub(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::sub);
}
TSR_EXTERN tsr_status tsr_mul(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::mul);
}
TSR_EXTERN tsr_status tsr_div(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::div);
}
TSR_EXTERN tsr_status tsr_matmul(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::matmul);
}
TSR_EXTERN tsr_status tsr_mul_scalar(const tsr_tensor* a, double s, tsr_tensor** out) {
  return unary_call(a, out, [&](const Tensor& x) { return ops::mul_scalar(x, s); });
}
TSR_EXTERN tsr_status tsr_add_scalar(const tsr_tensor* a, double s, tsr_tensor** out) {
  return unary_call(a, out, [&](const Tensor& x) { return ops::add_scalar(x, s); });
}
TSR_EXTERN tsr_status tsr_relu(const tsr_tensor* a, tsr_tensor** out) { return unary_call(a, out, ops::relu); }
TSR_EXTERN tsr_status tsr_exp(const tsr_tensor* a, tsr_tensor** out) { return unary_call(a, out, ops::exp); }
TSR_EXTERN tsr_status tsr_log(const tsr_tensor* a, tsr_tensor** out) { return unary_call(a, out, ops::log); }
TSR_EXTERN tsr_status tsr_neg(const tsr_tensor* a, tsr_tensor** out) { return unary_call(a, out, ops::neg); }

TSR_EXTERN tsr_status tsr_eq(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::eq);
}
TSR_EXTERN tsr_status tsr_ne(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::ne);
}
TSR_EXTERN tsr_status tsr_lt(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::lt);
}
TSR_EXTERN tsr_status tsr_le(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::le);
}
TSR_EXTERN tsr_status tsr_gt(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::gt);
}
TSR_EXTERN tsr_status tsr_ge(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out) {
  return binary_call(a, b, out, ops::ge);
}
TSR_EXTERN tsr_status tsr_allclose(const tsr_tensor* a, const tsr_tensor* b, double rtol, double atol,
                                   bool equal_nan, bool* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Tensor& y = tensor_of(b, "b");
    require(out, "out");
    *out = ops::allclose(x, y, rtol, atol, equal_nan);
  });
}
TSR_EXTERN tsr_status tsr_abs(const tsr_tensor* a, tsr_tensor** out) { return unary_call(a, out, ops::abs); }

TSR_EXTERN tsr_status tsr_add_(tsr_tensor* self, const tsr_tensor* other, double alpha) {
  return guarded([&] { ops::add_(tensor_of(self, "self"), tensor_of(other, "other"), alpha); });
}
TSR_EXTERN tsr_status tsr_mul_scalar_(tsr_tensor* self, double s) {
  return guarded([&] { ops::mul_scalar_(tensor_of(self, "self"), s); });
}
TSR_EXTERN tsr_status tsr_fill_(tsr_tensor* self, double v) {
  return guarded([&] { ops::fill_(tensor_of(self, "self"), v); });
}
TSR_EXTERN tsr_status tsr_zero_(tsr_tensor* self) {
  return guarded([&] { ops::zero_(tensor_of(self, "self")); });
}

TSR_EXTERN tsr_status tsr_sum(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim,
                              tsr_tensor** out) {
  return unary_call(a, out, [&](const Tensor& x) { return ops::sum(x, dims_arg(n, dims), keepdim); });
}
TSR_EXTERN tsr_status tsr_mean(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim,
                               tsr_tensor** out) {
  return unary_call(a, out, [&](const Tensor& x) { return ops::mean(x, dims_arg(n, dims), keepdim); });
}
TSR_EXTERN tsr_status tsr_max_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** values,
                                  tsr_tensor** indices) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    TSR_CHECK(values || indices, TSR_ERR_INVALID_ARGUMENT, "max_dim: values and indices are both NULL");
    auto [v, i] = ops::max_dim(x, dim, keepdim);
    tsr_tensor* vh = values ? new tsr_tensor(v) : nullptr;
    tsr_tensor* ih = nullptr;
    try {
      if (indices) ih = new tsr_tensor(i);
    } catch (...) {
      delete vh;
      throw;
    }
    if (values) *values = vh;
    if (indices) *indices = ih;
  });
}
TSR_EXTERN tsr_status tsr_max(const tsr_tensor* a, tsr_tensor** out) { return unary_call(a, out, ops::max); }
TSR_EXTERN tsr_status tsr_argmax(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out) {
  return unary_call(a, out, [&](const Tensor& x) { return ops::argmax(x, dim, keepdim); });
}
TSR_EXTERN tsr_status tsr_log_softmax(const tsr_tensor* a, int64_t dim, tsr_tensor** out) {
  return unary_call(a, out, [&](const Tensor& x) { return ops::log_softmax(x, dim); });
}
TSR_EXTERN tsr_status tsr_cross_entropy(const tsr_tensor* logits, const tsr_tensor* target,
                                        tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(logits, "logits");
    const Tensor& t = tensor_of(target, "target");
    require(out, "out");
    emit(out, ops::cross_entropy(x, t));
  });
}

TSR_EXTERN tsr_status tsr_relu_(tsr_tensor* self) {
  return guarded([&] { ops::relu_(tensor_of(self, "self")); });
}
