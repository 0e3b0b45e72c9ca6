// Matrix products on CPU through OpenBLAS (cblas_sgemm/dgemm): no autograd.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// torch.matmul's shape rules (1-D dot / mv / vm, 2-D mm, >2-D batched with
// broadcast batch dims); float32/float64, both operands the same dtype.
Tensor matmul(const Tensor& a, const Tensor& b);
// Output sizes of matmul(a, b), or TSR_ERR_SHAPE_MISMATCH naming both.
Shape matmul_sizes(const Shape& a, const Shape& b);

}  // namespace tsr::kernels
