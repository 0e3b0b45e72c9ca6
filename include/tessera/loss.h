/**
 * @file tessera/loss.h
 * @brief Loss functions (torch.nn.functional): mse, l1, smooth_l1, huber,
 * kl_div, nll, cross_entropy, binary cross entropy.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_LOSS_H
#define TESSERA_LOSS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief How a loss reduces its elementwise terms (torch's reduction=). */
typedef enum tsr_loss_reduction {
  TSR_REDUCTION_NONE = 0, /**< "none": the elementwise loss, broadcast shape */
  TSR_REDUCTION_MEAN = 1, /**< "mean": mean over every element (nan when empty) */
  TSR_REDUCTION_SUM = 2   /**< "sum": sum over every element */
} tsr_loss_reduction;

/**
 * @brief torch.nn.functional.mse_loss(input, target, reduction=...):
 * (input - target)^2, reduced. input and target broadcast (torch's warning
 * is not given) and promote; float16/bfloat16/float32/float64 (bfloat16 as
 * torch 2.x: torch 1.13's CPU kernel refuses it; the 16-bit floats computed
 * in float). grad_fn MseLossBackward0; gradients for both.
 * @param[in]  input     the prediction, any shape
 * @param[in]  target    broadcastable with input
 * @param[in]  reduction a tsr_loss_reduction value
 * @param[out] out       new tensor (one reference): the broadcast shape
 *                       for TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; a reduction outside the enum: TSR_ERR_INVALID_ARGUMENT;
 * shapes that do not broadcast: TSR_ERR_SHAPE_MISMATCH; a dtype the kernel
 * does not take: TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_mse_loss(const tsr_tensor* input, const tsr_tensor* target, tsr_loss_reduction reduction,
                                tsr_tensor** out);
/**
 * @brief torch.nn.functional.l1_loss(input, target, reduction=...):
 * |input - target|, reduced (torch 1.13 composes it: grad_fn AbsBackward0,
 * MeanBackward0 or SumBackward0). Broadcasts and promotes.
 * @param[in]  input     the prediction, any shape
 * @param[in]  target    broadcastable with input
 * @param[in]  reduction a tsr_loss_reduction value
 * @param[out] out       new tensor (one reference): the broadcast shape
 *                       for TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; a reduction outside the enum: TSR_ERR_INVALID_ARGUMENT;
 * shapes that do not broadcast: TSR_ERR_SHAPE_MISMATCH; an integer mean:
 * TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_l1_loss(const tsr_tensor* input, const tsr_tensor* target, tsr_loss_reduction reduction,
                               tsr_tensor** out);
/**
 * @brief torch.nn.functional.smooth_l1_loss(input, target, reduction=...,
 * beta=...): with d = input - target, 0.5 d^2 / beta where |d| < beta,
 * else |d| - 0.5 beta (beta 0: |d|). Broadcasts and promotes; bfloat16,
 * float16, float32, float64. grad_fn SmoothL1LossBackward0.
 * @param[in]  input     the prediction, any shape
 * @param[in]  target    broadcastable with input
 * @param[in]  reduction a tsr_loss_reduction value
 * @param[in]  beta      the switch point, >= 0 (torch's default 1.0)
 * @param[out] out       new tensor (one reference): the broadcast shape
 *                       for TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; beta < 0 or a reduction outside the enum:
 * TSR_ERR_INVALID_ARGUMENT; shapes that do not broadcast:
 * TSR_ERR_SHAPE_MISMATCH; a non-floating dtype: TSR_ERR_DTYPE_MISMATCH; the
 * common statuses.
 */
TSR_API tsr_status tsr_smooth_l1_loss(const tsr_tensor* input, const tsr_tensor* target, tsr_loss_reduction reduction,
                                      double beta, tsr_tensor** out);
