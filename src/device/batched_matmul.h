// bmm and baddbmm on a device other than the CPU (issue 32): one batched
// gemm each, with the CPU kernels' output layout (contiguous [B, M, N]).
// The primitives (ops/linalg_batched.cpp) have checked the operands.
#pragma once

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::device {

// beta * input + alpha * (a @ b), a [B, M, K], b [B, K, N], input
// broadcastable to [B, M, N] and converted to a's dtype (its values are
// not read when beta is 0, so its NaNs do not survive: torch's rule). As
// the CPU's Baddbmm: the products summed in float for float16/bfloat16,
// scaled and added before the one rounding (cuBLAS's alpha and beta).
Tensor baddbmm(DeviceKernels& k, const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha);

}  // namespace tsr::device
