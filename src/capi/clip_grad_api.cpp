// C API: gradient clipping (clip_grad.h). Argument checks, then
// src/optim/clip_grad.cpp; *total_norm is written last.
#include <tessera/clip_grad.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "optim/clip_grad.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

std::vector<Tensor> tensors_of(tsr_tensor* const* params, size_t n) {
  TSR_CHECK(n == 0 || params, TSR_ERR_INVALID_ARGUMENT, "params is NULL");
  std::vector<Tensor> ps;
  ps.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TSR_CHECK(params[i], TSR_ERR_INVALID_ARGUMENT, "params[", i, "] is NULL");
    ps.push_back(params[i]->tensor);
  }
  return ps;
}

}  // namespace

TSR_EXTERN tsr_status tsr_clip_grad_norm_(tsr_tensor* const* params, size_t num_params, double max_norm,
                                          double norm_type, bool error_if_nonfinite, tsr_tensor** total_norm) {
  return guarded([&] {
    const std::vector<Tensor> ps = tensors_of(params, num_params);
    require(total_norm, "total_norm");
    emit(total_norm, optim::clip_grad_norm_(ps, max_norm, norm_type, error_if_nonfinite));
  });
}

TSR_EXTERN tsr_status tsr_clip_grad_value_(tsr_tensor* const* params, size_t num_params, double clip_value) {
  return guarded([&] { optim::clip_grad_value_(tensors_of(params, num_params), clip_value); });
}
