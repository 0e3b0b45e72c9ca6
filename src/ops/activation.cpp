// Activation primitives: gelu (exact and tanh approximation), tanh,
// sigmoid, sqrt and erf (erf is internal: gelu's double backward uses it),
// pow (scalar and tensor exponents) and clamp.
// Backward: with grad mode off (an ordinary backward) one fused kernel as
// ATen's *_backward; under create_graph the same formula in differentiable
// ops, so higher-order gradients work to any order. Formulas are PyTorch's
// (tools/autograd/derivatives.yaml, ATen's GeluBackwardKernelImpl).
#include <cmath>

#include "primitive/op_names.h"
#include "autograd/grad_mode.h"
#include "autograd/run.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "device/select_ops.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/elementwise.h"
#include "ops/cpu_scalar.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"

namespace tsr::ops {

using autograd::run1;
using kernels::Act;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"gelu", "tanh", "sigmoid", "sqrt", "erf", "pow", "clamp"});


constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/sqrt(2 pi)
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
constexpr double kBeta = 0.79788456080286535588;        // sqrt(2/pi)
constexpr double kKappa = 0.044715;

class Activation final : public prim::Primitive {
 public:
  explicit Activation(Act op) : op_(op) {}
  const char* name() const override {
    switch (op_) {
      case Act::Gelu:
      case Act::GeluTanh: return "GeluBackward0";
      case Act::Tanh: return "TanhBackward0";
      case Act::Sigmoid: return "SigmoidBackward0";
      case Act::Sqrt: return "SqrtBackward0";
      case Act::Erf: break;
    }
    return "ErfBackward0";
  }
  const char* op() const override { return kernels::act_name(op_); }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), kernels::act_result_dtype(op_, in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::act(op_, in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::unary(k, unary_kernel(), in[0], 0.0, kernels::act_result_dtype(op_, in[0].dtype()))};
  }
  // gelu and erf read their input; tanh, sigmoid and sqrt their result.
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return reads_input() ? prim::SaveSpec{bit(0), 0} : prim::SaveSpec{0, bit(0)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const Tensor saved = reads_input() ? ctx.input(0) : ctx.output(0);
    if (!autograd::is_grad_enabled() && g.device().type == TSR_DEVICE_CPU)
      return {kernels::act_backward(op_, g, saved)};
    if (!autograd::is_grad_enabled() && op_ != Act::Erf)
      return {device::binary(device::kernels_for(g.device()), backward_kernel(), g, saved, 1.0, g.dtype())};
    if (op_ == Act::Sqrt) return {div(g, mul_scalar(saved, 2.0))};  // g / (2y)
    return {mul(g, derivative(saved))};
  }

 private:
  UnaryKernel unary_kernel() const {
    switch (op_) {
      case Act::Gelu: return UnaryKernel::Gelu;
      case Act::GeluTanh: return UnaryKernel::GeluTanh;
      case Act::Tanh: return UnaryKernel::Tanh;
      case Act::Sigmoid: return UnaryKernel::Sigmoid;
      case Act::Sqrt: return UnaryKernel::Sqrt;
      case Act::Erf: break;
    }
    return UnaryKernel::Erf;
  }
  // The fused backward formula (erf has none: it goes through ops).
  BinaryKernel backward_kernel() const {
    switch (op_) {
      case Act::Gelu: return BinaryKernel::GeluBackward;
      case Act::GeluTanh: return BinaryKernel::GeluTanhBackward;
      case Act::Tanh: return BinaryKernel::TanhBackward;
      case Act::Sigmoid: return BinaryKernel::SigmoidBackward;
      case Act::Sqrt:
      case Act::Erf: break;
    }
    return BinaryKernel::SqrtBackward;
  }
  bool reads_input() const { return op_ == Act::Gelu || op_ == Act::GeluTanh || op_ == Act::Erf; }

  // d(output)/d(input) in differentiable ops, from x (gelu, erf) or from
  // the result y (tanh, sigmoid).
  Tensor derivative(const Tensor& s) const {
    switch (op_) {
      case Act::Gelu: {  // Phi(x) + x phi(x)
        Tensor cdf = mul_scalar(add_scalar(erf(mul_scalar(s, kSqrt1_2)), 1.0), 0.5);
        Tensor pdf = mul_scalar(exp(mul_scalar(mul(s, s), -0.5)), kInvSqrt2Pi);
        return add(cdf, mul(s, pdf));
      }
      case Act::GeluTanh: {  // 0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2)
        Tensor x_sq = mul(s, s);
        Tensor t = tanh(mul_scalar(add(s, mul_scalar(mul(x_sq, s), kKappa)), kBeta));
        Tensor left_derivative = mul_scalar(add_scalar(t, 1.0), 0.5);
        Tensor right_derivative = add_scalar(neg(mul(t, t)), 1.0);
        Tensor inner_derivative = mul_scalar(add_scalar(mul_scalar(x_sq, 3.0 * kKappa), 1.0), kBeta);
        return add(left_derivative, mul(mul(mul_scalar(s, 0.5), right_derivative), inner_derivative));
      }
      case Act::Tanh: return add_scalar(neg(mul(s, s)), 1.0);        // 1 - y^2
      case Act::Sigmoid: return mul(add_scalar(neg(s), 1.0), s);     // (1 - y) y
      case Act::Sqrt:  // backward divides instead
      case Act::Erf: break;
    }
    return mul_scalar(exp(neg(mul(s, s))), kTwoOverSqrtPi);  // 2/sqrt(pi) e^(-x^2)
  }

  Act op_;
};

