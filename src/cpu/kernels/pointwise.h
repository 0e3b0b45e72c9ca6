// Pointwise kernels on CPU tensors (no autograd): silu, leaky_relu, elu,
// softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round,
// trunc, sign, and the comparison mask their backward formulas select with.
// Any strides; results laid out as TensorIterator lays them out; 16-bit
// floats computed in float. Dtype rules are torch 1.13's CPU kernels'.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

enum class Pw { Silu, LeakyRelu, Elu, Softplus, Hardtanh, Sin, Cos, Rsqrt, Reciprocal, Floor, Ceil, Round, Trunc, Sign };

// The op's two scalar parameters: leaky_relu (negative_slope), elu
// (alpha), softplus (beta, threshold), hardtanh (min_val, max_val).
struct PwArgs {
  double a = 0.0, b = 0.0;
};

// The aten op name ("silu", "leaky_relu", ...).
const char* pw_name(Pw op);
// The dtype pointwise(op, x) gives, or TSR_ERR_DTYPE_MISMATCH with torch's
// "not implemented for" message (TSR_ERR_INVALID_ARGUMENT for hardtanh's
// bool/unsigned checks).
tsr_dtype pw_result_dtype(Pw op, tsr_dtype x, const PwArgs& args);
Tensor pointwise(Pw op, const Tensor& x, const PwArgs& args);

// torch.clamp(x, lo, hi) with tensor bounds: `bounds` holds lo and/or hi
// (has_lo says whether bounds[0] is lo), all broadcast together, computed
// in torch.result_type of them all. A NaN bound or x gives NaN.
tsr_dtype clamp_tensor_result_dtype(const Tensor& x, const std::vector<Tensor>& bounds);
Tensor clamp_tensor(const Tensor& x, const std::vector<Tensor>& bounds, bool has_lo, bool has_hi);

// x > v as a bool tensor of x's layout (leaky_relu's and softplus's masks).
Tensor greater_mask(const Tensor& x, double v);

}  // namespace tsr::kernels
