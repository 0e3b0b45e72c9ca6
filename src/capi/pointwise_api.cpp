// C API: pointwise math (pointwise.h). Argument checks, then the
// differentiable op.
#include <tessera/pointwise.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/pointwise.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
template <typename Fn>
tsr_status unary_call(const tsr_tensor* x, tsr_tensor** out, Fn&& fn) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(out, "out");
    emit(out, fn(t));
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_silu(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::silu); }
TSR_EXTERN tsr_status tsr_leaky_relu(const tsr_tensor* x, double negative_slope, tsr_tensor** out) {
  return unary_call(x, out, [&](const Tensor& t) { return ops::leaky_relu(t, negative_slope); });
}
TSR_EXTERN tsr_status tsr_elu(const tsr_tensor* x, double alpha, tsr_tensor** out) {
  return unary_call(x, out, [&](const Tensor& t) { return ops::elu(t, alpha); });
}
TSR_EXTERN tsr_status tsr_softplus(const tsr_tensor* x, double beta, double threshold, tsr_tensor** out) {
  return unary_call(x, out, [&](const Tensor& t) { return ops::softplus(t, beta, threshold); });
}
TSR_EXTERN tsr_status tsr_hardtanh(const tsr_tensor* x, double min_val, double max_val, tsr_tensor** out) {
  return unary_call(x, out, [&](const Tensor& t) { return ops::hardtanh(t, min_val, max_val); });
}
TSR_EXTERN tsr_status tsr_sin(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::sin); }
TSR_EXTERN tsr_status tsr_cos(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::cos); }
TSR_EXTERN tsr_status tsr_rsqrt(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::rsqrt); }
TSR_EXTERN tsr_status tsr_reciprocal(const tsr_tensor* x, tsr_tensor** out) {
  return unary_call(x, out, ops::reciprocal);
}
TSR_EXTERN tsr_status tsr_floor(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::floor); }
TSR_EXTERN tsr_status tsr_ceil(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::ceil); }
TSR_EXTERN tsr_status tsr_round(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::round); }
TSR_EXTERN tsr_status tsr_trunc(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::trunc); }
TSR_EXTERN tsr_status tsr_sign(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::sign); }
TSR_EXTERN tsr_status tsr_clamp_tensor(const tsr_tensor* x, const tsr_tensor* min, const tsr_tensor* max,
                                       tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Tensor* lo = min ? &tensor_of(min, "min") : nullptr;
    const Tensor* hi = max ? &tensor_of(max, "max") : nullptr;
    require(out, "out");
    emit(out, ops::clamp_tensor(t, lo, hi));
  });
}
