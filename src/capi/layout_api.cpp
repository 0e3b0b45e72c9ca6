// C API: contiguity, memory formats, copies, conversions (layout.h).
#include <tessera/layout.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/dtype.h"
#include "core/layout.h"
#include "ops/layout.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_is_contiguous(const tsr_tensor* t, tsr_memory_format fmt, bool* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    check_memory_format(enum_arg(fmt));
    *out = is_contiguous_as(x.sizes(), x.strides(), fmt);
  });
}
TSR_EXTERN tsr_status tsr_is_non_overlapping_and_dense(const tsr_tensor* t, bool* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = is_non_overlapping_and_dense(x.sizes(), x.strides());
  });
}
TSR_EXTERN tsr_status tsr_suggest_memory_format(const tsr_tensor* t, tsr_memory_format* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = suggest_memory_format(x.sizes(), x.strides());
  });
}
TSR_EXTERN tsr_status tsr_contiguous(const tsr_tensor* t, tsr_memory_format fmt, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    check_memory_format(enum_arg(fmt));
    emit(out, ops::contiguous(x, fmt));
  });
}
TSR_EXTERN tsr_status tsr_clone(const tsr_tensor* t, tsr_memory_format fmt, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    check_memory_format(enum_arg(fmt));
    emit(out, ops::clone(x, fmt));
  });
}
TSR_EXTERN tsr_status tsr_to_dtype(const tsr_tensor* t, tsr_dtype dtype, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    check_dtype(enum_arg(dtype));
    emit(out, ops::to_dtype(x, dtype));
  });
}
TSR_EXTERN tsr_status tsr_copy_(tsr_tensor* dst, const tsr_tensor* src) {
  return guarded([&] { ops::copy_(tensor_of(dst, "dst"), tensor_of(src, "src")); });
}
TSR_EXTERN tsr_status tsr_shares_storage(const tsr_tensor* a, const tsr_tensor* b, bool* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(a, "a");
    const Tensor& y = tensor_of(b, "b");
    require(out, "out");
    *out = x.storage().get() == y.storage().get();
  });
}
