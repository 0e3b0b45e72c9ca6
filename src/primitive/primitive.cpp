#include "primitive/primitive.h"

namespace tsr::prim {

Tensors Primitive::forward(const Tensors& inputs) {
  // The device of the first defined input picks the kernel entry; run()
  // has checked that all inputs agree. CPU is the only backend so far.
  tsr_device_type device = TSR_DEVICE_CPU;
  for (const Tensor& t : inputs)
    if (t.defined()) {
      device = t.device();
      break;
    }
  TSR_CHECK(device == TSR_DEVICE_CPU, TSR_ERR_UNSUPPORTED, op(), ": no kernel for device type ",
            int(device), " in this build (CPU only)");
  return eval_cpu(inputs);
}

Tensors Primitive::backward(const BackwardContext&) {
  fail(TSR_ERR_AUTOGRAD, "the derivative for '", op(), "' is not implemented.");
}

}  // namespace tsr::prim
