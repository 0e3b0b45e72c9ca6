// Which implementation runs each convolution, pooling and batch norm
// kernel: oneDNN (cpu/dnnl/) for float32 where it has the primitive, the
// reference loops otherwise: float64 (oneDNN has no f64 primitives),
// tensors without elements (oneDNN skips zero-volume work, leaving outputs
// such as a weight gradient unwritten), average pooling whose padding rule
// oneDNN cannot express. Max and adaptive pooling have only the reference
// kernels (pooling_ref.cpp says why), batch norm only its vectorized loops
// (batch_norm_ref.cpp: oneDNN 2.6's was slower in both memory formats).
#include "cpu/dnnl/dnnl_cnn.h"
#include "core/shape.h"
#include "cpu/kernels/cnn.h"

namespace tsr::kernels {

namespace {
bool use_onednn(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (!t->defined()) continue;
    if (t->dtype() != TSR_FLOAT32 || t->numel() == 0) return false;
  }
  return true;
}
}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt) {
  if (use_onednn({&x, &w})) return onednn::conv2d(x, w, bias, a, fmt);
  return ref::conv2d(x, w, bias, a, fmt);
}

ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias) {
  if (use_onednn({&g, &x, &w}) && checked_numel(x_sizes) > 0 && checked_numel(w_sizes) > 0)
    return onednn::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, need_input, need_weight, need_bias);
  return ref::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, need_input, need_weight, need_bias);
}

Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt) {
  Tensor y;
  if (use_onednn({&x}) && onednn::avg_pool2d(x, a, fmt, y)) return y;
  return ref::avg_pool2d(x, a, fmt);
}

Tensor avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt) {
  Tensor gx;
  if (use_onednn({&g}) && onednn::avg_pool2d_backward(g, x_sizes, a, fmt, gx)) return gx;
  return ref::avg_pool2d_backward(g, x_sizes, a, fmt);
}

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double eps, tsr_memory_format fmt) {
  return ref::batch_norm(x, weight, bias, running_mean, running_var, training, eps, fmt);
}

BatchNormGrads batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                   const Tensor& var, double eps, bool training, tsr_memory_format fmt,
                                   bool need_input, bool need_weight, bool need_bias) {
  return ref::batch_norm_backward(g, x, weight, mean, var, eps, training, fmt, need_input, need_weight, need_bias);
}

}  // namespace tsr::kernels
