// Elementwise arithmetic primitives: add, sub, mul, div (broadcasting, type
// promotion), their scalar forms, and neg, relu, exp, log. Backward
// formulas are PyTorch's (tools/autograd/derivatives.yaml).
#include "primitive/op_names.h"
#include "autograd/grad_mode.h"
#include "autograd/run.h"
#include "device/device_ops.h"
#include "cpu/kernels/elementwise.h"
#include "ops/cpu_scalar.h"
#include "ops/grad_util.h"

namespace tsr::ops {

using autograd::run1;
using kernels::BinaryOp;
using kernels::UnaryOp;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"add", "sub", "mul", "div", "neg", "relu", "exp", "log", "threshold_backward"});


class Binary final : public prim::Primitive {
 public:
  explicit Binary(BinaryOp op) : op_(op) {}
  const char* name() const override {
    switch (op_) {
      case BinaryOp::Add: return "AddBackward0";
      case BinaryOp::Sub: return "SubBackward0";
      case BinaryOp::Mul: return "MulBackward0";
      case BinaryOp::Div: break;
    }
    return "DivBackward0";
  }
  const char* op() const override {
    switch (op_) {
      case BinaryOp::Add: return "add";
      case BinaryOp::Sub: return "sub";
      case BinaryOp::Mul: return "mul";
      case BinaryOp::Div: break;
    }
    return "div";
  }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{broadcast_shapes(in[0].sizes(), in[1].sizes()), kernels::binary_result_dtype(op_, in[0], in[1])}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::binary(op_, in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    const tsr_dtype d = kernels::binary_result_dtype(op_, in[0], in[1]);
    return {device::binary(k, device_op(), in[0], in[1], 1.0, d)};
  }
  // mul saves each operand only when the other one needs a gradient, as
  // PyTorch does: an in-place change to a tensor that was not saved is not
  // an error. div always needs b.
  BinaryKernel device_op() const {
    switch (op_) {
      case BinaryOp::Add: return BinaryKernel::Add;
      case BinaryOp::Sub: return BinaryKernel::Sub;
      case BinaryOp::Mul: return BinaryKernel::Mul;
      case BinaryOp::Div: break;
    }
    return BinaryKernel::Div;
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    switch (op_) {
      case BinaryOp::Add:
      case BinaryOp::Sub: return {};
      case BinaryOp::Mul: return {(rg[1] ? bit(0) : 0) | (rg[0] ? bit(1) : 0), 0};
      case BinaryOp::Div: break;
    }
    return {bit(1) | (rg[1] ? bit(0) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const TensorMeta &ma = ctx.input_meta(0), &mb = ctx.input_meta(1);
    Tensor ga, gb;
    switch (op_) {
      case BinaryOp::Add:
      case BinaryOp::Sub:
        if (ctx.needs_input_grad(0)) ga = to_input(g, ma);
        if (ctx.needs_input_grad(1)) gb = to_input(op_ == BinaryOp::Sub ? neg(g) : g, mb);
        break;
      case BinaryOp::Mul:
        if (ctx.needs_input_grad(0)) ga = to_input(mul(g, ctx.input(1)), ma);
        if (ctx.needs_input_grad(1)) gb = to_input(mul(g, ctx.input(0)), mb);
        break;
      case BinaryOp::Div: {
        Tensor b = ctx.input(1);
        Tensor g_over_b = div(g, b);
        if (ctx.needs_input_grad(0)) ga = to_input(g_over_b, ma);
        // d(a/b)/db = -a / b^2 = -(g/b) * (a/b)
        if (ctx.needs_input_grad(1)) gb = to_input(neg(mul(g_over_b, div(ctx.input(0), b))), mb);
        break;
      }
    }
    return {ga, gb};
  }

 private:
  BinaryOp op_;
};

// d(a*s)/da = s, d(a+s)/da = 1. torch's mul saves the scalar as a tensor,
// so a second backward through it without retain_graph fails; add saves
// nothing and may run again.
class Scalar final : public prim::Primitive {
 public:
  Scalar(bool is_mul, double s) : is_mul_(is_mul), s_(s) {}
  // Python's x * 2 and torch.mul(x, 2) wrap the scalar in a tensor and
  // give MulBackward0 (MulBackward1 is the C++-only Scalar overload).
  const char* name() const override { return is_mul_ ? "MulBackward0" : "AddBackward0"; }
  const char* op() const override { return is_mul_ ? "mul" : "add"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {prim::meta_of(in[0])}; }
  Tensors eval_cpu(const Tensors& in) override {
    return {is_mul_ ? kernels::mul_scalar(in[0], s_) : kernels::add_scalar(in[0], s_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::unary(k, is_mul_ ? UnaryKernel::MulScalar : UnaryKernel::AddScalar, in[0], s_,
                          in[0].dtype())};
  }
  bool saves_scalar() const override { return is_mul_; }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    return {!is_mul_ || s_ == 1.0 ? g : mul_scalar(g, s_)};
  }

 private:
  bool is_mul_;
  double s_;
};

// grad * (result > 0): ReLU's backward as its own primitive (ATen's
// threshold_backward), linear in grad, so it has a backward too.
class ReluBackwardOp final : public prim::Primitive {
 public:
  const char* name() const override { return "ThresholdBackwardBackward0"; }
  const char* op() const override { return "threshold_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{broadcast_shapes(in[0].sizes(), in[1].sizes()), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::relu_backward(in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::binary(k, BinaryKernel::ReluBackward, in[0], in[1], 1.0, in[0].dtype())};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    Tensor gg;
    if (ctx.needs_input_grad(0)) gg = run1<ReluBackwardOp>({ctx.grad(0), ctx.input(1)});
    return {gg, Tensor()};
  }
};

// relu and exp save their result; log saves its input; neg saves nothing.
class Unary final : public prim::Primitive {
 public:
  explicit Unary(UnaryOp op) : op_(op) {}
  const char* name() const override {
    switch (op_) {
      case UnaryOp::Relu: return "ReluBackward0";
      case UnaryOp::Exp: return "ExpBackward0";
      case UnaryOp::Log: return "LogBackward0";
      case UnaryOp::Neg: break;
    }
    return "NegBackward0";
  }
  const char* op() const override {
    switch (op_) {
      case UnaryOp::Relu: return "relu";
      case UnaryOp::Exp: return "exp";
      case UnaryOp::Log: return "log";
      case UnaryOp::Neg: break;
    }
    return "neg";
  }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), kernels::unary_result_dtype(op_, in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::unary(op_, in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    const tsr_dtype d = kernels::unary_result_dtype(op_, in[0].dtype());
    UnaryKernel op = UnaryKernel::Neg;
    switch (op_) {
      case UnaryOp::Relu: op = UnaryKernel::Relu; break;
      case UnaryOp::Exp: op = UnaryKernel::Exp; break;
      case UnaryOp::Log: op = UnaryKernel::Log; break;
      case UnaryOp::Neg: break;
    }
    return {device::unary(k, op, in[0], 0.0, d)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    switch (op_) {
      case UnaryOp::Relu:
      case UnaryOp::Exp: return {0, bit(0)};
      case UnaryOp::Log: return {bit(0), 0};
      case UnaryOp::Neg: break;
    }
    return {};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    switch (op_) {
      case UnaryOp::Relu: return {run1<ReluBackwardOp>({g, ctx.output(0)})};
      case UnaryOp::Exp: return {mul(g, ctx.output(0))};
      case UnaryOp::Log: return {div(g, ctx.input(0))};
      case UnaryOp::Neg: break;
    }
    return {neg(g)};
  }

 private:
  UnaryOp op_;
};

}  // namespace

Tensor threshold_backward(const Tensor& grad, const Tensor& result) { return run1<ReluBackwardOp>({grad, result}); }
namespace {
Tensor run_binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  return run1<Binary>({cpu_scalar_to_device_of(a, {&b}), cpu_scalar_to_device_of(b, {&a})}, op);
}
}  // namespace
Tensor add(const Tensor& a, const Tensor& b) { return run_binary(BinaryOp::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return run_binary(BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return run_binary(BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return run_binary(BinaryOp::Div, a, b); }
Tensor mul_scalar(const Tensor& a, double s) { return run1<Scalar>({a}, true, s); }
Tensor add_scalar(const Tensor& a, double s) { return run1<Scalar>({a}, false, s); }
Tensor neg(const Tensor& a) { return run1<Unary>({a}, UnaryOp::Neg); }
Tensor relu(const Tensor& a) { return run1<Unary>({a}, UnaryOp::Relu); }
Tensor exp(const Tensor& a) { return run1<Unary>({a}, UnaryOp::Exp); }
Tensor log(const Tensor& a) { return run1<Unary>({a}, UnaryOp::Log); }

}  // namespace tsr::ops
