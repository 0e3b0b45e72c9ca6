// Vectorized loops of batch norm over one contiguous run of a channel's
// elements (an [H*W] plane of an NCHW tensor, or a row of one): the
// statistics' sums and the two affine maps of forward and backward, as
// ATen's batch_norm_cpu_collect_stats / _transform_input / _backward on
// contiguous input (aten/src/ATen/native/cpu/batch_norm_kernel.cpp).
// Each sum accumulates in vectors of T and is returned in double, which the
// caller adds over the channel's runs. Dispatched at run time
// (batch_norm_simd.cpp).
//
// bfloat16 arrays are read and written as such and computed in float (the
// per-channel arrays then float): each result is bit for bit the float
// kernel's on the array widened to float, rounded once to bfloat16 (ATen's
// batch norm on reduced floating types computes in float too).
#pragma once

#include <cstdint>

#include "core/half.h"

namespace tsr::kernels::simd {

// Sum of x[0..n) and, in a second call once the mean is known, the sum of
// (x[i] - mean)^2: the two passes ATen takes for the biased variance.
double bn_sum(const float* x, int64_t n);
double bn_sum(const double* x, int64_t n);
double bn_sum(const BFloat16* x, int64_t n);
double bn_centered_square_sum(const float* x, int64_t n, double mean);
double bn_centered_square_sum(const double* x, int64_t n, double mean);
double bn_centered_square_sum(const BFloat16* x, int64_t n, double mean);

// y[i] = x[i] * alpha + beta (x and y may be the same array).
void bn_affine(const float* x, float* y, int64_t n, double alpha, double beta);
void bn_affine(const double* x, double* y, int64_t n, double alpha, double beta);
void bn_affine(const BFloat16* x, BFloat16* y, int64_t n, double alpha, double beta);

// The backward's two sums over a run: g_sum += sum g[i], dot += sum
// (x[i] - mean) * g[i].
void bn_grad_sums(const float* g, const float* x, int64_t n, double mean, double& g_sum, double& dot);
void bn_grad_sums(const double* g, const double* x, int64_t n, double mean, double& g_sum, double& dot);
void bn_grad_sums(const BFloat16* g, const BFloat16* x, int64_t n, double mean, double& g_sum, double& dot);

// gx[i] = g[i] * a + x[i] * b + c: the input gradient of training mode,
// (g - mean(g) - (x - mean) * dot * invstd^2 / M) * invstd * weight,
// with its per-channel constants folded into a, b and c.
void bn_input_grad(const float* g, const float* x, float* gx, int64_t n, double a, double b, double c);
void bn_input_grad(const double* g, const double* x, double* gx, int64_t n, double a, double b, double c);
void bn_input_grad(const BFloat16* g, const BFloat16* x, BFloat16* gx, int64_t n, double a, double b, double c);

// ---- channels innermost: `rows` rows of C channels, row r at x + r * C
// (channels_last, or [N, C] input), vectorized across the channels. The
// per-channel arrays (mean, acc, alpha, ...) have C elements.

// acc[c] += sum over rows of x[r, c].
void bn_rows_sum(const float* x, int64_t rows, int64_t C, float* acc);
void bn_rows_sum(const double* x, int64_t rows, int64_t C, double* acc);
void bn_rows_sum(const BFloat16* x, int64_t rows, int64_t C, float* acc);
// acc[c] += sum over rows of (x[r, c] - mean[c])^2.
void bn_rows_centered_square_sum(const float* x, int64_t rows, int64_t C, const float* mean, float* acc);
void bn_rows_centered_square_sum(const double* x, int64_t rows, int64_t C, const double* mean, double* acc);
void bn_rows_centered_square_sum(const BFloat16* x, int64_t rows, int64_t C, const float* mean, float* acc);
// y[r, c] = x[r, c] * alpha[c] + beta[c].
void bn_rows_affine(const float* x, float* y, int64_t rows, int64_t C, const float* alpha, const float* beta);
void bn_rows_affine(const double* x, double* y, int64_t rows, int64_t C, const double* alpha,
                    const double* beta);
void bn_rows_affine(const BFloat16* x, BFloat16* y, int64_t rows, int64_t C, const float* alpha,
                    const float* beta);
// g_sum[c] += sum g[r, c]; dot[c] += sum (x[r, c] - mean[c]) * g[r, c].
void bn_rows_grad_sums(const float* g, const float* x, int64_t rows, int64_t C, const float* mean, float* g_sum,
                       float* dot);
void bn_rows_grad_sums(const double* g, const double* x, int64_t rows, int64_t C, const double* mean,
                       double* g_sum, double* dot);
void bn_rows_grad_sums(const BFloat16* g, const BFloat16* x, int64_t rows, int64_t C, const float* mean,
                       float* g_sum, float* dot);
// gx[r, c] = g[r, c] * a[c] + x[r, c] * b[c] + k[c].
void bn_rows_input_grad(const float* g, const float* x, float* gx, int64_t rows, int64_t C, const float* a,
                        const float* b, const float* k);
void bn_rows_input_grad(const double* g, const double* x, double* gx, int64_t rows, int64_t C, const double* a,
                        const double* b, const double* k);
void bn_rows_input_grad(const BFloat16* g, const BFloat16* x, BFloat16* gx, int64_t rows, int64_t C,
                        const float* a, const float* b, const float* k);

}  // namespace tsr::kernels::simd
