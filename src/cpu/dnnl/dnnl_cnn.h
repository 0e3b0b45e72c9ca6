// oneDNN's kernels for convolution (float32 and bfloat16) and average
// pooling (float32) (dnnl_conv.cpp, dnnl_pooling.cpp), with the
// signatures of cpu/kernels/cnn.h. cnn_dispatch.cpp decides when they run;
// every tensor given has one of those dtypes, is dense in fmt and has at
// least one element.
#pragma once

#include "cpu/kernels/cnn.h"

namespace tsr::kernels::onednn {

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt);
ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias);

// False (nothing done) where oneDNN's padding rule differs from torch's:
// count_include_pad with a ceil-mode window reaching past the padding.
bool avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt, Tensor& out);
bool avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt,
                         Tensor& grad_input);

}  // namespace tsr::kernels::onednn
