// Vectorized inner loops of the elementwise kernels (elementwise.cpp,
// activation.cpp), chosen at run time for the CPU by Highway's dynamic
// dispatch (AVX2 / SSE4 / ... on x86, NEON on ARM; AVX-512 left out as for
// the other memory-bound kernels, see simd_targets.h).
//
// Every call is over contiguous arrays of n elements; `bcast` says which
// input of a binary op is a single value read once (stride 0).
//
// Exactness: add/sub/mul/div, relu, neg, sqrt and the relu backward give
// the bits the scalar loops give (one IEEE operation per element; this file
// is compiled with -ffp-contract=off). float16/bfloat16 are converted to
// float32 (convert_simd.h, bit-exact), computed, and rounded back, as the
// scalar loops do through compute_t; bfloat16 relu and relu backward work
// on the 16-bit patterns instead, with the same bits (elementwise_simd.cpp). exp, log, tanh, erf (and sigmoid and
// gelu, built on them) use SLEEF's 1-ulp functions where the target has
// them (Sleef_expf8_u10 etc., ATen's choice), so they can differ from
// std:: by an ulp; other targets use the scalar std:: functions. gelu and
// its backward in float32 take ATen's Vectorized<float>::erf polynomial
// instead, as torch's gelu does (absolute error < 1.5e-7).
#pragma once

#include <cstdint>

#include "tessera/types.h"

namespace tsr::kernels::simd {

enum class Bin : int {
  Add, Sub, Mul, Div,
  // activation backwards, (grad, saved) as activation.cpp's scalar formulas
  ReluBackward,     // (g, y) -> y <= 0 ? 0 : g
  TanhBackward,     // (g, y) -> g * (1 - y * y)
  SigmoidBackward,  // (g, y) -> g * (1 - y) * y
  SqrtBackward,     // (g, y) -> g / (2 * y)
  GeluBackward,     // (g, x), erf gelu; uses SLEEF's erf and exp
  GeluTanhBackward, // (g, x), tanh gelu; SLEEF's tanh
  ErfBackward,      // (g, x) -> g * 2/sqrt(pi) * exp(-x * x)
  ClampMin,         // (x, lo) -> x < lo ? lo : x (std::max(x, lo): NaN x stays NaN)
  ClampMax,         // (x, hi) -> hi < x ? hi : x (std::min(x, hi))
};
enum class Un : int { Exp, Log, Tanh, Erf, Sigmoid, Gelu, Relu, Neg, Sqrt, GeluTanh };

enum class Bcast : int { None, B /* b is b[0] for every i */, A /* a is a[0] */ };

// Floating dtypes (float16, bfloat16, float32, float64); false when `d` is
// not one of them (the caller runs its scalar loop).
bool binary(Bin op, tsr_dtype d, void* out, const void* a, const void* b, int64_t n, Bcast bcast);
// out[i] = op(a[i], k) with k in the compute type (float for the 16-bit
// floats, as the scalar ops' compute_t: k is not rounded to the dtype).
bool binary_scalar(Bin op, tsr_dtype d, void* out, const void* a, double k, int64_t n);
bool unary(Un op, tsr_dtype d, void* out, const void* x, int64_t n);
// out[i] = a[i] + k * b[i], floating dtypes (false for the others): the
// product rounded to the compute type (float for the 16-bit floats), then
// the sum, as add_into's scalar loop (never one fused multiply-add). out
// may be a (in place).
bool add_scaled(tsr_dtype d, void* out, const void* a, const void* b, double k, int64_t n);
// clamp of float16 / bfloat16 (false for other dtypes): out[i] = x[i]
// clamped to lo (when not NULL) then to hi (when not NULL), in float, one
// conversion each way per element. The bounds are already values of the
// dtype (activation.cpp's as_element), so the result is exact.
bool clamp_16bit(tsr_dtype d, void* out, const void* x, int64_t n, const float* lo, const float* hi);

// The instruction set the calls above use on this CPU (e.g. "AVX2").
const char* elementwise_simd_target();

}  // namespace tsr::kernels::simd
