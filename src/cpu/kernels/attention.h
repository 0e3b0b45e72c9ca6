// Scaled dot-product attention on CPU without autograd: a fused,
// memory-efficient kernel (FlashAttention-2's tiling, Dao 2023) that never
// holds the (L, S) score matrix. Semantics are torch 2.x's
// F.scaled_dot_product_attention (softmax(q k^T * scale + mask) v with
// dropout on the probabilities); the autograd primitive is ops/attention.cpp.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tsr::kernels {

// Dropout on the attention probabilities: element (b, i, j) of the
// flattened batch b is kept when word start + (b * L + i) * S + j of
// Philox stream `seed` passes philox::dropout_mask(p), so forward, backward
// and a checkpoint replay see the same mask without storing it.
struct SdpaDropout {
  double p = 0.0;
  uint64_t seed = 0, start = 0;
};

// The operands of one call. q (..., L, E), k (..., S, E), v (..., S, Ev),
// mask undefined or broadcastable to (..., L, S) (bool: true takes part;
// floating: added to the scores). scale > 0.
struct SdpaArgs {
  Tensor q, k, v, mask;
  bool causal = false;
  double scale = 1.0;
  SdpaDropout dropout;
};

// The checked shapes of a call: the broadcast batch dims of q, k, v and
// the mask, and L, S, E, Ev. Throws torch 2.x's errors: dims below 2,
// dtypes that differ, a mask dtype other than bool / float32 / q's dtype,
// mismatched E or S, batch dims or a mask that do not broadcast
// (TSR_ERR_SHAPE_MISMATCH / TSR_ERR_DTYPE_MISMATCH / TSR_ERR_INVALID_ARGUMENT).
struct SdpaShape {
  Shape batch;
  int64_t L = 0, S = 0, E = 0, Ev = 0;
  int64_t batch_numel() const;
  Shape out_sizes() const;  // batch + (L, Ev)
  Shape lse_sizes() const;  // batch + (L)
};
SdpaShape sdpa_shape(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask);

// The dtype the kernel computes in and keeps the logsumexp in: float64 for
// float64 inputs, else float32.
tsr_dtype sdpa_compute_dtype(tsr_dtype input);

// out (batch..., L, Ev) in q's dtype, contiguous, and lse (batch..., L) in
// sdpa_compute_dtype: each row's log(sum_j exp(s_ij)) of the scaled, masked
// scores (-inf for a row with no key taking part, whose output is NaN as in
// torch's composed form).
struct SdpaForwardResult {
  Tensor out, lse;
};
SdpaForwardResult sdpa_forward(const SdpaArgs& a);

// Gradients of the batch-broadcast q, k, v (batch..., L/S, E/Ev), each in
// its input's dtype (the caller sums broadcast dims away), from grad_out
// and forward's out and lse: the scores recomputed per tile.
struct SdpaGrads {
  Tensor dq, dk, dv;
};
SdpaGrads sdpa_backward(const SdpaArgs& a, const Tensor& grad_out, const Tensor& out, const Tensor& lse);

}  // namespace tsr::kernels
