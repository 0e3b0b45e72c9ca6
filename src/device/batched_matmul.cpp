#include "device/batched_matmul.h"

#include <algorithm>

#include "core/factory.h"
#include "core/layout.h"
#include "core/views.h"
#include "device/device_ops.h"

namespace tsr::device {

namespace {

// One matrix of a 3-D operand as gemm takes it: a unit stride on one side
// and a leading dimension spanning the other (BLAS's rule); a size-1 side's
// stride is free. Otherwise the operand is copied contiguous first.
Tensor gemm_ready(DeviceKernels& k, const Tensor& t, int64_t& row, int64_t& col) {
  const int64_t rows = t.sizes()[1], cols = t.sizes()[2];
  row = t.strides()[1], col = t.strides()[2];
  if (cols == 1) col = 1;
  if (rows == 1) row = std::max<int64_t>(cols, 1);
  if (col == 1 && row >= std::max<int64_t>(1, cols)) return t;
  if (row == 1 && col >= std::max<int64_t>(1, rows) && cols > 1) return t;
  row = cols, col = 1;
  return contiguous(k, t, t.dtype());
}

}  // namespace

Tensor baddbmm(DeviceKernels& k, const Tensor& input, const Tensor& a0, const Tensor& b0, double beta, double alpha) {
  const int64_t B = a0.sizes()[0], M = a0.sizes()[1], K = a0.sizes()[2], N = b0.sizes()[2];
  Tensor out = empty({B, M, N}, a0.dtype(), TSR_CONTIGUOUS_FORMAT, a0.device());
  if (out.numel() == 0) return out;
  if (beta != 0.0) copy_into(k, out, views::expand(input, out.sizes()));  // converted to a's dtype
  GemmArgs g{};
  int64_t ar = 0, ac = 0, br = 0, bc = 0;
  const Tensor a = gemm_ready(k, a0, ar, ac);
  const Tensor b = gemm_ready(k, b0, br, bc);
  g.dtype = out.dtype();
  g.batch = B, g.m = M, g.n = N, g.k = K;
  g.a = a.data_ptr(), g.a_row_stride = ar, g.a_col_stride = ac, g.a_batch_stride = a.strides()[0];
  g.b = b.data_ptr(), g.b_row_stride = br, g.b_col_stride = bc, g.b_batch_stride = b.strides()[0];
  g.c = out.data_ptr(), g.c_row_stride = N, g.c_batch_stride = M * N;
  g.alpha = alpha, g.beta = beta;
  k.gemm(g, current_stream(out.device()));
  return out;
}

}  // namespace tsr::device
