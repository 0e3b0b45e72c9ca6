// The few kernel calls made outside primitives (the backward engine's
// gradient seeds and accumulation, in-place rebasing, as_strided's
// backward, the C API's fills), on whichever device the tensor lives: the
// CPU kernel on the CPU, device/device_ops.h elsewhere.
#pragma once

#include "core/tensor.h"

namespace tsr::device {

Tensor zeros_on(const Shape& sizes, tsr_dtype dtype, Device device);
void fill_any(const Tensor& dst, double value);
// dst += alpha * src, src already of dst's sizes (kernels::add_into); dst
// may overlap itself (device/accumulate.h on a device).
void add_into_any(const Tensor& dst, const Tensor& src, double alpha);
// dst = src, same device, src of dst's sizes (kernels::copy_strided).
void copy_strided_any(const Tensor& dst, const Tensor& src);
Tensor contiguous_copy_any(const Tensor& t, tsr_dtype dtype);
// a / b broadcast, a fresh tensor (kernels::binary(BinaryOp::Div)).
Tensor divide_any(const Tensor& a, const Tensor& b);

}  // namespace tsr::device
