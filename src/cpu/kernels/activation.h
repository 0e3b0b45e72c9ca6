// Activation and power kernels on CPU tensors (no autograd): gelu, tanh,
// sigmoid, sqrt, erf, pow, clamp, their fused backward formulas, and the
// masks the backward formulas select with. Any strides; results laid out as
// TensorIterator lays them out; 16-bit floats computed in float.
#pragma once

#include <optional>

#include "core/tensor.h"

namespace tsr::kernels {

enum class Act { Gelu, GeluTanh, Tanh, Sigmoid, Sqrt, Erf };

// What act(op, x) gives for an x of this dtype: gelu takes bfloat16/
// float32/float64; tanh, sigmoid, sqrt and erf also take integers and bool
// (giving float32). float16 and the rest: TSR_ERR_DTYPE_MISMATCH with
// torch 1.13's "\"tanh_vml_cpu\" not implemented for 'Half'".
tsr_dtype act_result_dtype(Act op, tsr_dtype x);
// The aten op name ("gelu" for both gelu forms): messages and Primitive::op.
const char* act_name(Act op);
Tensor act(Act op, const Tensor& x);
// The fused backward: gelu from (grad, x), tanh/sigmoid/sqrt from (grad,
// result): ATen's gelu_backward, tanh_backward (g * (1 - y*y)),
// sigmoid_backward (g * (1 - y) * y), g / (2 * y). grad and saved have one
// floating dtype and the same sizes.
Tensor act_backward(Act op, const Tensor& grad, const Tensor& saved);

// x ** e with e a Python float: floating x keeps its dtype, integer and
// bool x give float32 (ATen's pow_tensor_scalar_optimized_kernel: x*x for
// 2, x*x*x for 3, sqrt for 0.5, 1/x for -1, ...).
tsr_dtype pow_scalar_result_dtype(tsr_dtype x);
// The exponent's check for a result of dtype d (every device): 16-bit types
// convert it (Scalar::to<scalar_t>), which fails beyond their range.
void check_pow_scalar_exponent(double e, tsr_dtype d);
Tensor pow_scalar(const Tensor& x, double e);
// a ** b, broadcast, dtype torch.result_type(a, b); integers by repeated
// squaring (negative exponents: 0 unless the base is 1 or -1, as ATen's
// powi); bool: TSR_ERR_DTYPE_MISMATCH.
tsr_dtype pow_result_dtype(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);

// torch.clamp(x, lo, hi) with Python-float bounds: floating x (not
// float16) keeps its dtype, integer and bool x give float32. One bound NaN
// with both given: all NaN; a lone NaN bound leaves x as it is (torch).
tsr_dtype clamp_result_dtype(tsr_dtype x);
Tensor clamp(const Tensor& x, std::optional<double> lo, std::optional<double> hi);

// Comparisons for backward formulas (bool results, x's layout):
// lo <= x <= hi with a missing bound ignored (clamp_backward's mask),
// x == v, and (x == 0) & (y >= 0) broadcast (pow's exponent mask).
Tensor in_range_mask(const Tensor& x, std::optional<double> lo, std::optional<double> hi);
Tensor eq_scalar_mask(const Tensor& x, double v);
Tensor zero_base_mask(const Tensor& x, const Tensor& y);

}  // namespace tsr::kernels
