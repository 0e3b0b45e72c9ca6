// Which implementation runs each convolution, pooling and batch norm
// kernel: oneDNN (cpu/dnnl/) for float32 where it has the primitive, the
// reference loops otherwise (float64, which oneDNN lacks; batch norm on
// other than 4-D input).
#include "cpu/kernels/cnn.h"

namespace tsr::kernels {

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt) {
  return ref::conv2d(x, w, bias, a, fmt);
}

ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias) {
  return ref::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, need_input, need_weight, need_bias);
}

Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt) {
  return ref::avg_pool2d(x, a, fmt);
}

Tensor avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt) {
  return ref::avg_pool2d_backward(g, x_sizes, a, fmt);
}

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double eps, tsr_memory_format fmt) {
  return ref::batch_norm(x, weight, bias, running_mean, running_var, training, eps, fmt);
}

BatchNormGrads batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                   const Tensor& invstd, bool training, tsr_memory_format fmt, bool need_input,
                                   bool need_weight, bool need_bias) {
  return ref::batch_norm_backward(g, x, weight, mean, invstd, training, fmt, need_input, need_weight, need_bias);
}

}  // namespace tsr::kernels
