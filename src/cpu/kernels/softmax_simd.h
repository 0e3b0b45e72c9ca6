// Vectorized softmax and log_softmax of one contiguous row (the last dim),
// ATen's vec_softmax_lastdim / vec_log_softmax_lastdim: the row's maximum
// (NaN if the row has one), exp(x - max) with Highway's Exp (1 ULP, as
// SLEEF's expf_u10 that ATen uses), their sum, then y = e * (1 / sum) or
// y = (x - max) - log(sum). Dispatched at run time (softmax_simd.cpp).
#pragma once

#include <cstdint>

namespace tsr::kernels::simd {

// `rows` consecutive rows of n elements each (x and y contiguous).
void softmax_rows(const float* x, float* y, int64_t n, int64_t rows);
void softmax_rows(const double* x, double* y, int64_t n, int64_t rows);
void log_softmax_rows(const float* x, float* y, int64_t n, int64_t rows);
void log_softmax_rows(const double* x, double* y, int64_t n, int64_t rows);

}  // namespace tsr::kernels::simd
