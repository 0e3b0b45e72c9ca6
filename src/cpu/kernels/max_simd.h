// Vectorized max/argmax with torch.max(dim)'s rules, bit for bit: the first
// maximum wins ties, NaN is greater than everything and the first NaN wins.
// Highway, dispatched at run time (max_simd.cpp). Index lanes have the
// width of the values (int32 for float), so counts must be below 2^31.
#pragma once

#include <cstdint>

namespace tsr::kernels::simd {

// max and argmax of the contiguous x[0..n), 0 < n < 2^31.
void argmax(const float* x, int64_t n, float* best, int64_t* index);
void argmax(const double* x, int64_t n, double* best, int64_t* index);

// argmax of rows r < rows at x + r * row_stride (elements), each of n
// contiguous elements, into best/idx[r * out_stride].
void argmax_rows(const float* x, int64_t n, int64_t rows, int64_t row_stride, float* best, int64_t* idx,
                 int64_t out_stride);
void argmax_rows(const double* x, int64_t n, int64_t rows, int64_t row_stride, double* best, int64_t* idx,
                 int64_t out_stride);

// For j < cols: best[j], idx[j] = max and argmax over i < rows of
// x[i * row_stride + j] (x contiguous over j, row_stride in elements;
// 0 < rows < 2^31). Rows of at most 1 KiB keep the running maxima in
// registers over all rows; wider ones stream K rows per pass through a row
// buffer of them. Writes cols elements of best and of idx (caller-owned).
void column_argmax(const float* x, int64_t cols, int64_t rows, int64_t row_stride, float* best, int64_t* idx);
void column_argmax(const double* x, int64_t cols, int64_t rows, int64_t row_stride, double* best,
                   int64_t* idx);

}  // namespace tsr::kernels::simd
