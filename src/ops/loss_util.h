// Helpers the loss files share (ops/loss.cpp defines them).
#pragma once

#include "core/tensor.h"
#include "cpu/kernels/loss.h"

namespace tsr::ops {

// A tsr_loss_reduction from C, or torch's "N is not a valid value for
// reduction" (TSR_ERR_INVALID_ARGUMENT).
kernels::LossReduction checked_reduction(int r);
// a / s as torch's Tensor / number (grad_fn DivBackward1).
Tensor div_scalar(const Tensor& a, double s);

}  // namespace tsr::ops
