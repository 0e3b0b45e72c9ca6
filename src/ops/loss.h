// Differentiable losses (torch.nn.functional): mse_loss, smooth_l1_loss and
// huber_loss as primitives carrying torch's grad_fn names; l1_loss and
// kl_div as torch 1.13 composes them (AbsBackward0/MeanBackward0, ...).
// reduction: 0 none, 1 mean, 2 sum (torch's at::Reduction).
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

Tensor mse_loss(const Tensor& input, const Tensor& target, int reduction);
Tensor l1_loss(const Tensor& input, const Tensor& target, int reduction);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int reduction, double beta);
Tensor huber_loss(const Tensor& input, const Tensor& target, int reduction, double delta);
Tensor kl_div(const Tensor& input, const Tensor& target, int reduction, bool log_target);

}  // namespace tsr::ops

namespace tsr::ops {

// nll_loss / cross_entropy: input [C], [N, C] or [N, C, d1, ...]; weight
// [C] or undefined. cross_entropy's target is class indices (int64) or,
// with input's sizes and a floating dtype, class probabilities.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int reduction,
                int64_t ignore_index);
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int reduction,
                     int64_t ignore_index, double label_smoothing);

}  // namespace tsr::ops

namespace tsr::ops {

// binary_cross_entropy(input in [0, 1], target of input's sizes, weight
// broadcastable to them or undefined) and binary_cross_entropy_with_logits
// (plus pos_weight broadcastable, or undefined).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int reduction);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, int reduction);

}  // namespace tsr::ops
