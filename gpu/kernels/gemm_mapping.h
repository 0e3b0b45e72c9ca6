// A row-major GemmArgs as the arguments of one column-major
// cublasGemmStridedBatchedEx call, without copies. Row-major C = A B is
// column-major C^T = B^T A^T, and a row-major matrix with unit column
// stride is its transpose in column-major order: so cuBLAS's first operand
// is our B, its second our A, its m and n are our n and m, and each
// operand's transpose flag says which of its strides is the unit one
// (kernels/matmul.cpp's blas_operand rule, in column-major terms). Pure
// and host+device-compilable; refusals come back as a reason, not a throw.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"

namespace tsr::gpu {

// One cublasGemmStridedBatchedEx call (column-major, 32-bit dims as the
// cuBLAS API takes them): C[i] = alpha op(A[i]) op(B[i]) + beta C[i], op(A)
// m x k, op(B) k x n, C m x n with leading dimension ldc.
struct ColumnMajorGemm {
  bool trans_a, trans_b;
  int32_t m, n, k;
  const void* a;
  int32_t lda;
  int64_t stride_a;
  const void* b;
  int32_t ldb;
  int64_t stride_b;
  void* c;
  int32_t ldc;
  int64_t stride_c;
  int32_t batch;
};

struct GemmMapping {
  enum Kind { Call, Empty, ZeroK, Refused } kind;
  ColumnMajorGemm gemm;
  const char* why;     // Refused: the reason, a static string
  tsr_status status;   // Refused: TSR_ERR_UNSUPPORTED past the 32-bit API, else INVALID_ARGUMENT
};

// A rows x cols row-major operand with strides (rs, cs): transposed in
// column-major terms when its unit stride is the row stride. ld = 0: no
// layout cuBLAS takes.
struct OperandLayout {
  bool col_major_trans;  // op = T for cuBLAS
  int64_t ld;
};
TSR_HOST_DEVICE inline OperandLayout operand_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const int64_t max_cols = cols > 1 ? cols : 1, max_rows = rows > 1 ? rows : 1;
  // Unit column stride: read as a column-major cols x rows matrix, op N.
  if ((cs == 1 || cols == 1) && rs >= max_cols) return {false, rs};
  // Unit row stride: a column-major rows x cols matrix, op T.
  if ((rs == 1 || rows == 1) && cs >= max_rows) return {true, cs};
  return {false, 0};
}

TSR_HOST_DEVICE inline bool fits_int32(int64_t v) { return v >= 0 && v <= INT32_MAX; }

TSR_HOST_DEVICE inline GemmMapping map_gemm(const GemmArgs& g) {
  GemmMapping r{GemmMapping::Refused, {}, nullptr, TSR_ERR_INVALID_ARGUMENT};
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.k < 0) {
    r.why = "negative batch, m, n or k";
    return r;
  }
  if (g.batch == 0 || g.m == 0 || g.n == 0) {
    r.kind = GemmMapping::Empty;
    return r;
  }
  if (g.c_row_stride < (g.n > 1 ? g.n : 1)) {
    r.why = "C's row stride is below n (C must have unit column stride and rows that do not overlap)";
    return r;
  }
  if (g.k == 0) {  // cuBLAS is not asked: C = beta C is a scaling kernel's job
    r.kind = GemmMapping::ZeroK;
    return r;
  }
  const OperandLayout la = operand_layout(g.m, g.k, g.a_row_stride, g.a_col_stride);
  const OperandLayout lb = operand_layout(g.k, g.n, g.b_row_stride, g.b_col_stride);
  if (la.ld == 0 || lb.ld == 0) {
    r.why = "an operand has no unit stride with a leading dimension >= its rows (copy it first)";
    return r;
  }
  if (!fits_int32(g.m) || !fits_int32(g.n) || !fits_int32(g.k) || !fits_int32(g.batch) ||
      !fits_int32(la.ld) || !fits_int32(lb.ld) || !fits_int32(g.c_row_stride)) {
    r.why = "a dimension or leading dimension exceeds the 32-bit cuBLAS API (2^31 - 1)";
    r.status = TSR_ERR_UNSUPPORTED;
    return r;
  }
  if (g.a_batch_stride < 0 || g.b_batch_stride < 0 || g.c_batch_stride < 0) {
    r.why = "negative batch stride";
    return r;
  }
  r.kind = GemmMapping::Call;
  // cuBLAS's A is our B (op gives B^T, n x k), its B our A (op gives A^T,
  // k x m), its C our C^T (n x m, ld = C's row stride).
  r.gemm = {lb.col_major_trans, la.col_major_trans, int32_t(g.n), int32_t(g.m), int32_t(g.k),
            g.b, int32_t(lb.ld), g.b_batch_stride,
            g.a, int32_t(la.ld), g.a_batch_stride,
            g.c, int32_t(g.c_row_stride), g.c_batch_stride, int32_t(g.batch)};
  return r;
}

}  // namespace tsr::gpu
