#include "primitive/primitive.h"

#include "alloc/trace.h"

namespace tsr::prim {

Tensors Primitive::forward(const Tensors& inputs) {
  // The device of the first defined input picks the kernel entry; run()
  // has checked that all inputs agree. A primitive without tensor inputs
  // (none so far) would run on the CPU.
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs)
    if (t.defined()) {
      first = &t;
      break;
    }
  const Device device = first ? first->device() : kCpu;
  // Memory history names the op each allocation was made for.
  alloc::OpLabelScope label(op());
  switch (device.type) {
    case TSR_DEVICE_CPU: return eval_cpu(inputs);
    default: break;
  }
  fail(TSR_ERR_UNSUPPORTED, op(), ": no kernel for device ", device_name(device),
       " in this build");
}

Tensors Primitive::backward(const BackwardContext&) {
  fail(TSR_ERR_AUTOGRAD, "the derivative for '", op(), "' is not implemented.");
}

}  // namespace tsr::prim
