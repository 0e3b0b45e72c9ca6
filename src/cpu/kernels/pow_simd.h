// Vectorized inner loops of pow (activation.cpp) for float32 and float64
// over contiguous arrays, chosen at run time by Highway's dynamic dispatch
// like elementwise_simd.h.
//
// Exactness: the exponents ATen 1.13 special-cases (2, 3, -2, 0.5, -0.5,
// -1: x*x, x*x*x, 1/(x*x), sqrt, 1/sqrt, 1/x) are IEEE operations in the
// scalar loops' order (this file is compiled with -ffp-contract=off), so
// bit for bit. Any other exponent, and pow of two tensors, follow ATen's
// cpu_kernel_vec split: SLEEF's 1-ulp pow (Sleef_powf8_u10, torch's
// Vectorized<float>::pow) over whole blocks of 64 bytes (two AVX2 vectors,
// ATen's step), the scalar std::pow over the remaining n % block elements
// (for a float32 base and a scalar exponent, pow(double(x), e) rounded, as
// torch's scalar lambda). On AVX2 that is torch's result bit for bit for a
// contiguous tensor TensorIterator does not split (torch's results depend on
// its split: each chunk has its tail; tessera cuts on blocks, below, so
// its results do not depend on the thread count); SLEEF's pow differs from
// the correctly rounded pow in about 2% of float32 elements, by one ulp.
// Targets without SLEEF (not SSE4/AVX2) use std::pow throughout.
#pragma once

#include <cstdint>

#include "cpu/kernels/elementwise_simd.h"
#include "tessera/types.h"

namespace tsr::kernels::simd {

// The block the SLEEF part of pow_scalar/pow takes at a time: 64 bytes, 16
// float32 or 8 float64 elements. Which elements fall in the scalar tail
// depends on where a call starts, so a caller that splits an array between
// threads gets the one-call bits only by cutting on block boundaries.
inline constexpr int64_t kPowBlockBytes = 64;

// out[i] = pow(x[i], e) for d float32 or float64; false for other dtypes.
bool pow_scalar(tsr_dtype d, void* out, const void* x, double e, int64_t n);
// out[i] = pow(a[i], b[i]) for d float32 or float64, `bcast` as binary()
// in elementwise_simd.h; false for other dtypes.
bool pow(tsr_dtype d, void* out, const void* a, const void* b, int64_t n, Bcast bcast);

}  // namespace tsr::kernels::simd
