/**
 * @file tessera/attention.h
 * @brief Scaled dot-product attention (torch.nn.functional.scaled_dot_product_attention
 * of torch 2.x; torch 1.13 has no such function).
 */
#ifndef TESSERA_ATTENTION_H
#define TESSERA_ATTENTION_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.nn.functional.scaled_dot_product_attention(query, key, value,
 * attn_mask, dropout_p, is_causal, scale) with torch 2.x's semantics.
 *
 * *out = dropout(softmax(query @ key^T * scale + mask)) @ value, computed by a
 * fused CPU kernel that never holds the (L, S) scores: key/value tiles, an
 * online softmax and O(L) extra memory (each row's logsumexp, kept for
 * backward, which recomputes the scores per tile: FlashAttention-2). With
 * history, grad_fn ScaledDotProductFlashAttentionForCpuBackward0 (torch
 * 2.x's CPU flash path): gradients for query, key and value, none for the
 * mask. A second-order gradient (create_graph, then backward through the
 * gradients) fails with TSR_ERR_AUTOGRAD ("the derivative for
 * '_scaled_dot_product_flash_attention_for_cpu_backward' is not
 * implemented.").
 *
 * float16 and bfloat16 inputs are converted to float32, computed and
 * accumulated in float32 and the output rounded once; float64 is computed
 * in float64. A row whose keys are all masked out gives NaN (as torch's
 * composed form: softmax of a row of -inf); S == 0 gives zeros.
 *
 * Dropout (dropout_p > 0) zeroes probabilities with the Philox stream of
 * `generator`: for the flattened batch element b, row i and key j, word
 * offset + (b * L + i) * S + j, as a 24-bit uniform, below 1 - dropout_p
 * keeps the probability, scaled by 1 / (1 - dropout_p) (tsr_dropout's
 * rule); the generator advances by batch * L * S words. Inside a checkpoint
 * region a replay draws the same mask (preserve_rng_state).
 *
 * @param[in] query     (..., L, E), float32, float64, float16 or bfloat16; any strides
 * @param[in] key       (..., S, E), query's dtype
 * @param[in] value     (..., S, Ev), query's dtype; the batch dims (...) of
 *                      query, key and value broadcast together
 * @param[in] attn_mask NULL (none), or broadcastable to (..., L, S): bool
 *                      (true: the key takes part) or floating (float32 or
 *                      query's dtype: added to the scores); it may add batch dims
 * @param[in] dropout_p probability of zeroing an attention probability, in [0, 1]
 * @param[in] is_causal true: the lower-triangular mask aligned at the top
 *                      left (row i attends to keys j <= i), as torch 2.x;
 *                      attn_mask must then be NULL
 * @param[in] scale     factor of the scores; NaN means torch's None,
 *                      1 / sqrt(E); any finite value otherwise
 * @param[in,out] generator the generator dropout draws from; may be NULL when
 *                      dropout_p == 0 (tessera has no global generator in C)
 * @param[out] out      new reference: (broadcast batch..., L, Ev) contiguous,
 *                      query's dtype
 * @return TSR_OK;
 * TSR_ERR_INVALID_ARGUMENT for NULL query/key/value/out, for is_causal
 * with attn_mask ("Explicit attn_mask should not be set when
 * is_causal=True"), for dropout_p outside [0, 1] ("dropout probability has
 * to be between 0 and 1, but got p"), for an infinite scale, for
 * dropout_p > 0 with a NULL generator;
 * TSR_ERR_SHAPE_MISMATCH for an input of fewer than 2 dims, key.size(-1)
 * != query.size(-1), value.size(-2) != key.size(-2), batch dims that do
 * not broadcast, a mask that does not broadcast to (..., L, S);
 * TSR_ERR_DTYPE_MISMATCH for query, key, value of different dtypes ("Expected
 * query, key, and value to have the same dtype ..."), a non-floating dtype,
 * a mask neither bool nor float32 nor query's dtype;
 * TSR_ERR_DEVICE_MISMATCH for tensors on different devices;
 * TSR_ERR_UNSUPPORTED for tensors on a device other than the CPU (no kernel there);
 * TSR_ERR_OUT_OF_MEMORY. On failure *out and the generator are unchanged.
 */
TSR_API tsr_status tsr_scaled_dot_product_attention(const tsr_tensor* query, const tsr_tensor* key,
                                                    const tsr_tensor* value, const tsr_tensor* attn_mask,
                                                    double dropout_p, bool is_causal, double scale,
                                                    tsr_generator* generator, tsr_tensor** out);

#ifdef __cplusplus
}
#endif
#endif
