// torch.nn.functional.scaled_dot_product_attention (torch 2.x) as one fused
// primitive (attention.cpp over cpu/kernels/attention.cpp).
#pragma once

#include <memory>

#include "core/generator.h"

namespace tsr::ops {

// softmax(q k^T * scale + mask) v with dropout(dropout_p) on the
// probabilities, torch 2.x's semantics: q (..., L, E), k (..., S, E),
// v (..., S, Ev), batch dims broadcast, mask undefined or bool (true takes
// part) or floating (added), broadcastable to (..., L, S); is_causal: the
// lower-triangular mask (row i sees keys j <= i). scale NaN: 1 / sqrt(E).
// Output (..., L, Ev) in q's dtype, grad_fn
// ScaledDotProductFlashAttentionForCpuBackward0; gradients for q, k, v
// (none for the mask), no double backward. Dropout draws from g (may be
// null when dropout_p == 0): batch element b, row i, key j takes word
// offset + (b * L + i) * S + j, as dropout's bernoulli does.
// Errors: is_causal with a mask, dropout_p outside [0, 1], a non-finite
// scale other than NaN: TSR_ERR_INVALID_ARGUMENT; shapes and dtypes as
// kernels::sdpa_shape says.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                    double dropout_p, bool is_causal, double scale,
                                    const std::shared_ptr<Generator>& g);

}  // namespace tsr::ops
