// Tensor.to(device) as a primitive (torch's _to_copy across devices,
// ToCopyBackward0: the gradient goes back to the source device), and
// copy_ between devices.
#include "ops/to_device.h"

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/run.h"
#include "device/transfer.h"
#include "ops/write_checks.h"
#include "core/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

namespace {

const bool registered = prim::register_op_names({"to"});

class ToDevice final : public prim::Primitive {
 public:
  ToDevice(Device from, Device to, bool non_blocking) : from_(from), to_(to), non_blocking_(non_blocking) {}
  const char* name() const override { return "ToCopyBackward0"; }
  const char* op() const override { return "to"; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors& in) const override {
    return {{in[0].sizes(), in[0].dtype()}};
  }
  Device output_device(const prim::Tensors&) const override { return to_; }
  prim::Tensors eval_cpu(const prim::Tensors& in) override { return transfer(in); }
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels&) override { return transfer(in); }
  prim::Tensors backward(const prim::BackwardContext& ctx) override {
    return {to_device(ctx.grad(0), from_, false)};
  }

 private:
  prim::Tensors transfer(const prim::Tensors& in) const {
    return {device::to_device(in[0], to_, non_blocking_)};
  }
  Device from_, to_;
  bool non_blocking_;
};

}  // namespace

Tensor to_device(const Tensor& t, Device d, bool non_blocking) {
  if (t.device() == d) return t;
  return autograd::run(std::make_shared<ToDevice>(t.device(), d, non_blocking), {t})[0];
}

void copy_across_devices(const Tensor& dst, const Tensor& src, bool non_blocking) {
  check_inplace_allowed(dst, "copy_");
  // A copy between devices records no history here (autograd::run keeps
  // every primitive on one device): refuse where one was needed.
  TSR_CHECK(!(autograd::is_grad_enabled() && autograd::requires_grad(src)), TSR_ERR_AUTOGRAD,
            "copy_: a copy from ", device_name(src.device()), " to ", device_name(dst.device()),
            " of a tensor that requires grad records no history; use tsr_to_device, or copy under no_grad");
  check_broadcasts_into(dst, src);
  device::copy_between(dst, views::expand(src, dst.sizes()), non_blocking);
  dst.bump_version();
}

}  // namespace tsr::ops
