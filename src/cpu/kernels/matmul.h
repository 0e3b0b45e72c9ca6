// Matrix products on CPU: float32/float64 through OpenBLAS (cblas_sgemm/
// dgemm), bfloat16 through oneDNN (cpu/dnnl/dnnl_matmul.h), float16 through
// the float32 gemm; no autograd.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// bfloat16 and float16: the dtypes whose products are summed in float32.
inline bool is_16bit_float(tsr_dtype d) { return d == TSR_BFLOAT16 || d == TSR_FLOAT16; }

// torch.matmul's shape rules (1-D dot / mv / vm, 2-D mm, >2-D batched with
// broadcast batch dims); bfloat16, float16, float32 or float64, both
// operands the same dtype. 16-bit operands: float32 sums of their exact
// products rounded once to their dtype (torch's bfloat16 matmul; torch
// 1.13 has no CPU float16 matmul, torch 2.x's sums in float32 too). Every
// element comes out the same whatever the thread count.
Tensor matmul(const Tensor& a, const Tensor& b);
// matmul(a, b) of bfloat16/float16 operands with the float32 sums as the
// result (float32, not rounded): for what adds to the product before the
// one rounding (baddbmm, linear's bias).
Tensor matmul_float32(const Tensor& a, const Tensor& b);
// Output sizes of matmul(a, b), or TSR_ERR_SHAPE_MISMATCH naming both.
Shape matmul_sizes(const Shape& a, const Shape& b);

// matmul(a, b) as a batched product, the same on every device: the
// operands checked (one device, one dtype, 16-bit float, float32 or float64: torch's
// TSR_ERR_DTYPE_MISMATCH messages; matmul_sizes' shape rule), a as
// [batch..., m, k] and b as [batch..., k, n] views (a 1-D operand gets its
// unit dim, broadcast batch dims have stride 0), the sizes of the batched
// result [batch..., m, n] and of matmul's result (out_sizes).
struct MatmulOperands {
  Tensor a, b;
  Shape batch, batched_sizes, out_sizes;
  int64_t m = 0, n = 0, k = 0;
};
MatmulOperands matmul_operands(const Tensor& a, const Tensor& b);

}  // namespace tsr::kernels
