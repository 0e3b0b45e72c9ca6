// nll_loss over [N, C, d1, ...] on a device other than the CPU (issue 32):
// kernels::nll_loss_nd, nll_loss_nd_backward and nll_total_weight (class
// weights, ignore_index, every reduction) composed of device ops: the
// targets' weights (0 where ignored) gathered in float64 as the CPU's
// target_weights, the log-probabilities gathered at the targets, the sums
// in double, and the backward scattered into zeros. Targets are checked
// on the device (one 8-byte read back); a bad one gives the CPU's status
// and message ("Target k is out of bounds.").
#pragma once

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/loss.h"

namespace tsr::device {

// The primitives' eval_device (ops/cross_entropy.cpp), arguments already
// checked by kernels::check_nll_nd_args; weight may be undefined.
Tensor nll_loss_nd(DeviceKernels& k, const Tensor& logp, const Tensor& target, const Tensor& weight,
                   kernels::NllArgs a);
Tensor nll_loss_nd_backward(DeviceKernels& k, const Tensor& grad, const Shape& logp_sizes, const Tensor& target,
                            const Tensor& weight, kernels::NllArgs a);
// kernels::nll_total_weight wherever target lives (on a device: computed
// there, then read back).
double nll_total_weight_any(const Tensor& target, const Tensor& weight, int64_t classes, int64_t ignore_index);

}  // namespace tsr::device
