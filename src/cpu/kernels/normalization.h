// softmax and layer_norm on CPU tensors (no autograd), forward and the
// fused backward formulas ATen uses. Inputs of any strides (read through a
// contiguous copy when needed); results contiguous, as torch's.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// torch.softmax(x, dim): max-shifted exp, times the reciprocal of the sum.
// bfloat16/float32/float64; others TSR_ERR_DTYPE_MISMATCH with torch's
// message ("softmax_lastdim_kernel_impl" / "softmax_kernel_impl").
void check_softmax_dtype(const Tensor& x, int64_t dim);
Tensor softmax(const Tensor& x, int64_t dim);
// grad_input = y * (g - sum(g * y, dim)).
Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim);

// Checks layer_norm's arguments as ATen's _check_layer_norm_inputs (and
// dtypes); weight/bias may be undefined.
void check_layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                      const Tensor& bias);
// (x - mean) / sqrt(var + eps) * weight + bias over the trailing
// normalized_shape dims (biased variance).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps);
// ATen's LayerNormBackwardKernelImpl: gradients of x, weight, bias (each
// computed when its flag is set, else undefined). weight may be undefined.
struct LayerNormGrads {
  Tensor x, weight, bias;
};
LayerNormGrads layer_norm_backward(const Tensor& grad, const Tensor& x, const Shape& normalized_shape,
                                   const Tensor& weight, double eps, bool need_x, bool need_weight,
                                   bool need_bias);

}  // namespace tsr::kernels
