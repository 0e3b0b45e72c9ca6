// Loss kernels (no autograd): the elementwise terms of mse_loss,
// smooth_l1_loss and huber_loss, torch's reduction of a loss tensor, and the
// piecewise-constant masks their backward formulas select with (signs
// come from compare.h's sign).
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

enum class PointwiseLoss { Mse, SmoothL1, Huber };
// torch's at::Reduction values: None, Mean, Sum.
enum class LossReduction { None = 0, Mean = 1, Sum = 2 };

// torch's CPU kernel name ("mse_cpu") and whether it takes dtype d
// (mse: float16/32/64; smooth_l1 and huber also bfloat16), else torch's
// "not implemented" TSR_ERR_DTYPE_MISMATCH naming `op`.
void check_pointwise_loss_dtype(PointwiseLoss kind, const char* op, tsr_dtype d);
// The unreduced loss of x and y (same sizes, same floating dtype):
// (x-y)^2; |d| < beta ? 0.5 d^2 / beta : |d| - beta/2; |d| < delta ?
// 0.5 d^2 : delta (|d| - delta/2). param is beta or delta.
Tensor pointwise_loss(PointwiseLoss kind, const Tensor& x, const Tensor& y, double param);
// l itself, its mean or its sum over every element (0-dim).
Tensor reduce_loss(const Tensor& l, LossReduction r);
// t / s in t's dtype (floating t): torch's division by a Python number.
Tensor div_scalar(const Tensor& t, double s);
// |t| < bound (or <= when inclusive), as a bool tensor.
Tensor abs_below(const Tensor& t, double bound, bool inclusive);

}  // namespace tsr::kernels

namespace tsr::kernels {

// nll_loss over logp viewed as [N, C, S] (1-dim logp [C]: N = S = 1; 2-dim
// [N, C]: S = 1; [N, C, d1, ...]: S = d1 * ...), target [N, S] int64 class
// indices, weight [C] or undefined (all 1). ignore_index's positions count
// neither in the loss nor in the total weight.
struct NllArgs {
  LossReduction reduction;
  int64_t ignore_index;
};
// logp's sizes as [n, c, s]: [C] is [1, C, 1], [N, C, d1, ...] is
// [N, C, d1 * ...].
struct NllGeometry {
  int64_t n, c, s;
};
NllGeometry nll_geometry(const Shape& sizes);

// torch's argument rule (nll_loss_nd's messages and statuses): dims, batch
// and target sizes, target int64, weight of C elements and logp's dtype,
// logp's dtype one torch's CPU kernel takes (bfloat16, float32, float64).
void check_nll_nd_args(const Tensor& logp, const Tensor& target, const Tensor& weight);
// The loss: target's sizes for None, else 0-dim (Mean: the sum divided by
// the total weight of non-ignored targets, nan when that is 0). A target
// outside [0, C) that is not ignore_index: TSR_ERR_INDEX_OUT_OF_RANGE
// ("Target 7 is out of bounds.").
Tensor nll_loss_nd(const Tensor& logp, const Tensor& target, const Tensor& weight, NllArgs a);
// Its gradient wrt logp (sizes logp_sizes, contiguous): -w[t] * grad at
// each target (grad / total weight for Mean), 0 elsewhere.
Tensor nll_loss_nd_backward(const Tensor& grad, const Shape& logp_sizes, const Tensor& target,
                            const Tensor& weight, NllArgs a);
// The total weight of the targets that are not ignore_index (their count
// without weight): mean's divisor.
double nll_total_weight(const Tensor& target, const Tensor& weight, int64_t classes, int64_t ignore_index);

}  // namespace tsr::kernels

namespace tsr::kernels {

// binary_cross_entropy's argument rule: float32/float64 input (torch's
// "not implemented" otherwise), target of input's dtype, every input
// element in [0, 1] (torch's message). x, t, w of one shape and dtype.
void check_bce_args(const Tensor& x, const Tensor& t);
// -w (t max(log x, -100) + (1 - t) max(log(1 - x), -100)), unreduced.
Tensor binary_cross_entropy(const Tensor& x, const Tensor& t, const Tensor& w);
// binary_cross_entropy_with_logits's dtypes: bfloat16, float32, float64
// (float16: torch's "clamp_min_cpu" not implemented).
void check_bce_logits_dtype(tsr_dtype d);
// The stable form, unreduced: w ((1 - t) x + l (log(exp(-m) + exp(-x - m))
// + m)), m = max(-x, 0), l = 1 + (pw - 1) t. Operands of one shape/dtype.
Tensor bce_with_logits(const Tensor& x, const Tensor& t, const Tensor& w, const Tensor& pw);

}  // namespace tsr::kernels
