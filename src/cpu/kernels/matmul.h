// Matrix products on CPU through OpenBLAS (cblas_sgemm/dgemm): no autograd.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// torch.matmul's shape rules (1-D dot / mv / vm, 2-D mm, >2-D batched with
// broadcast batch dims); float32/float64, both operands the same dtype.
Tensor matmul(const Tensor& a, const Tensor& b);
// Output sizes of matmul(a, b), or TSR_ERR_SHAPE_MISMATCH naming both.
Shape matmul_sizes(const Shape& a, const Shape& b);

// matmul(a, b) as a batched product, the same on every device: the
// operands checked (one device, one dtype, float32 or float64: torch's
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