// x ** e, e a Python float (PowBackward0): e * x^(e-1) * g, zeros for e == 0.
class PowScalar final : public prim::Primitive {
 public:
  explicit PowScalar(double e) : e_(e) {}
  const char* name() const override { return "PowBackward0"; }
  const char* op() const override { return "pow"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), kernels::pow_scalar_result_dtype(in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::pow_scalar(in[0], e_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    const tsr_dtype d = kernels::pow_scalar_result_dtype(in[0].dtype());
    kernels::check_pow_scalar_exponent(e_, d);
    return {device::unary(k, UnaryKernel::PowScalar, in[0], e_, d)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    Tensor x = ctx.input(0);
    if (e_ == 0.0) return {device::zeros_on(x.sizes(), x.dtype(), x.device())};
    return {mul(ctx.grad(0), mul_scalar(pow_scalar(x, e_ - 1.0), e_))};
  }

 private:
  double e_;
};

// a ** b, both tensors (PowBackward1), ATen's pow_backward_self and
// pow_backward_exponent:
//   grad_a = where(b == 0, 0, g * b * a^(b-1))
//   grad_b = g * where((a == 0) & (b >= 0), 0, result * log(a))
class PowTensor final : public prim::Primitive {
 public:
  const char* name() const override { return "PowBackward1"; }
  const char* op() const override { return "pow"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{broadcast_shapes(in[0].sizes(), in[1].sizes()), kernels::pow_result_dtype(in[0], in[1])}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::pow(in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::pow(k, in[0], in[1])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {bit(0) | bit(1), rg[1] ? bit(0) : 0u};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const tsr_dtype d = g.dtype();
    Tensor a = ctx.input(0), b = ctx.input(1);
    if (a.dtype() != d) a = to_dtype(a, d);
    if (b.dtype() != d) b = to_dtype(b, d);
    Tensor zero = device::zeros_on({}, d, g.device());
    Tensor ga, gb;
    if (ctx.needs_input_grad(0))
      ga = to_input(where(device::eq_scalar_mask_any(b, 0.0), zero, mul(g, mul(b, pow(a, add_scalar(b, -1.0))))),
                    ctx.input_meta(0));
    if (ctx.needs_input_grad(1))
      gb = to_input(mul(g, where(device::zero_base_mask_any(a, b), zero, mul(ctx.output(0), log(a)))),
                    ctx.input_meta(1));
    return {ga, gb};
  }
};

// torch.clamp with Python-float bounds (ClampBackward1): the gradient
// passes where lo <= x <= hi (a missing bound ignored), else 0.
class Clamp final : public prim::Primitive {
 public:
  Clamp(std::optional<double> lo, std::optional<double> hi) : lo_(lo), hi_(hi) {}
  const char* name() const override { return "ClampBackward1"; }
  const char* op() const override { return "clamp"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), kernels::clamp_result_dtype(in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::clamp(in[0], lo_, hi_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::clamp(k, in[0], lo_, hi_)}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    return {where(device::in_range_mask_any(ctx.input(0), lo_, hi_), g, device::zeros_on({}, g.dtype(), g.device()))};
  }

 private:
  std::optional<double> lo_, hi_;
};

}  // namespace

Tensor gelu(const Tensor& x, bool tanh_approximation) {
  return run1<Activation>({x}, tanh_approximation ? Act::GeluTanh : Act::Gelu);
}
Tensor tanh(const Tensor& x) { return run1<Activation>({x}, Act::Tanh); }
Tensor sigmoid(const Tensor& x) { return run1<Activation>({x}, Act::Sigmoid); }
Tensor sqrt(const Tensor& x) { return run1<Activation>({x}, Act::Sqrt); }
Tensor erf(const Tensor& x) { return run1<Activation>({x}, Act::Erf); }
Tensor pow_scalar(const Tensor& x, double exponent) { return run1<PowScalar>({x}, exponent); }
Tensor pow(const Tensor& x, const Tensor& exponent) {
  return run1<PowTensor>({cpu_scalar_to_device_of(x, {&exponent}), cpu_scalar_to_device_of(exponent, {&x})});
}
Tensor clamp(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  // torch checks this before anything else.
  TSR_CHECK(lo || hi, TSR_ERR_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  return run1<Clamp>({x}, lo, hi);
}

}  // namespace tsr::ops
