// masked_fill (MaskedFillBackward0 with a number, MaskedFillBackward1 with
// a 0-dim tensor value), in place and out of place, and masked_select
// (MaskedSelectBackward0). Backward formulas: torch 1.13's derivatives.yaml.
#include "primitive/op_names.h"
#include "ops/indexing_ops.h"

#include "autograd/run.h"
#include "core/views.h"
#include "cpu/kernels/advanced_index.h"
#include "cpu/kernels/elementwise.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "device/index_ops.h"
#include "ops/cpu_scalar.h"
#include "ops/math.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "ops/writes_self.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"masked_fill", "masked_fill_", "masked_select"});

void check_mask(const Tensor& mask, const char* op) {
  TSR_CHECK(mask.dtype() == TSR_BOOL || mask.dtype() == TSR_UINT8, TSR_ERR_DTYPE_MISMATCH, op,
            " only supports boolean masks, but got mask with dtype ", dtype_name(mask.dtype()));
}

// Inputs: self, mask, and the value when it is a tensor.
class MaskedFill final : public WritesSelf {
 public:
  MaskedFill(bool inplace, std::optional<double> value) : WritesSelf(inplace), value_(value) {}
  const char* name() const override { return value_ ? "MaskedFillBackward0" : "MaskedFillBackward1"; }
  const char* op() const override { return inplace_ ? "masked_fill_" : "masked_fill"; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const Tensor mask = ctx.input(1);
    Tensor gs, gv;
    if (ctx.needs_input_grad(0)) gs = masked_fill(g, mask, 0.0);
    if (!value_ && ctx.needs_input_grad(2)) {
      const Tensor zero = device::zeros_on({}, g.dtype(), g.device());
      gv = sum(where(mask, g, zero), {}, false);
      if (gv.dtype() != ctx.input_meta(2).dtype) gv = to_dtype(gv, ctx.input_meta(2).dtype);
    }
    if (value_) return {gs, Tensor()};
    return {gs, Tensor(), gv};
  }

 private:
  void check(const Tensors& in) const override {
    check_mask(in[1], "masked_fill_");
    check_broadcasts_into(in[0], in[1]);
    if (!value_)
      TSR_CHECK(in[2].ndim() == 0, TSR_ERR_INVALID_ARGUMENT,
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", in[2].ndim(),
                " dimension(s).");
  }
  void write(const Tensor& self, const Tensors& in) override {
    const Tensor mask = source(self, in[1]);
    kernels::masked_fill_into(self, mask, value_ ? *value_ : kernels::scalar_value(in[2]));
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    const Tensor mask = source(self, in[1]);
    if (value_) device::masked_fill_into(k, self, mask, *value_);
    else device::masked_fill_into(k, self, mask, in[2]);
  }
  std::optional<double> value_;
};

class MaskedSelect final : public prim::Primitive {
  // The mask's dtype checked; the broadcast shape of x and mask.
  static Shape checked_shape(const Tensors& in) {
    check_mask(in[1], "masked_select:");
    return broadcast_shapes(in[0].sizes(), in[1].sizes());
  }

 public:
  const char* name() const override { return "MaskedSelectBackward0"; }
  const char* op() const override { return "masked_select"; }
  std::vector<prim::TensorMeta> output_meta(const Tensors& in) const override {
    // The length depends on the mask's values, so the rule reads them
    // (on a device: counted there, a synchronization).
    const Shape shape = checked_shape(in);
    if (in[1].device().type != TSR_DEVICE_CPU)
      return {{{device::count_true(device::kernels_for(in[1].device()), in[1], shape)}, in[0].dtype()}};
    return {{{kernels::count_true(in[1], shape)}, in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    checked_shape(in);  // the kernel counts the mask itself
    return {kernels::masked_select(in[0], in[1])};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    checked_shape(in);
    return {device::masked_select(k, in[0], in[1])};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  // zeros of the broadcast shape with grad written where mask is true
  // (masked_scatter), summed back to x's sizes.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const Tensor mask = ctx.input(1);
    const prim::TensorMeta& x = ctx.input_meta(0);
    const Shape shape = broadcast_shapes(x.sizes, mask.sizes());
    const Tensor zeros = device::zeros_on(shape, g.dtype(), g.device());
    const Tensor full = index_put(zeros, {expand(mask, shape)}, g, false);
    return {to_input(full, x), Tensor()};
  }
};

}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, double value) {
  return run1<MaskedFill>({self, mask}, false, value);
}
// A 0-dim CPU value joins self on its device (torch reads it with item();
// its gradient returns to the CPU).
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return run1<MaskedFill>({self, mask, cpu_scalar_to_device_of(value, {&self})}, false, std::nullopt);
}
void masked_fill_(const Tensor& self, const Tensor& mask, double value) {
  run1<MaskedFill>({self, mask}, true, value);
}
void masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  run1<MaskedFill>({self, mask, cpu_scalar_to_device_of(value, {&self})}, true, std::nullopt);
}
Tensor masked_select(const Tensor& x, const Tensor& mask) { return run1<MaskedSelect>({x, mask}); }

}  // namespace tsr::ops