/**
 * @brief torch.nn.functional.huber_loss(input, target, reduction=...,
 * delta=...): with d = input - target, 0.5 d^2 where |d| < delta, else
 * delta (|d| - 0.5 delta). Broadcasts; the result has input's dtype (as
 * torch); bfloat16, float16, float32, float64. grad_fn HuberLossBackward0.
 * @param[in]  input     the prediction, any shape
 * @param[in]  target    broadcastable with input
 * @param[in]  reduction a tsr_loss_reduction value
 * @param[in]  delta     the switch point, > 0 (torch's default 1.0)
 * @param[out] out       new tensor (one reference): the broadcast shape
 *                       for TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; delta <= 0 or a reduction outside the enum:
 * TSR_ERR_INVALID_ARGUMENT; shapes that do not broadcast:
 * TSR_ERR_SHAPE_MISMATCH; a non-floating dtype: TSR_ERR_DTYPE_MISMATCH; the
 * common statuses.
 */
TSR_API tsr_status tsr_huber_loss(const tsr_tensor* input, const tsr_tensor* target, tsr_loss_reduction reduction,
                                  double delta, tsr_tensor** out);
/**
 * @brief torch.nn.functional.kl_div(input, target, reduction=...,
 * log_target=...): input holds log-probabilities; the terms are
 * exp(target) (target - input) when log_target, else
 * xlogy(target, target) - target * input (0 where target is 0). Composed as
 * in torch 1.13 (grad_fn SubBackward0/MulBackward0, MeanBackward0,
 * SumBackward0). torch's "batchmean" is TSR_REDUCTION_SUM divided by
 * input's size(0) (the Python binding does that).
 * @param[in]  input      log-probabilities, floating, any shape
 * @param[in]  target     broadcastable with input, floating
 * @param[in]  reduction  a tsr_loss_reduction value
 * @param[in]  log_target whether target holds log-probabilities
 * @param[out] out        new tensor (one reference): the broadcast shape
 *                        for TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; a reduction outside the enum: TSR_ERR_INVALID_ARGUMENT;
 * shapes that do not broadcast: TSR_ERR_SHAPE_MISMATCH; a non-floating
 * target: TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_kl_div(const tsr_tensor* input, const tsr_tensor* target, tsr_loss_reduction reduction,
                              bool log_target, tsr_tensor** out);

/**
 * @brief torch.nn.functional.nll_loss(input, target, weight, ignore_index=,
 * reduction=): -weight[t] * input[n, t, d...] at each target t,
 * reduced. grad_fn NllLossBackward0 ([C], [N, C]) or NllLoss2DBackward0
 * ([N, C, d1, ...]; torch's 3-dim and >4-dim reductions "none" end in a
 * view: ViewBackward0). Gradient wrt input (double backward too).
 * @param[in]  input        log-probabilities [C], [N, C] or [N, C, d1, ...];
 *                          float16 (as torch 2.x: torch 1.13 refuses it),
 *                          bfloat16, float32 or float64
 * @param[in]  target       int64 class indices: 0-dim, [N] or [N, d1, ...]
 * @param[in]  weight       [C] class weights of input's dtype, or NULL
 * @param[in]  reduction    a tsr_loss_reduction value; mean divides by the
 *                          total weight of non-ignored targets (nan if 0)
 * @param[in]  ignore_index a target value that counts for nothing (torch's
 *                          default -100)
 * @param[out] out          new tensor (one reference): target's shape for
 *                          TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; a target outside [0, C) that is not ignore_index:
 * TSR_ERR_INDEX_OUT_OF_RANGE ("Target 7 is out of bounds."); batch, target
 * or weight sizes that do not fit: TSR_ERR_SHAPE_MISMATCH; a target not
 * int64, a weight of another dtype, integer input:
 * TSR_ERR_DTYPE_MISMATCH; a reduction outside the enum:
 * TSR_ERR_INVALID_ARGUMENT; the common statuses.
 */
TSR_API tsr_status tsr_nll_loss(const tsr_tensor* input, const tsr_tensor* target, const tsr_tensor* weight,
                                tsr_loss_reduction reduction, int64_t ignore_index, tsr_tensor** out);
