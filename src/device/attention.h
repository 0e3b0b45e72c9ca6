// Scaled dot-product attention on a device (the primitives of
// ops/attention.cpp call these from eval_device, as they call
// kernels::sdpa_forward / sdpa_backward from eval_cpu): operands expanded
// to the broadcast batch and made contiguous, the device's attention
// kernels run in the compute type, results rounded to the inputs' dtype.
#pragma once

#include "core/device_kernels.h"
#include "cpu/kernels/attention.h"

namespace tsr::device {

// out (batch..., L, Ev) in q's dtype and lse (batch..., L) in
// kernels::sdpa_compute_dtype, on q's device.
kernels::SdpaForwardResult sdpa_forward(DeviceKernels& k, const kernels::SdpaArgs& a);

// dq, dk, dv over the broadcast batch dims, in q's dtype.
kernels::SdpaGrads sdpa_backward(DeviceKernels& k, const kernels::SdpaArgs& a, const Tensor& grad_out,
                                 const Tensor& out, const Tensor& lse);

}  // namespace tsr::device
