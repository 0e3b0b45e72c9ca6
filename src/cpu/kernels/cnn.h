// Convolution, pooling and batch norm on CPU tensors (no autograd): the
// argument checks and output sizes (cnn_args.cpp, PyTorch 1.13's checks and
// messages), and forward/backward kernels. Each kernel takes dense inputs of
// one memory format (contiguous or channels_last: the op layer makes them
// so) and writes outputs in that format. float32 (and bfloat16
// convolution) goes to oneDNN (cpu/dnnl/), float64 and what oneDNN lacks
// to the direct loops of conv_ref.cpp, pooling_ref.cpp and
// batch_norm_ref.cpp; bfloat16 batch norm and max pooling run in those
// loops as bfloat16 (widened in registers), the rest of bfloat16 and
// float16 as float32 copies rounded once (cnn_dispatch.cpp).
#pragma once

#include <array>
#include <initializer_list>

#include "core/tensor.h"

namespace tsr::kernels {

using Pair = std::array<int64_t, 2>;

struct Conv2dArgs {
  Pair stride, padding, dilation;
  int64_t groups;
};
struct Pool2dArgs {
  Pair kernel, stride, padding, dilation;
  bool ceil_mode;
  bool count_include_pad;  // avg_pool2d only
};

// ---- checks and sizes (cnn_args.cpp) --------------------------------------
// ---- output memory formats (cnn_format.cpp) ---------------------------------
// The format every tensor of the op is computed in, torch 1.13's choice for
// its output. Pooling: the input's suggested format. conv2d (x and w 4-D,
// checked): channels_last when x's or w's suggested format is, except for
// grouped convolutions torch runs per group on its native backends
// (float64, float16, small float32), whose concatenated result is
// contiguous when the groups' results read as such. Batch norm: contiguous for a contiguous x even when
// its strides also read as channels_last (params: weight, bias, running
// stats, any undefined).
tsr_memory_format cnn_format(const Tensor& x);
tsr_memory_format conv_format(const Tensor& x, const Tensor& w, const Conv2dArgs& a);
// conv2d's format through cuDNN (torch 1.13's cudnn_conv_suggest_memory_format,
// used for CUDA tensors): contiguous when x or w is float64, else
// channels_last when x's or w's strides suggest it, groups or not.
tsr_memory_format cudnn_conv_format(const Tensor& x, const Tensor& w);
tsr_memory_format batch_norm_format(const Tensor& x, std::initializer_list<const Tensor*> params);
// t itself when dense in fmt, else a copy that is.
Tensor dense_in(const Tensor& t, tsr_memory_format fmt);
// Unbatched pooling input [C, H, W] (as torch takes it) as [1, C, H, W]: a
// view, no copy; 4-D tensors pass through. unbatched() drops that dim again.
Tensor as_batched(const Tensor& t);
Tensor unbatched(const Tensor& t);
// Whether x's dtype is one the CNN kernels take (float32, float64,
// bfloat16, float16), and whether another tensor of the op shares it.
void check_cnn_dtype(const char* op, const Tensor& x);
void check_same_dtype(const char* op, const Tensor& x, const Tensor& other, const char* what);

Shape conv2d_output_sizes(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a);
// op: "max_pool2d" / "avg_pool2d" (messages); checks kernel, stride,
// padding, dilation and the input as pool2d_shape_check. Pooling takes
// [N, C, H, W] or unbatched [C, H, W] input (sizes returned alike).
Shape pool2d_output_sizes(const char* op, const Tensor& x, const Pool2dArgs& a);
Shape adaptive_pool2d_output_sizes(const Tensor& x, const Pair& output_size);
// Running stats, weight and bias of [C] (any may be undefined), running
// stats required when !training, more than one value per channel when
// training. Their dtype: x's, or float32 for bfloat16 / float16 x (torch
// 1.13's mixed-dtype batch norm; float16 as torch 2.x), all alike, the
// first defined one deciding which (torch's messages).
void check_batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                      const Tensor& weight, const Tensor& bias, bool training);
// The dtype of batch norm's parameters, saved statistics and parameter
// gradients: the first defined parameter's, else x's.
tsr_dtype batch_norm_param_dtype(const Tensor& x, std::initializer_list<const Tensor*> params);

// ---- kernels: x, w, g dense in fmt (conv: fmt = conv_format), outputs and
// gradients made in fmt (the op layer decides fmt once, from the inputs the
// user gave, and keeps it for backward).
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt);
struct ConvGrads {
  Tensor input, weight, bias;
};
// g: gradient of conv2d's output; x is read only for the weight's
// gradient, w only for the input's (either may be undefined when not
// needed). Each gradient computed when its flag is set, in the format of its tensor (bias [C_out]).
ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias);

// Values and int64 indices (flat h * W + w), as torch.
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt);
// Scatters g to the indices; x_sizes: the input's sizes.
Tensor max_pool2d_backward(const Tensor& g, const Tensor& indices, const Shape& x_sizes, tsr_memory_format fmt);
Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt);
Tensor avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt);
Tensor adaptive_avg_pool2d(const Tensor& x, const Pair& output_size, tsr_memory_format fmt);
Tensor adaptive_avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, tsr_memory_format fmt);

// Batch norm over x [N, C, ...] dense in fmt. Returns out and the
// per-channel mean and variance used: the batch's (biased variance) when
// training, else the running stats'. unbiased_var: the batch's unbiased
// variance (training only, for the running update). The variance is kept
// rather than torch's invstd because oneDNN's backward takes it. The
// statistics are made in stats_dtype (batch_norm_param_dtype: float32 for a
// bfloat16 x with float32 parameters, as torch's save_mean / save_invstd).
struct BatchNormResult {
  Tensor out, mean, var, unbiased_var;
};
BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                           const Tensor& running_mean, const Tensor& running_var, bool training,
                           double eps, tsr_memory_format fmt, tsr_dtype stats_dtype);
struct BatchNormGrads {
  Tensor input, weight, bias;
};
// ATen's batch_norm_backward_cpu: training uses the batch statistics' full
// derivative, evaluation only the scaling by invstd = 1 / sqrt(var + eps).
// The input's gradient in x's dtype, weight's and bias's in mean's.
BatchNormGrads batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight,
                                   const Tensor& mean, const Tensor& var, double eps, bool training,
                                   tsr_memory_format fmt, bool need_input, bool need_weight, bool need_bias);

// ---- the reference loops (float32/float64, any dense fmt; also bfloat16
// for max pooling, and bfloat16 x and g for batch norm with float32
// parameters and statistics, whose results then are float32) ----
namespace ref {
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt);
Tensor max_pool2d_backward(const Tensor& g, const Tensor& indices, const Shape& x_sizes, tsr_memory_format fmt);
Tensor adaptive_avg_pool2d(const Tensor& x, const Pair& output_size, tsr_memory_format fmt);
Tensor adaptive_avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, tsr_memory_format fmt);
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt);
ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias);
Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt);
Tensor avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt);
BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                           const Tensor& running_mean, const Tensor& running_var, bool training,
                           double eps, tsr_memory_format fmt);
BatchNormGrads batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight,
                                   const Tensor& mean, const Tensor& var, double eps, bool training,
                                   tsr_memory_format fmt, bool need_input, bool need_weight, bool need_bias);
}  // namespace ref

}  // namespace tsr::kernels
