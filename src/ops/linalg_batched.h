// Batched matrix products (src/ops/linalg_batched.cpp): torch.bmm, torch.outer.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

// torch.bmm: [b, n, m] @ [b, m, p] -> [b, n, p] (BmmBackward0). bfloat16,
// float16, float32 and float64, as tessera's matmul (torch also takes
// integers; torch 1.13 refuses float16).
Tensor bmm(const Tensor& a, const Tensor& b);
// torch.baddbmm: beta * input + alpha * bmm(batch1, batch2), input
// broadcast to the product (BaddbmmBackward0).
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, double beta, double alpha);
// torch.outer: 1-D a, b -> a[:, None] * b (MulBackward0), promoted as mul.
Tensor outer(const Tensor& a, const Tensor& b);

}  // namespace tsr::ops
