// conv2d on a device with DnnKernels (cuDNN on CUDA): the tensor-level half
// of the Convolution primitives' eval_device. Arguments are checked by the
// op layer with the CPU's checks (kernels::conv2d_output_sizes) before
// anything is queued; here operands are made dense in fmt (a copy on the
// device when they are not), outputs allocated in fmt, workspaces taken
// from the caching allocator, and the algorithm policy read from
// dnn_flags.h.
#pragma once

#include "core/device_kernels.h"
#include "core/dnn_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/cnn.h"

namespace tsr::device {

// The device's DnnKernels; TSR_ERR_UNSUPPORTED naming op and device when it
// has none (as a primitive without eval_device).
DnnKernels& dnn_kernels_for(const char* op, Device d);

// conv2d(x, weight) + bias (bias may be undefined), computed and returned
// in fmt.
Tensor conv2d(DeviceKernels& k, const Tensor& x, const Tensor& weight, const Tensor& bias,
              const kernels::Conv2dArgs& a, tsr_memory_format fmt);
// The gradients wanted (need_*) of conv2d from g; x given when the weight's
// gradient is wanted, weight when the input's is. Input and weight
// gradients in fmt, bias's [C_out] (g summed over N, H, W).
kernels::ConvGrads conv2d_backward(DeviceKernels& k, const Tensor& g, const Tensor& x,
                                   const Tensor& weight, const Shape& x_sizes,
                                   const Shape& w_sizes, const kernels::Conv2dArgs& a,
                                   tsr_memory_format fmt, bool need_input, bool need_weight,
                                   bool need_bias);

// Batch norm through the device's DnnKernels (cuDNN's batch norm): the CPU
// kernel's contract (kernels::batch_norm: out in fmt, the statistics used
// in stats_dtype, the batch's unbiased variance when training), checked by
// the op first. cuDNN takes float32 statistics and parameters (float64 for
// float64 x): other parameter dtypes are TSR_ERR_UNSUPPORTED.
kernels::BatchNormResult batch_norm(DeviceKernels& k, const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    const Tensor& running_mean, const Tensor& running_var, bool training,
                                    double eps, tsr_memory_format fmt, tsr_dtype stats_dtype);
// kernels::batch_norm_backward's contract: training through cuDNN's
// backward; evaluation (a scaling by weight / sqrt(var + eps)) with the
// device's elementwise and reduction kernels.
kernels::BatchNormGrads batch_norm_backward(DeviceKernels& k, const Tensor& g, const Tensor& x,
                                            const Tensor& weight, const Tensor& mean, const Tensor& var,
                                            double eps, bool training, tsr_memory_format fmt, bool need_input,
                                            bool need_weight, bool need_bias);
// running = (1 - momentum) * running + momentum * stat, in place on the
// device (torch's running-stat update).
void blend_running_stat(DeviceKernels& k, const Tensor& running, const Tensor& stat, double momentum);

// Average pooling through the device's DnnKernels (cuDNN's pooling) on
// batched [N, C, H, W] tensors (the op batches unbatched input as a view),
// output sizes checked by the op. Windows as cuDNN counts them: ceil_mode
// that would add a window is TSR_ERR_UNSUPPORTED on the device.
Tensor avg_pool2d(DeviceKernels& k, const Tensor& x, const kernels::Pool2dArgs& a, tsr_memory_format fmt);
Tensor avg_pool2d_backward(DeviceKernels& k, const Tensor& g, const Shape& x_sizes, const kernels::Pool2dArgs& a,
                           tsr_memory_format fmt);
// adaptive_avg_pool2d where each output size divides the input's (torch's
// windows are then uniform: kernel = stride = in / out; a 1x1 output
// always); other sizes are TSR_ERR_UNSUPPORTED on the device.
Tensor adaptive_avg_pool2d(DeviceKernels& k, const Tensor& x, const kernels::Pair& output_size,
                           tsr_memory_format fmt);
Tensor adaptive_avg_pool2d_backward(DeviceKernels& k, const Tensor& g, const Shape& x_sizes, tsr_memory_format fmt);

}  // namespace tsr::device
