// max_pool2d with indices on a device, and its backward: the tensor-level
// half of the MaxPool primitives' eval_device (DeviceKernels::max_pool2d,
// the CPU's comparisons and sums, not cuDNN's pooling, which gives no
// indices). Arguments are checked by the op layer first
// (kernels::pool2d_output_sizes); tensors are batched [N, C, H, W] (the op
// batches unbatched input as a view), read at any strides, results in fmt.
#pragma once

#include <utility>

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/cnn.h"

namespace tsr::device {

// Values and int64 indices (h * W + w within each plane), both in fmt.
std::pair<Tensor, Tensor> max_pool2d(DeviceKernels& k, const Tensor& x, const kernels::Pool2dArgs& a,
                                     tsr_memory_format fmt);
// The gradient of x (x_sizes, fmt) from g and the forward's indices.
Tensor max_pool2d_backward(DeviceKernels& k, const Tensor& g, const Tensor& indices, const Shape& x_sizes,
                           const kernels::Pool2dArgs& a, tsr_memory_format fmt);

}  // namespace tsr::device
