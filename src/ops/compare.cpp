// Comparison primitives (eq, ne, lt, le, gt, ge: bool results, so autograd
// records nothing) and abs with its derivative, grad * sign(x)
// (tools/autograd/derivatives.yaml). All of them also run on other devices
// (device/select_ops.h, device/pointwise_ops.h).
#include "primitive/op_names.h"
#include "autograd/run.h"
#include "cpu/kernels/compare.h"
#include "device/pointwise_ops.h"
#include "device/select_ops.h"
#include "ops/cpu_scalar.h"
#include "ops/compare.h"
#include "ops/grad_util.h"
#include "ops/math.h"

namespace tsr::ops {

using autograd::run1;
using kernels::CompareOp;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"eq", "ne", "lt", "le", "gt", "ge", "abs", "sign"});

class Compare final : public prim::Primitive {
 public:
  explicit Compare(CompareOp op) : op_(op) {}
  // Never a grad_fn (bool outputs take no history); named for the profiler.
  const char* name() const override { return op(); }
  const char* op() const override {
    switch (op_) {
      case CompareOp::Eq: return "eq";
      case CompareOp::Ne: return "ne";
      case CompareOp::Lt: return "lt";
      case CompareOp::Le: return "le";
      case CompareOp::Gt: return "gt";
      case CompareOp::Ge: break;
    }
    return "ge";
  }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{broadcast_shapes(in[0].sizes(), in[1].sizes()), TSR_BOOL}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::compare(op_, in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::compare(k, op_, in[0], in[1])}; }

 private:
  CompareOp op_;
};

// torch.sign: its derivative is zero, so backward gives no gradient.
class Sign final : public prim::Primitive {
 public:
  const char* name() const override { return "SignBackward0"; }
  const char* op() const override { return "sign"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::sign(in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::sign(k, in[0])}; }
  Tensors backward(const BackwardContext&) override { return {Tensor()}; }
};

class Abs final : public prim::Primitive {
 public:
  const char* name() const override { return "AbsBackward0"; }
  const char* op() const override { return "abs"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::abs(in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::abs(k, in[0])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {mul(ctx.grad(0), run1<Sign>({ctx.input(0)}))};
  }
};

Tensor run_compare(CompareOp op, const Tensor& a, const Tensor& b) {
  return run1<Compare>({cpu_scalar_to_device_of(a, {&b}), cpu_scalar_to_device_of(b, {&a})}, op);
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return run_compare(CompareOp::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return run_compare(CompareOp::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return run_compare(CompareOp::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return run_compare(CompareOp::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return run_compare(CompareOp::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return run_compare(CompareOp::Ge, a, b); }
Tensor abs(const Tensor& a) { return run1<Abs>({a}); }

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  TSR_CHECK(a.device().type == TSR_DEVICE_CPU && b.device().type == TSR_DEVICE_CPU,
            TSR_ERR_UNSUPPORTED, "allclose: no kernel for device ",
            device_name(a.device().type == TSR_DEVICE_CPU ? b.device() : a.device()),
            " in this build");
  return kernels::allclose(a, b, rtol, atol, equal_nan);
}

}  // namespace tsr::ops
