// Differentiable pointwise math (src/ops/pointwise.cpp): torch 1.13's
// silu, leaky_relu, elu, softplus, hardtanh, sin, cos, rsqrt, reciprocal,
// floor, ceil, round, trunc and sign. Dtype rules: kernels/pointwise.h.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

Tensor silu(const Tensor& x);
Tensor leaky_relu(const Tensor& x, double negative_slope);
Tensor elu(const Tensor& x, double alpha);
Tensor softplus(const Tensor& x, double beta, double threshold);
Tensor hardtanh(const Tensor& x, double min_val, double max_val);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
Tensor sign(const Tensor& x);
// torch.clamp(x, lo, hi) with tensor bounds (either may be null, not both),
// broadcast, in torch.result_type of all operands.
Tensor clamp_tensor(const Tensor& x, const Tensor* lo, const Tensor* hi);

}  // namespace tsr::ops
