#include "ops/cpu_scalar.h"

#include "ops/to_device.h"

namespace tsr::ops {

Tensor cpu_scalar_to_device_of(const Tensor& operand, std::initializer_list<const Tensor*> others) {
  if (!operand.defined() || operand.ndim() != 0 || operand.device().type != TSR_DEVICE_CPU) return operand;
  const Tensor* on_device = nullptr;
  for (const Tensor* t : others) {
    if (!t->defined() || t->device().type == TSR_DEVICE_CPU) continue;
    if (on_device && t->device() != on_device->device()) return operand;  // two devices: refused later
    on_device = t;
  }
  return on_device ? to_device(operand, on_device->device(), false) : operand;
}

}  // namespace tsr::ops
