// Differentiable layers and functions in the style of torch.nn.functional:
// linear, activations, normalisation, joining and indexing. Each runs one
// primitive through autograd::run (src/ops/{linear,activation,
// normalization,joining,indexing}.cpp); the C API's ops.h entry points call
// these. Backward formulas are PyTorch's (tools/autograd/derivatives.yaml),
// written with differentiable ops so that create_graph works.
#pragma once

#include <optional>
#include <vector>

#include "core/tensor.h"

namespace tsr::ops {

// linear.cpp: x @ weight^T + bias (bias may be undefined).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);

// activation.cpp. Integer and bool inputs of tanh/sigmoid/sqrt/erf give
// float32; float16 is refused as by torch 1.13's CPU kernels.
Tensor gelu(const Tensor& x, bool tanh_approximation);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor erf(const Tensor& x);
// pow: integer/bool x with a (Python float) scalar exponent gives float32;
// tensor ** tensor promotes as torch.result_type.
Tensor pow_scalar(const Tensor& x, double exponent);
Tensor pow(const Tensor& x, const Tensor& exponent);
// clamp with Python-float bounds; at least one given.
Tensor clamp(const Tensor& x, std::optional<double> lo, std::optional<double> hi);

// normalization.cpp. weight and bias of layer_norm may be undefined.
Tensor softmax(const Tensor& x, int64_t dim);
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps);

// joining.cpp: torch.cat / torch.stack (type promotion as torch.cat).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);

// indexing.cpp: torch.where (cond bool, or uint8 as torch 1.13 allows).
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// index_select (index int32/int64, 0-/1-D), gather (index int64),
// embedding (indices int32/int64, weight 2-D).
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor embedding(const Tensor& weight, const Tensor& indices);

}  // namespace tsr::ops
