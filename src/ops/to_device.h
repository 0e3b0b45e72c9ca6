// Copies between devices with autograd: Tensor.to(device) and copy_.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

// t itself when already on d, else a copy on d (device::to_device) whose
// gradient goes back to t's device.
Tensor to_device(const Tensor& t, Device d, bool non_blocking);
// dst = src (broadcast, converted) with dst and src on different devices.
void copy_across_devices(const Tensor& dst, const Tensor& src, bool non_blocking);

}  // namespace tsr::ops
