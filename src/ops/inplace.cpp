#include "primitive/op_names.h"
#include "ops/cpu_scalar.h"
#include "ops/inplace.h"
#include "ops/grad_util.h"
#include "ops/layout.h"
#include "ops/to_device.h"

#include "autograd/grad_mode.h"
#include "autograd/run.h"
#include "autograd/node.h"
#include "core/inference_mode.h"
#include "core/views.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"

namespace tsr::ops {

Tensor inplace_source(const Tensor& self, const Tensor& other, const char* op,
                      const char* other_name, const char* out_of_place) {
  TSR_CHECK(self.device() == other.device(), TSR_ERR_DEVICE_MISMATCH, op, ": devices differ");
  check_inplace_allowed(self, op);
  check_broadcasts_into(self, other);
  TSR_CHECK(!kernels::partial_overlap(self, other), TSR_ERR_INVALID_ARGUMENT, op,
            ": unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation.");
  Tensor src = views::expand_or_self(other, self.sizes());
  return kernels::may_overlap(self, other) ? device::contiguous_copy_any(src, src.dtype()) : src;
}

namespace {

const bool registered = prim::register_op_names({"add_", "mul_", "fill_", "zero_", "relu_", "copy_"});


// An in-place primitive writes its input 0 and returns it as output 0. It
// records no history (in-place ops on tensors that need it are refused by
// check_inplace_allowed), but runs through autograd::run so that a
// checkpoint region can replay it on the tensors it recomputes.
class InPlace : public prim::Primitive {
 public:
  int inplace_input() const override { return 0; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors& in) const override {
    return {prim::meta_of(in[0])};
  }
};

class AddInPlace final : public InPlace {
 public:
  explicit AddInPlace(double alpha) : alpha_(alpha) {}
  const char* name() const override { return "AddBackward0"; }
  const char* op() const override { return "add_"; }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    kernels::add_into(in[0], inplace_source(in[0], in[1], "add_", "other", "tsr_add"), alpha_);
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    const Tensor src = inplace_source(in[0], in[1], "add_", "other", "tsr_add");
    device::binary_into(k, BinaryKernel::Add, in[0], in[0], src, alpha_);
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors backward(const prim::BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor go;
    if (ctx.needs_input_grad(1)) go = to_input(alpha_ == 1.0 ? g : mul_scalar(g, alpha_), ctx.input_meta(1));
    return {g, go};
  }

 private:
  double alpha_;
};

class MulScalarInPlace final : public InPlace {
 public:
  explicit MulScalarInPlace(double s) : s_(s) {}
  const char* name() const override { return "MulBackward0"; }
  const char* op() const override { return "mul_"; }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    check_inplace_allowed(in[0], "mul_");
    kernels::scale_inplace(in[0], s_);
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    check_inplace_allowed(in[0], "mul_");
    device::unary_into(k, UnaryKernel::MulScalar, in[0], in[0], s_);
    in[0].bump_version();
    return {in[0]};
  }
  bool saves_scalar() const override { return true; }
  prim::Tensors backward(const prim::BackwardContext& ctx) override { return {mul_scalar(ctx.grad(0), s_)}; }

 private:
  double s_;
};

// fill_ and zero_: the old value gets no gradient.
class Fill final : public InPlace {
 public:
  Fill(double value, bool is_zero) : value_(value), is_zero_(is_zero) {}
  const char* name() const override { return is_zero_ ? "ZeroBackward0" : "FillBackward2"; }
  const char* op() const override { return is_zero_ ? "zero_" : "fill_"; }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    check_inplace_allowed(in[0], op());
    kernels::fill(in[0], value_);
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    check_inplace_allowed(in[0], op());
    device::fill(k, in[0], value_);
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors backward(const prim::BackwardContext&) override { return {Tensor()}; }

 private:
  double value_;
  bool is_zero_;
};

// relu_: saves its result, as relu does.
class ReluInPlace final : public InPlace {
 public:
  const char* name() const override { return "ReluBackward0"; }
  const char* op() const override { return "relu_"; }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    check_inplace_allowed(in[0], "relu_");
    TSR_CHECK(in[0].dtype() != TSR_BOOL, TSR_ERR_DTYPE_MISMATCH, "Boolean inputs not supported for relu");
    kernels::copy_strided(in[0], kernels::unary(kernels::UnaryOp::Relu, in[0]));
    in[0].bump_version();
    return {in[0]};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(0)}; }
  prim::Tensors backward(const prim::BackwardContext& ctx) override {
    return {threshold_backward(ctx.grad(0), ctx.output(0))};
  }
};

class CopyInPlace final : public InPlace {
 public:
  const char* name() const override { return "CopyBackwards"; }
  const char* op() const override { return "copy_"; }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    kernels::copy_strided(in[0], inplace_source(in[0], in[1], "copy_", "src", "tsr_clone/tsr_to_dtype"));
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    device::copy_into(k, in[0], inplace_source(in[0], in[1], "copy_", "src", "tsr_clone/tsr_to_dtype"));
    in[0].bump_version();
    return {in[0]};
  }
  prim::Tensors backward(const prim::BackwardContext& ctx) override {
    Tensor gs;
    if (ctx.needs_input_grad(1)) gs = to_input(ctx.grad(0), ctx.input_meta(1));
    return {Tensor(), gs};
  }
};

}  // namespace

void add_(const Tensor& self, const Tensor& other, double alpha) {
  autograd::run1<AddInPlace>({self, cpu_scalar_to_device_of(other, {&self})}, alpha);
}
void mul_scalar_(const Tensor& self, double scalar) { autograd::run1<MulScalarInPlace>({self}, scalar); }
void fill_(const Tensor& self, double value) { autograd::run1<Fill>({self}, value, false); }
void zero_(const Tensor& self) { autograd::run1<Fill>({self}, 0.0, true); }
void relu_(const Tensor& self) { autograd::run1<ReluInPlace>({self}); }
void copy_(const Tensor& dst, const Tensor& src) {
  if (dst.device() != src.device()) return copy_across_devices(dst, src, false);
  autograd::run1<CopyInPlace>({dst, src});
}

}  // namespace tsr::ops