/**
 * @brief torch.nn.functional.cross_entropy(input, target, weight,
 * ignore_index=, reduction=, label_smoothing=): nll_loss of
 * log_softmax(input, class dim) for class-index targets (grad_fn as
 * tsr_nll_loss; with label_smoothing, AddBackward0); for class-probability
 * targets (target of input's sizes, floating) -sum(weight * target *
 * log_softmax(input)) over classes, reduced (mean: over N * d1 * ...).
 * The full form of ops.h's tsr_cross_entropy.
 * @param[in]  input           logits [C], [N, C] or [N, C, d1, ...]
 * @param[in]  target          int64 class indices as for tsr_nll_loss, or
 *                             probabilities of input's sizes
 * @param[in]  weight          [C] class weights, or NULL
 * @param[in]  reduction       a tsr_loss_reduction value
 * @param[in]  ignore_index    as for tsr_nll_loss; must be negative for
 *                             probability targets (torch's default -100)
 * @param[in]  label_smoothing in [0, 1]: the targets mixed with the uniform
 *                             distribution
 * @param[out] out             new tensor (one reference): the loss per
 *                             sample for TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; the statuses of tsr_nll_loss; label_smoothing outside
 * [0, 1], or ignore_index >= 0 with probability targets:
 * TSR_ERR_INVALID_ARGUMENT; integer probability targets:
 * TSR_ERR_DTYPE_MISMATCH.
 */
TSR_API tsr_status tsr_cross_entropy_loss(const tsr_tensor* input, const tsr_tensor* target,
                                          const tsr_tensor* weight, tsr_loss_reduction reduction, int64_t ignore_index,
                                          double label_smoothing, tsr_tensor** out);
/**
 * @brief torch.nn.functional.binary_cross_entropy(input, target, weight,
 * reduction=): -weight (target log(input) + (1 - target) log(1 - input)),
 * each log clamped at -100 (as torch), reduced. float16/bfloat16/float32/
 * float64 (the 16-bit floats as torch 2.x, computed in float: torch 1.13
 * refuses them). grad_fn
 * BinaryCrossEntropyBackward0; gradients wrt input and target (double
 * backward too).
 * @param[in]  input     probabilities in [0, 1], any shape
 * @param[in]  target    input's sizes and dtype
 * @param[in]  weight    broadcastable to input's sizes, input's dtype; or
 *                       NULL
 * @param[in]  reduction a tsr_loss_reduction value
 * @param[out] out       new tensor (one reference): input's sizes for
 *                       TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; an input element outside [0, 1] or a reduction outside
 * the enum: TSR_ERR_INVALID_ARGUMENT; target sizes unlike input's or a
 * weight that does not broadcast to them: TSR_ERR_SHAPE_MISMATCH; a
 * non-floating dtype, or target/weight of another dtype:
 * TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_binary_cross_entropy(const tsr_tensor* input, const tsr_tensor* target,
                                            const tsr_tensor* weight, tsr_loss_reduction reduction, tsr_tensor** out);
/**
 * @brief torch.nn.functional.binary_cross_entropy_with_logits(input,
 * target, weight, reduction=, pos_weight=): the stable form of
 * -weight (pos_weight target log(sigmoid(input)) + (1 - target)
 * log(1 - sigmoid(input))), reduced. float16/bfloat16/float32/float64
 * (float16 as torch 2.x: torch 1.13 refuses it). grad_fn
 * BinaryCrossEntropyWithLogitsBackward0; gradients wrt input and target.
 * @param[in]  input      logits, any shape
 * @param[in]  target     input's sizes (converted to input's dtype)
 * @param[in]  weight     broadcastable to input's sizes, or NULL
 * @param[in]  pos_weight weight of the positive term, broadcastable to
 *                        input's sizes (typically [C]), or NULL
 * @param[in]  reduction  a tsr_loss_reduction value
 * @param[out] out        new tensor (one reference): input's sizes for
 *                        TSR_REDUCTION_NONE, else 0-dim
 * @return TSR_OK; target sizes unlike input's or weights that do not
 * broadcast to them: TSR_ERR_SHAPE_MISMATCH; integer input:
 * TSR_ERR_DTYPE_MISMATCH; a reduction outside the enum:
 * TSR_ERR_INVALID_ARGUMENT; the common statuses.
 */
TSR_API tsr_status tsr_binary_cross_entropy_with_logits(const tsr_tensor* input, const tsr_tensor* target,
                                                        const tsr_tensor* weight, const tsr_tensor* pos_weight,
                                                        tsr_loss_reduction reduction, tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif
