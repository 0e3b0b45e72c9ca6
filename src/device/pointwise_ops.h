// The pointwise family (kernels::pointwise: silu, leaky_relu, elu,
// hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc, sign),
// abs and sign (compare.cpp) on a device other than the CPU through its
// unary kernels, with the CPU's dtype rules and messages; and greater_mask
// on any device. softplus (two parameters, the unary kernel takes one) has
// no device path yet: TSR_ERR_UNSUPPORTED.
#pragma once

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/pointwise.h"

namespace tsr::device {

Tensor pointwise(DeviceKernels& k, kernels::Pw op, const Tensor& x, const kernels::PwArgs& args);
Tensor abs(DeviceKernels& k, const Tensor& x);
Tensor sign(DeviceKernels& k, const Tensor& x);
// kernels::greater_mask (x > v in double, bool) wherever x lives.
Tensor greater_mask_any(const Tensor& x, double v);

}  // namespace tsr::device
