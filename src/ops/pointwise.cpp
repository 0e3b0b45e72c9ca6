// Pointwise primitives: one class, the op and its two scalar parameters.
// Backward is derivatives.yaml's formula written in differentiable ops (the
// masks are constants of x), so create_graph and double backward work.
#include "ops/cpu_scalar.h"
#include "ops/pointwise.h"

#include "autograd/run.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/pointwise.h"
#include "device/any_device.h"
#include "device/loss_ops.h"
#include "device/pointwise_ops.h"
#include "device/select_ops.h"
#include "ops/compare.h"
#include "ops/grad_util.h"
#include "ops/math.h"
#include "ops/nn_functional.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using autograd::run1;
using kernels::Pw;
using kernels::PwArgs;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"silu", "leaky_relu", "elu", "softplus", "hardtanh", "sin", "cos",
                                                  "rsqrt", "reciprocal", "floor", "ceil", "round", "trunc", "sign"});

class Pointwise final : public prim::Primitive {
 public:
  Pointwise(Pw op, PwArgs args) : op_(op), args_(args) {}
  const char* name() const override {
    switch (op_) {
      case Pw::Silu: return "SiluBackward0";
      case Pw::LeakyRelu: return "LeakyReluBackward0";
      case Pw::Elu: return "EluBackward0";
      case Pw::Softplus: return "SoftplusBackward0";
      case Pw::Hardtanh: return "HardtanhBackward0";
      case Pw::Sin: return "SinBackward0";
      case Pw::Cos: return "CosBackward0";
      case Pw::Rsqrt: return "RsqrtBackward0";
      case Pw::Reciprocal: return "ReciprocalBackward0";
      case Pw::Floor: return "FloorBackward0";
      case Pw::Ceil: return "CeilBackward0";
      case Pw::Round: return "RoundBackward0";
      case Pw::Trunc: return "TruncBackward0";
      case Pw::Sign: break;
    }
    return "SignBackward0";
  }
  const char* op() const override { return kernels::pw_name(op_); }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[0].sizes(), kernels::pw_result_dtype(op_, in[0].dtype(), args_)}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::pointwise(op_, in[0], args_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    if (op_ == Pw::Softplus) return {device::softplus(k, in[0], args_.a, args_.b)};
    return {device::pointwise(k, op_, in[0], args_)};
  }
  // rsqrt and reciprocal read their result, the rounding ops nothing.
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    if (op_ == Pw::Rsqrt || op_ == Pw::Reciprocal) return {0, bit(0)};
    if (zero_gradient()) return {};
    return {bit(0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    if (zero_gradient()) return {device::zeros_on(g.sizes(), g.dtype(), g.device())};
    if (op_ == Pw::Rsqrt) return {mul(g, mul_scalar(pow_scalar(ctx.output(0), 3.0), -0.5))};  // -y^3 / 2
    if (op_ == Pw::Reciprocal) {
      const Tensor y = ctx.output(0);
      return {mul(g, neg(mul(y, y)))};  // -y^2
    }
    const Tensor x = ctx.input(0);
    const Tensor zero = device::zeros_on({}, g.dtype(), g.device());
    switch (op_) {
      case Pw::Silu: {  // s (1 + x (1 - s)), s = sigmoid(x)
        const Tensor s = sigmoid(x);
        return {mul(g, mul(s, add_scalar(mul(x, add_scalar(neg(s), 1.0)), 1.0)))};
      }
      case Pw::LeakyRelu:  // x > 0 ? g : g * slope
        return {where(device::greater_mask_any(x, 0.0), g, mul_scalar(g, args_.a))};
      case Pw::Elu:  // x <= 0 ? g * alpha * exp(x) : g
        return {where(device::in_range_mask_any(x, std::nullopt, 0.0), mul(g, mul_scalar(exp(x), args_.a)), g)};
      case Pw::Softplus: {  // x beta > threshold ? g : g * sigmoid(x beta)
        const Tensor xb = mul_scalar(x, args_.a);
        return {where(device::greater_mask_any(xb, args_.b), g, mul(g, sigmoid(xb)))};
      }
      case Pw::Hardtanh:  // x <= min || x >= max ? 0 : g
        return {where(device::in_range_mask_any(x, std::nullopt, args_.a), zero,
                      where(device::in_range_mask_any(x, args_.b, std::nullopt), zero, g))};
      case Pw::Sin: return {mul(g, cos(x))};
      case Pw::Cos: return {mul(g, neg(sin(x)))};
      default: break;
    }
    return {Tensor()};
  }

 private:
  bool zero_gradient() const {
    return op_ == Pw::Floor || op_ == Pw::Ceil || op_ == Pw::Round || op_ == Pw::Trunc || op_ == Pw::Sign;
  }
  Pw op_;
  PwArgs args_;
};

