// C API: sorting and selection (sorting.h). Arguments are checked, then the
// differentiable op runs; out values are written last, so a failing call
// leaves them untouched.
#include <tessera/sorting.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/sorting.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
// The calls with (values, indices) outs: x and both outs checked, op run,
// both written last.
template <typename Op>
tsr_status pair_call(const tsr_tensor* x, tsr_tensor** values, tsr_tensor** indices, Op&& op) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(values, "values");
    require(indices, "indices");
    auto [v, i] = op(t);
    emit(values, v);
    emit(indices, i);
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_sort(const tsr_tensor* x, int64_t dim, bool descending, bool stable,
                               tsr_tensor** values, tsr_tensor** indices) {
  return pair_call(x, values, indices, [&](const Tensor& t) { return ops::sort(t, dim, descending, stable); });
}

TSR_EXTERN tsr_status tsr_argsort(const tsr_tensor* x, int64_t dim, bool descending, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(out, "out");
    emit(out, ops::sort(t, dim, descending, false).second);
  });
}

TSR_EXTERN tsr_status tsr_topk(const tsr_tensor* x, int64_t k, int64_t dim, bool largest, tsr_tensor** values,
                               tsr_tensor** indices) {
  return pair_call(x, values, indices, [&](const Tensor& t) { return ops::topk(t, k, dim, largest); });
}

TSR_EXTERN tsr_status tsr_kthvalue(const tsr_tensor* x, int64_t k, int64_t dim, bool keepdim, tsr_tensor** values,
                                   tsr_tensor** indices) {
  return pair_call(x, values, indices, [&](const Tensor& t) { return ops::kthvalue(t, k, dim, keepdim); });
}
