// The exponentials of the attention kernel's tiles (attention.cpp), with
// Highway's Exp (1 ULP, as SLEEF's expf_u10 that ATen's softmax uses),
// dispatched at run time (attention_simd.cpp).
#pragma once

#include <cstdint>

namespace tsr::kernels::simd {

// The maximum of x[0..n), NaN when one is NaN, -inf when n == 0.
float row_max(const float* x, int64_t n);
double row_max(const double* x, int64_t n);

// x[j] = exp(x[j] - shift) for j < n, in place; returns their sum. A
// shift that is not finite goes through std::exp, which propagates NaN and
// infinities as torch's softmax does (Highway's Exp would give 0).
float exp_shifted_sum(float* x, int64_t n, float shift);
double exp_shifted_sum(double* x, int64_t n, double shift);

}  // namespace tsr::kernels::simd