// torch.clamp with tensor bounds (ClampBackward0), inputs {x, lo?, hi?}:
// derivatives.yaml's clamp_backward and clamp_backward_min_max.
class ClampTensor final : public prim::Primitive {
 public:
  ClampTensor(bool has_lo, bool has_hi) : has_lo_(has_lo), has_hi_(has_hi) {}
  const char* name() const override { return "ClampBackward0"; }
  const char* op() const override { return "clamp"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    Shape shape = in[0].sizes();
    for (size_t i = 1; i < in.size(); ++i) shape = broadcast_shapes(shape, in[i].sizes());
    return {{shape, kernels::clamp_tensor_result_dtype(in[0], bounds(in))}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::clamp_tensor(in[0], bounds(in), has_lo_, has_hi_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::clamp_tensor(k, in[0], bounds(in), has_lo_, has_hi_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return {has_lo_ && has_hi_ ? bit(0) | bit(1) | bit(2) : bit(0) | bit(1), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const Tensor zero = device::zeros_on({}, g.dtype(), g.device());
    const Tensor x = ctx.input(0);
    const Tensor lo = has_lo_ ? ctx.input(1) : Tensor();
    const Tensor hi = has_hi_ ? ctx.input(has_lo_ ? 2 : 1) : Tensor();
    Tensors r(1 + size_t(has_lo_) + size_t(has_hi_));
    if (ctx.needs_input_grad(0)) {  // lo <= x <= hi
      Tensor gx = g;
      if (has_hi_) gx = where(le(x, hi), gx, zero);
      if (has_lo_) gx = where(ge(x, lo), gx, zero);
      r[0] = to_input(gx, ctx.input_meta(0));
    }
    if (has_lo_ && ctx.needs_input_grad(1)) {  // x < lo (and lo < hi)
      Tensor gl = has_hi_ ? where(lt(lo, hi), g, zero) : g;
      r[1] = to_input(where(lt(x, lo), gl, zero), ctx.input_meta(1));
    }
    const size_t ih = has_lo_ ? 2 : 1;
    if (has_hi_ && ctx.needs_input_grad(ih)) {  // x > hi, or hi < lo
      Tensor other = has_lo_ ? where(lt(hi, lo), g, zero) : zero;
      r[ih] = to_input(where(gt(x, hi), g, other), ctx.input_meta(ih));
    }
    return r;
  }

 private:
  static std::vector<Tensor> bounds(const Tensors& in) { return {in.begin() + 1, in.end()}; }
  bool has_lo_, has_hi_;
};

Tensor run_pw(Pw op, const Tensor& x, PwArgs args = {}) { return run1<Pointwise>({x}, op, args); }

}  // namespace

Tensor silu(const Tensor& x) { return run_pw(Pw::Silu, x); }
Tensor leaky_relu(const Tensor& x, double negative_slope) { return run_pw(Pw::LeakyRelu, x, {negative_slope, 0.0}); }
Tensor elu(const Tensor& x, double alpha) { return run_pw(Pw::Elu, x, {alpha, 0.0}); }
Tensor softplus(const Tensor& x, double beta, double threshold) { return run_pw(Pw::Softplus, x, {beta, threshold}); }
Tensor hardtanh(const Tensor& x, double min_val, double max_val) { return run_pw(Pw::Hardtanh, x, {min_val, max_val}); }
Tensor sin(const Tensor& x) { return run_pw(Pw::Sin, x); }
Tensor cos(const Tensor& x) { return run_pw(Pw::Cos, x); }
Tensor rsqrt(const Tensor& x) { return run_pw(Pw::Rsqrt, x); }
Tensor reciprocal(const Tensor& x) { return run_pw(Pw::Reciprocal, x); }
Tensor floor(const Tensor& x) { return run_pw(Pw::Floor, x); }
Tensor ceil(const Tensor& x) { return run_pw(Pw::Ceil, x); }
Tensor round(const Tensor& x) { return run_pw(Pw::Round, x); }
Tensor trunc(const Tensor& x) { return run_pw(Pw::Trunc, x); }
Tensor sign(const Tensor& x) { return run_pw(Pw::Sign, x); }
Tensor clamp_tensor(const Tensor& x, const Tensor* lo, const Tensor* hi) {
  TSR_CHECK(lo || hi, TSR_ERR_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensors in{x};
  if (lo) in.push_back(cpu_scalar_to_device_of(*lo, {&x}));
  if (hi) in.push_back(cpu_scalar_to_device_of(*hi, {&x}));
  return run1<ClampTensor>(in, lo != nullptr, hi != nullptr);
}

}  // namespace tsr::ops
