// Vectorized float sums with PyTorch's cascade summation (cascade_sum in
// aten/src/ATen/native/cpu/SumKernel.cpp): partial sums are carried through
// four levels of 2^k steps, so the rounding error of a float32 sum grows
// with log(n) instead of n. Highway, dispatched at run time to the best
// SIMD target of the machine (reduce_simd.cpp). float16/bfloat16 are
// promoted and summed in float, as ATen's accumulate type.
#pragma once

#include <cstdint>

#include "core/half.h"

namespace tsr::kernels::simd {

// Sum of the contiguous x[0..n) (ATen's vectorized_inner_sum of one row;
// its lanes are summed by a shuffle tree).
float cascade_sum(const float* x, int64_t n);
double cascade_sum(const double* x, int64_t n);
float cascade_sum(const Half* x, int64_t n);
float cascade_sum(const BFloat16* x, int64_t n);

// out[r * out_stride] = cascade_sum(x + r * row_stride, n) for r < rows
// (strides in elements): many short rows for one dispatch.
void cascade_sum_rows(const float* x, int64_t n, int64_t rows, int64_t row_stride, float* out,
                      int64_t out_stride);
void cascade_sum_rows(const double* x, int64_t n, int64_t rows, int64_t row_stride, double* out,
                      int64_t out_stride);
void cascade_sum_rows(const Half* x, int64_t n, int64_t rows, int64_t row_stride, float* out,
                      int64_t out_stride);
void cascade_sum_rows(const BFloat16* x, int64_t n, int64_t rows, int64_t row_stride, float* out,
                      int64_t out_stride);

// acc[j] += sum over i < rows of x[i * row_stride + j] for j < cols: a
// reduction over an outer dim, read row by row (each row contiguous over
// j) into a row buffer of accumulators (in registers for rows of at most
// 1 KiB of them), cascaded over rows. row_stride is in elements. Each
// column's additions happen in the same order whatever cols is, so
// splitting the columns among threads changes no result.
void cascade_column_sum(float* acc, const float* x, int64_t cols, int64_t rows, int64_t row_stride);
void cascade_column_sum(double* acc, const double* x, int64_t cols, int64_t rows, int64_t row_stride);
void cascade_column_sum(float* acc, const Half* x, int64_t cols, int64_t rows, int64_t row_stride);
void cascade_column_sum(float* acc, const BFloat16* x, int64_t cols, int64_t rows, int64_t row_stride);

}  // namespace tsr::kernels::simd
