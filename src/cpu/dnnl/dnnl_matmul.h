// oneDNN's bfloat16 matrix product (dnnl_matmul.cpp) for cpu/kernels/matmul.cpp
// and linear.cpp: float32 accumulation of exact bfloat16 products, rounded
// once to the output's dtype.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels::onednn {

// out [batch..., M, N] = a [batch..., M, K] @ b [batch..., K, N] (+ bias).
// a and b: bfloat16, any strides, batch dims of the output's sizes with
// stride 0 where broadcast (matmul_operands' views). bias: undefined, or
// bfloat16/float32 of sizes [N] (any stride), added to the float32 sum
// before the rounding. out: contiguous, bfloat16 or float32, at least one
// element; K >= 1. Returns false, nothing written, where oneDNN offers no
// kernel that is fast and whose result does not depend on the thread count
// (see the .cpp); the caller then computes in float32.
bool matmul_bf16(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias);

}  // namespace tsr::kernels::onednn
