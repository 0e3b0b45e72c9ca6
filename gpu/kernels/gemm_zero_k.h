// C = beta C for a gemm with k == 0 (nothing to multiply; cuBLAS is not
// called): a fill with 0 when beta is 0 (C is not read, so NaNs in an
// uninitialised C do not survive, BLAS's rule) else a scaling, both through
// the elementwise dispatch. Host code, shared by the CUDA plugin and the
// emulator.
#pragma once

#include "core/device_kernels.h"
#include "kernels/kernel_dispatch.h"

namespace tsr::gpu {

template <typename Launcher>
void gemm_zero_k(Launcher& l, const GemmArgs& g) {
  const KernelShape shape{3, {g.batch, g.m, g.n}};
  const KernelOperand c{g.c, g.dtype, {g.c_batch_stride, g.c_row_stride, 1}};
  if (g.beta == 0.0) dispatch_fill(l, shape, c, 0.0);
  else dispatch_unary(l, UnaryKernel::MulScalar, shape, c, c, g.beta, g.dtype);
}

inline void check_gemm_dtype(const GemmArgs& g) {
  check_dtype(g.dtype, "gemm");
  TSR_CHECK(g.dtype == TSR_FLOAT32 || g.dtype == TSR_FLOAT64 || g.dtype == TSR_FLOAT16 || g.dtype == TSR_BFLOAT16,
            TSR_ERR_UNSUPPORTED, "gemm: dtype ", dtype_name(g.dtype),
            " is not supported on this device (float32, float64, float16, bfloat16)");
}

}  // namespace tsr::gpu
