/**
 * @file tessera/pointwise.h
 * @brief Elementwise math and activations beyond ops.h: silu, leaky_relu, elu,
 * softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc,
 * sign, clamp with tensor bounds.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 *
 * Every function takes any strides (views, expanded, 0-dim, empty) and
 * gives a result of x's sizes, laid out as torch's TensorIterator lays it
 * out. Results of float16 and bfloat16 inputs are computed in float and
 * rounded once; float16, which torch 1.13's CPU kernels mostly refuse,
 * follows torch 2.x (which takes it). Gradients follow
 * torch's derivatives.yaml and are themselves differentiable.
 */
#ifndef TESSERA_POINTWISE_H
#define TESSERA_POINTWISE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief x * sigmoid(x) (torch.nn.functional.silu).
 * float16/bfloat16/float32/float64 only (grad_fn SiluBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_silu(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief x > 0 ? x : negative_slope * x (torch.nn.functional.leaky_relu).
 * float16/bfloat16/float32/float64 only (grad_fn LeakyReluBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param negative_slope slope for x <= 0 (torch's default 0.01)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_leaky_relu(const tsr_tensor* x, double negative_slope, tsr_tensor** out);

/**
 * @brief x > 0 ? x : alpha * (exp(x) - 1) (torch.nn.functional.elu).
 * float16/bfloat16/float32/float64 only (grad_fn EluBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param alpha scale of the negative part (torch's default 1.0)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_elu(const tsr_tensor* x, double alpha, tsr_tensor** out);

/**
 * @brief log(1 + exp(beta x)) / beta, or x where beta x > threshold (torch.nn.functional.softplus).
 * float16/bfloat16/float32/float64 only (grad_fn SoftplusBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param beta sharpness (torch's default 1.0)
 * @param threshold beyond this value of beta x the result is x (torch's default 20.0)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_softplus(const tsr_tensor* x, double beta, double threshold, tsr_tensor** out);

/**
 * @brief min(max(x, min_val), max_val) (torch.nn.functional.hardtanh).
 * Floats (float16 as torch 2.x) and integers (bounds converted to the element
 * type) keep their dtype (grad_fn HardtanhBackward0; gradient 0 where
 * x <= min_val or x >= max_val).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param min_val lower bound (torch's default -1.0)
 * @param max_val upper bound (torch's default 1.0)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_INVALID_ARGUMENT for bool x ("Bool inputs not supported for hardtanh") or uint8 x with a bound negative after truncation to an integer.
 */
TSR_API tsr_status tsr_hardtanh(const tsr_tensor* x, double min_val, double max_val, tsr_tensor** out);

/**
 * @brief sine, radians (torch.sin).
 * Floats (float16 as torch 2.x) keep their dtype; integers and bool give float32
 * (grad_fn SinBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_sin(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief cosine, radians (torch.cos).
 * Floats (float16 as torch 2.x) keep their dtype; integers and bool give float32
 * (grad_fn CosBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_cos(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief 1 / sqrt(x) (torch.rsqrt).
 * Floats (float16 as torch 2.x) keep their dtype; integers and bool give float32
 * (grad_fn RsqrtBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_rsqrt(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief 1 / x (torch.reciprocal).
 * Floats (float16 included) keep their dtype; integers and bool give
 * float32 (grad_fn ReciprocalBackward0).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_reciprocal(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief largest integer <= x (torch.floor).
 * Floats (float16 as torch 2.x) and integers (a copy) keep their dtype;
 * bool is refused (grad_fn FloorBackward0, gradient zero).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_floor(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief smallest integer >= x (torch.ceil).
 * Floats (float16 as torch 2.x) and integers (a copy) keep their dtype;
 * bool is refused (grad_fn CeilBackward0, gradient zero).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_ceil(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief nearest integer, halves to even (torch.round).
 * Floats (float16 as torch 2.x) and integers (a copy) keep their dtype;
 * bool is refused (grad_fn RoundBackward0, gradient zero).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_round(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief integer part, towards zero (torch.trunc).
 * Floats (float16 as torch 2.x) and integers (a copy) keep their dtype;
 * bool is refused (grad_fn TruncBackward0, gradient zero).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_DTYPE_MISMATCH for a dtype torch 1.13's CPU kernel refuses (message "\"<kernel>\" not implemented for '<Type>'").
 */
TSR_API tsr_status tsr_trunc(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief -1, 0 or 1 by the sign of x (0 for NaN) (torch.sign).
 * Every dtype, kept; bool is a copy (grad_fn SignBackward0, gradient zero).
 * @param x input tensor, any sizes and strides (borrowed)
 * @param out receives the result, sizes of x (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out;
 *         TSR_ERR_UNSUPPORTED for a storage-only dtype.
 */
TSR_API tsr_status tsr_sign(const tsr_tensor* x, tsr_tensor** out);

/**
 * @brief min(max(x, min), max) with tensor bounds (torch.clamp(x, min, max)
 * with Tensor min/max).
 *
 * x, min and max broadcast together; the result has the broadcast sizes and
 * dtype torch.result_type(x, min, max) (0-dim operands count only when of
 * a higher category, as torch's). Every dtype; with both bounds bool is
 * refused (TSR_ERR_DTYPE_MISMATCH, "\"clamp_cpu\" not implemented for
 * 'Bool'"), as torch 1.13's CPU kernel (float16, which it also refuses,
 * follows torch 2.x). A NaN in x or a bound gives NaN. grad_fn ClampBackward0: x's
 * gradient passes where min <= x <= max; min's where x < min (and min <
 * max), max's where x > max or max < min; each summed to its operand's
 * sizes.
 * @param x   input tensor, any sizes and strides (borrowed)
 * @param min lower bound tensor, or NULL for none (borrowed)
 * @param max upper bound tensor, or NULL for none (borrowed)
 * @param out receives the result (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL x or out, or when
 *         both bounds are NULL ("torch.clamp: At least one of 'min' or 'max'
 *         must not be None"); TSR_ERR_SHAPE_MISMATCH for sizes that do not
 *         broadcast; TSR_ERR_DTYPE_MISMATCH as above.
 */
TSR_API tsr_status tsr_clamp_tensor(const tsr_tensor* x, const tsr_tensor* min, const tsr_tensor* max,
                                    tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif
