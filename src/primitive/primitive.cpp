#include "primitive/primitive.h"

#include "alloc/trace.h"
#include "device/device_ops.h"
#include "profiler/recorder.h"

#include <optional>
#include <string>

namespace tsr::prim {

namespace {
// The device of the first defined input: run() has checked that all inputs
// agree. A primitive without tensor inputs (none so far) runs on the CPU.
Device device_of(const Tensors& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined()) return t.device();
  return kCpu;
}
}  // namespace

std::vector<TensorMeta> Primitive::output_description(const Tensors& inputs) const {
  std::vector<TensorMeta> metas = output_meta(inputs);
  const Device device = output_device(inputs);
  for (TensorMeta& m : metas) m.device = device;
  return metas;
}

Device Primitive::output_device(const Tensors& inputs) const { return device_of(inputs); }

Tensors Primitive::forward(const Tensors& inputs) {
  // The profiler's hook: every primitive run passes here. Off, this is one
  // relaxed atomic load.
  std::optional<profiler::Scope> profiled;
  if (profiler::active()) [[unlikely]]
    profiled.emplace(profiler_name(), inputs, /*backward=*/false);
  // The inputs' device picks the kernel entry.
  const Device device = device_of(inputs);
  // Memory history names the op each allocation was made for.
  alloc::OpLabelScope label(op());
  if (device.type == TSR_DEVICE_CPU) return eval_cpu(inputs);
  return eval_device(inputs, device::kernels_for(device));
}

Tensors Primitive::eval_device(const Tensors& inputs, DeviceKernels&) {
  fail(TSR_ERR_UNSUPPORTED, op(), ": no kernel for device ", device_name(device_of(inputs)),
       " in this build");
}

Tensors Primitive::backward(const BackwardContext&) {
  fail(TSR_ERR_AUTOGRAD, "the derivative for '", op(), "' is not implemented.");
}

}  // namespace tsr::prim
