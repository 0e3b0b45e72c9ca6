// Tensors with fresh storage (torch.empty, empty_strided, empty_like) and over
// caller memory (torch.from_blob). Contents are uninitialised unless stated.
#pragma once

#include "core/tensor.h"

namespace tsr {

// The device (device_type, device_index) names, checked: a type outside the
// enum is TSR_ERR_INVALID_ARGUMENT; a type without a registered backend, or
// an index the backend does not have, TSR_ERR_UNSUPPORTED.
Device checked_device(int device_type, int32_t device_index);

// The device is explicit: every caller says where its result lives (an op's
// output goes where its inputs are).
Tensor empty(const Shape& sizes, tsr_dtype dtype, tsr_memory_format fmt, Device device);
Tensor empty_strided(const Shape& sizes, const Shape& strides, tsr_dtype dtype, Device device);
// ATen's empty_like(t, fmt) with t's sizes (fmt may be PRESERVE) and dtype.
Tensor empty_like(const Tensor& t, tsr_memory_format fmt = TSR_PRESERVE_FORMAT);
Tensor empty_like(const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt = TSR_PRESERVE_FORMAT);
Tensor from_blob(void* data, const Shape& sizes, const Shape* strides, tsr_dtype dtype,
                 Device device, tsr_deleter deleter, void* ctx);

}  // namespace tsr
