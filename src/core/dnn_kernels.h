// The deep-learning primitives a device backend may run through a vendor
// library (cuDNN for the CUDA plugin): convolution forward and its two
// backward passes. Reached through DeviceBackend::dnn_kernels(); a device
// without them (nullptr) leaves conv2d TSR_ERR_UNSUPPORTED there, as any op
// without a kernel.
//
// Plain data, as device_kernels.h: src/device/ checks the arguments with the
// CPU's checks, makes every operand dense in the op's memory format
// (contiguous NCHW or channels_last NHWC), allocates the output and hands
// over pointers of device memory. Every call is asynchronous on stream s.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/types.h>

#include "core/stream.h"

namespace tsr {

// A dense 4-D operand: logical sizes N, C, H, W (weights: C_out, C_in /
// groups, kH, kW) and element strides in that order (contiguous:
// {CHW, HW, W, 1}; channels_last: {HWC, 1, WC, C}).
struct DnnTensor {
  void* data;
  tsr_dtype dtype;
  int64_t sizes[4];
  int64_t strides[4];
  bool channels_last;
};

// How the algorithm is chosen, as torch.backends.cudnn: benchmark times the
// candidates once per shape (and keeps the fastest), otherwise the
// library's heuristics decide; deterministic keeps only algorithms that
// give the same bits on every run; allow_tf32 lets float32 run on tensor
// cores (TF32).
struct DnnAlgoPolicy {
  bool benchmark;
  bool deterministic;
  bool allow_tf32;
};

struct DnnConvParams {
  int64_t stride[2], padding[2], dilation[2];
  int64_t groups;
  DnnAlgoPolicy policy;
};

// Device memory for an algorithm's workspace, from the caching allocator:
// get(bytes) returns memory of at least `bytes` (nullptr for 0) that stays
// valid for the work queued on the call's stream before the DnnKernels call
// returns. Throws TSR_ERR_OUT_OF_MEMORY as any allocation.
class DnnWorkspace {
 public:
  virtual ~DnnWorkspace() = default;
  virtual void* get(size_t bytes) = 0;
};

// Average pooling windows (cuDNN's CUDNN_POOLING_AVERAGE_COUNT_*): kernel,
// stride and padding per spatial dim; the divisor counts the padding or only
// the input elements a window covers.
struct DnnPoolParams {
  int64_t kernel[2], stride[2], padding[2];
  bool count_include_pad;
};

class DnnKernels {
 public:
  virtual ~DnnKernels() = default;
  // y = conv2d(x, w) (cross-correlation, no bias): x [N, C, H, W], w [K, C /
  // groups, kH, kW], y [N, K, oH, oW], all of one dtype and layout.
  virtual void conv2d_forward(const DnnTensor& y, const DnnTensor& x, const DnnTensor& w,
                              const DnnConvParams& p, DnnWorkspace& ws, Stream s) = 0;
  // dx = the gradient of conv2d with respect to x, from dy and w.
  virtual void conv2d_backward_data(const DnnTensor& dx, const DnnTensor& dy, const DnnTensor& w,
                                    const DnnConvParams& p, DnnWorkspace& ws, Stream s) = 0;
  // dw = the gradient of conv2d with respect to w, from dy and x.
  virtual void conv2d_backward_filter(const DnnTensor& dw, const DnnTensor& dy, const DnnTensor& x,
                                      const DnnConvParams& p, DnnWorkspace& ws, Stream s) = 0;

  // Batch norm per channel over N, H, W of x [N, C, H, W] into y (x's
  // dtype and layout). weight, bias and the statistics: contiguous [C] of
  // param_dtype (float64 for a float64 x, else float32), weight and bias
  // never null (ones and zeros when the op has none).
  // Training: mean and unbiased_var receive the batch's mean and unbiased
  // variance (they must hold zeros: cuDNN's running update with factor 1).
  virtual void batch_norm_training(const DnnTensor& y, const DnnTensor& x, const void* weight,
                                   const void* bias, tsr_dtype param_dtype, double eps, void* mean,
                                   void* unbiased_var, Stream s) = 0;
  // Evaluation with the given mean and (biased) variance.
  virtual void batch_norm_inference(const DnnTensor& y, const DnnTensor& x, const void* weight,
                                    const void* bias, tsr_dtype param_dtype, const void* mean,
                                    const void* var, double eps, Stream s) = 0;
  // The training-mode gradients: dx (x's dtype and layout), dweight and
  // dbias ([C] of param_dtype), from dy and x (the batch statistics
  // recomputed from x).
  virtual void batch_norm_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnTensor& x,
                                   const void* weight, void* dweight, void* dbias, tsr_dtype param_dtype,
                                   double eps, Stream s) = 0;

  // y = the average pooling of x (y's sizes: the windows' floor rule), one
  // dtype and layout.
  virtual void avg_pool2d_forward(const DnnTensor& y, const DnnTensor& x, const DnnPoolParams& p, Stream s) = 0;
  // dx = its gradient from dy (dx's sizes: x's).
  virtual void avg_pool2d_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnPoolParams& p, Stream s) = 0;
};

}  // namespace tsr
