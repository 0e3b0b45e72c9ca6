// Neural-network kernels: log_softmax and nll_loss forward/backward (no
// autograd; ops/nn.cpp wires them).
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// Contiguous log_softmax of t along dim (max-shifted, computed in at least
// float precision).
Tensor log_softmax(const Tensor& t, int64_t dim);
// grad_input = grad - exp(output) * sum(grad, dim)  (ATen's formula).
Tensor log_softmax_backward(const Tensor& grad, const Tensor& output, int64_t dim);
// nll_loss's argument rule on every device: logp [N, C], target [N]
// int64; TSR_ERR_SHAPE_MISMATCH / TSR_ERR_DTYPE_MISMATCH with torch's
// messages otherwise.
void check_nll_args(const Tensor& logp, const Tensor& target);
// Mean negative log-likelihood: -(1/N) * sum_i logp[i, target[i]].
// logp [N, C] floating, target [N] int64 in [0, C).
Tensor nll_loss(const Tensor& logp, const Tensor& target);
// d/dlogp of nll_loss: -(grad/N) at [i, target[i]], else 0; logp_sizes
// [N, C], grad 0-dim in logp's dtype.
Tensor nll_loss_backward(const Tensor& grad, const Shape& logp_sizes, const Tensor& target);

}  // namespace tsr::kernels
