#include "ops/layout.h"

#include "autograd/copy_primitive.h"
#include "autograd/run.h"
#include "core/dtype.h"
#include "core/layout.h"

namespace tsr::ops {

Tensor clone(const Tensor& t, tsr_memory_format fmt) {
  check_memory_format(fmt);
  return autograd::run1<autograd::Copy>({t}, "CloneBackward0", "clone", t.dtype(), fmt);
}

Tensor contiguous(const Tensor& t, tsr_memory_format fmt) {
  TSR_CHECK(fmt != TSR_PRESERVE_FORMAT, TSR_ERR_INVALID_ARGUMENT,
            "preserve memory format is unsupported by the contiguous operator");
  strides_for_format(t.sizes(), fmt);  // rank check for channels_last
  if (is_contiguous_as(t.sizes(), t.strides(), fmt)) return t;
  return clone(t, fmt);
}

Tensor to_dtype(const Tensor& t, tsr_dtype dtype) {
  check_dtype(dtype);
  return autograd::to_dtype(t, dtype);
}

}  // namespace tsr::ops
