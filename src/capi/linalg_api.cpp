// C API: batched matrix products (linalg.h).
#include <tessera/linalg.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/linalg_batched.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_bmm(const tsr_tensor* batch1, const tsr_tensor* batch2, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& a = tensor_of(batch1, "batch1");
    const Tensor& b = tensor_of(batch2, "batch2");
    require(out, "out");
    emit(out, ops::bmm(a, b));
  });
}
TSR_EXTERN tsr_status tsr_outer(const tsr_tensor* input, const tsr_tensor* vec2, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& a = tensor_of(input, "input");
    const Tensor& b = tensor_of(vec2, "vec2");
    require(out, "out");
    emit(out, ops::outer(a, b));
  });
}
TSR_EXTERN tsr_status tsr_baddbmm(const tsr_tensor* input, const tsr_tensor* batch1, const tsr_tensor* batch2,
                                  double beta, double alpha, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& i = tensor_of(input, "input");
    const Tensor& a = tensor_of(batch1, "batch1");
    const Tensor& b = tensor_of(batch2, "batch2");
    require(out, "out");
    emit(out, ops::baddbmm(i, a, b, beta, alpha));
  });
}
