// softplus and the losses on a device other than the CPU (issue 32): the
// primitives' eval_device (ops/pointwise.cpp's softplus, ops/loss.cpp,
// ops/binary_cross_entropy.cpp) through DeviceKernels::loss_map, with the
// CPU kernels' dtype rules, checks and output layouts; and the pieces their
// ops and backward formulas take on whichever device a tensor lives (the
// *_any functions: the CPU kernel on the CPU).
#pragma once

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/loss.h"

namespace tsr::device {

// kernels::pointwise(Pw::Softplus): floating x only (the CPU's refusal
// otherwise), x's layout.
Tensor softplus(DeviceKernels& k, const Tensor& x, double beta, double threshold);
// kernels::reduce_loss(kernels::pointwise_loss(kind, x, y, param), r): x and
// y of one floating dtype and one size.
Tensor pointwise_loss(DeviceKernels& k, kernels::PointwiseLoss kind, const Tensor& x, const Tensor& y, double param,
                      kernels::LossReduction r);
// kernels::reduce_loss(kernels::binary_cross_entropy(x, t, w), r).
Tensor binary_cross_entropy(DeviceKernels& k, const Tensor& x, const Tensor& t, const Tensor& w,
                            kernels::LossReduction r);
// kernels::reduce_loss(kernels::bce_with_logits(x, t, w, pw), r).
Tensor bce_with_logits(DeviceKernels& k, const Tensor& x, const Tensor& t, const Tensor& w, const Tensor& pw,
                       kernels::LossReduction r);
// kernels::div_scalar (t / s in t's compute type; floating t).
Tensor div_scalar(DeviceKernels& k, const Tensor& t, double s);

// kernels::check_bce_args on any device: the dtype checks, then every
// input value within [0, 1] (on a device: a count of those that are, one
// 8-byte read back), else torch's TSR_ERR_INVALID_ARGUMENT.
void check_bce_args_any(const Tensor& x, const Tensor& t);
// kernels::abs_below, kernels::sign and kernels::mul_scalar (the pointwise
// losses' backward masks and signs) on any device.
Tensor abs_below_any(const Tensor& t, double bound, bool inclusive);
Tensor sign_any(const Tensor& t);
Tensor mul_scalar_any(const Tensor& t, double s);

}  // namespace tsr::device
