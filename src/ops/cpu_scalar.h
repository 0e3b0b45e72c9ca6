// torch's TensorIterator lets a 0-dim CPU tensor join elementwise operands
// on another device (its is_cpu_scalar rule: `cuda_x * torch.tensor(2.)`
// works, and the scalar's gradient is a CPU tensor). Here such a scalar is
// moved to the others' device first, by a differentiable copy whose
// gradient returns to the CPU, so that primitives see one device. Anything
// else on two devices is left for the op's device check to refuse.
#pragma once

#include <initializer_list>

#include "core/tensor.h"

namespace tsr::ops {

// operand itself, or a copy of it on the device of `others` when operand
// is a 0-dim CPU tensor and every defined tensor of others is on that one
// non-CPU device.
Tensor cpu_scalar_to_device_of(const Tensor& operand, std::initializer_list<const Tensor*> others);

}  // namespace tsr::ops
