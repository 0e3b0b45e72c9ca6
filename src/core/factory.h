// Tensors with fresh storage (torch.empty, empty_strided, empty_like) and over
// caller memory (torch.from_blob). Contents are uninitialised unless stated.
#pragma once

#include "core/tensor.h"

namespace tsr {

// Throws TSR_ERR_UNSUPPORTED for anything but (CPU, 0).
void check_device(int device_type, int32_t device_index);

Tensor empty(const Shape& sizes, tsr_dtype dtype,
             tsr_memory_format fmt = TSR_CONTIGUOUS_FORMAT,
             tsr_device_type device = TSR_DEVICE_CPU);
Tensor empty_strided(const Shape& sizes, const Shape& strides, tsr_dtype dtype,
                     tsr_device_type device = TSR_DEVICE_CPU);
// ATen's empty_like(t, fmt) with t's sizes (fmt may be PRESERVE) and dtype.
Tensor empty_like(const Tensor& t, tsr_memory_format fmt = TSR_PRESERVE_FORMAT);
Tensor empty_like(const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt = TSR_PRESERVE_FORMAT);
Tensor from_blob(void* data, const Shape& sizes, const Shape* strides, tsr_dtype dtype,
                 tsr_device_type device, tsr_deleter deleter, void* ctx);

}  // namespace tsr
