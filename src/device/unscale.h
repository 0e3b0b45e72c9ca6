// GradScaler's fused non-finite check and unscale on a device (torch's
// _amp_foreach_non_finite_check_and_unscale_ on CUDA): the gradients in
// one kernel launch per kMaxUnscaleTensors of them, on the calling
// thread's current stream.
#pragma once

#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::device {

// True when t can go through the fused kernel: its elements fill numel
// consecutive slots in some order (torch's fast path needs the same).
bool fusable_for_unscale(const Tensor& t);

// Every element of grads (fusable, floating, on found_inf's device) checked
// and multiplied by inv_scale in place; found_inf (a float32 scalar on the
// same device) set to 1 when one was not finite. No version bumps: the
// caller owns them.
void non_finite_check_and_unscale(DeviceKernels& k, const std::vector<Tensor>& grads, float inv_scale,
                                  const Tensor& found_inf);

}  // namespace tsr::device
