// Losses: mse/smooth_l1/huber are one primitive each (torch's native ops
// with their own backward); the operands are first broadcast with expand,
// as torch.nn.functional does, so the primitive sees equal shapes and the
// gradient of a broadcast operand is summed by ExpandBackward. l1_loss and
// kl_div are compositions, as in torch 1.13.
#include "ops/loss.h"
#include "ops/loss_util.h"

#include <cmath>

#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/compare.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/loss.h"
#include "cpu/kernels/map.h"
#include "device/any_device.h"
#include "device/loss_ops.h"
#include "ops/compare.h"
#include "ops/math.h"
#include "ops/grad_util.h"
#include "ops/layout.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using autograd::run1;
using kernels::LossReduction;
using kernels::PointwiseLoss;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

// Shared by the loss files (ops/loss_util.h).
LossReduction checked_reduction(int r) {
  TSR_CHECK(r >= 0 && r <= 2, TSR_ERR_INVALID_ARGUMENT, r, " is not a valid value for reduction");
  return LossReduction(r);
}

namespace {

const bool registered = prim::register_op_names({"mse_loss", "smooth_l1_loss", "huber_loss"});

Tensor reduce(const Tensor& l, LossReduction r) {
  if (r == LossReduction::None) return l;
  return r == LossReduction::Mean ? mean(l, {}, false) : sum(l, {}, false);
}

// tensor / number: torch's DivBackward1 (the Scalar overload), as
// torch 1.13's C++ losses divide.
class DivScalarOp final : public prim::Primitive {
 public:
  explicit DivScalarOp(double s) : s_(s) {}
  const char* name() const override { return "DivBackward1"; }
  const char* op() const override { return "div"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {prim::meta_of(in[0])}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::div_scalar(in[0], s_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::div_scalar(k, in[0], s_)}; }
  Tensors backward(const BackwardContext& ctx) override { return {run1<DivScalarOp>({ctx.grad(0)}, s_)}; }

 private:
  double s_;
};

class PointwiseLossOp final : public prim::Primitive {
 public:
  PointwiseLossOp(PointwiseLoss kind, LossReduction r, double param) : kind_(kind), r_(r), param_(param) {}
  const char* name() const override {
    switch (kind_) {
      case PointwiseLoss::Mse: return "MseLossBackward0";
      case PointwiseLoss::SmoothL1: return "SmoothL1LossBackward0";
      case PointwiseLoss::Huber: return "HuberLossBackward0";
    }
    return "";
  }
  const char* op() const override {
    switch (kind_) {
      case PointwiseLoss::Mse: return "mse_loss";
      case PointwiseLoss::SmoothL1: return "smooth_l1_loss";
      case PointwiseLoss::Huber: return "huber_loss";
    }
    return "";
  }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    if (r_ == LossReduction::None) return {prim::meta_of(in[0])};
    return {{{}, in[0].dtype(), in[0].device()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::reduce_loss(kernels::pointwise_loss(kind_, in[0], in[1], param_), r_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::pointwise_loss(k, kind_, in[0], in[1], param_, r_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0) | bit(1), 0}; }
  // derivatives.yaml: grad_input = dloss/dd * grad (/ numel for mean),
  // grad_target = -grad_input; dloss/dd is 2d, where(|d| < beta, d/beta,
  // sign d) or where(|d| <= delta, d, delta sign d). The masks and signs
  // are constant pieces, d and grad stay differentiable.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor x = ctx.input(0), y = ctx.input(1);
    const Tensor d = sub(x, y);
    Tensor g = ctx.grad(0);
    if (r_ != LossReduction::None) g = expand(g, x.sizes());
    if (r_ == LossReduction::Mean) g = mul_scalar(g, 1.0 / double(x.numel()));
    Tensor dl;
    switch (kind_) {
      case PointwiseLoss::Mse: dl = mul_scalar(d, 2.0); break;
      case PointwiseLoss::SmoothL1:
        dl = param_ == 0 ? device::sign_any(d)
                         : where(device::abs_below_any(d, param_, false), mul_scalar(d, 1.0 / param_),
                                 device::sign_any(d));
        break;
      case PointwiseLoss::Huber:
        dl = where(device::abs_below_any(d, param_, true), d, device::mul_scalar_any(device::sign_any(d), param_));
        break;
    }
    Tensor gx = mul(dl, g);
    Tensor gy = ctx.needs_input_grad(1) ? neg(gx) : Tensor();
    return {ctx.needs_input_grad(0) ? gx : Tensor(), gy};
  }

 private:
  PointwiseLoss kind_;
  LossReduction r_;
  double param_;
};


Tensor pointwise(PointwiseLoss kind, const char* op, const Tensor& input_arg, const Tensor& target_arg,
                 int reduction, double param, bool promote) {
  const TensorList cast = autocast::cast_inputs(op, {input_arg, target_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  LossReduction r = checked_reduction(reduction);
  // huber_loss keeps input's dtype; mse and smooth_l1 promote.
  tsr_dtype dt = promote ? promote_types(input.dtype(), target.dtype()) : input.dtype();
  kernels::check_pointwise_loss_dtype(kind, op, dt);
  Shape shape = broadcast_shapes(input.sizes(), target.sizes());
  Tensor x = input.dtype() == dt ? input : to_dtype(input, dt);
  Tensor y = target.dtype() == dt ? target : to_dtype(target, dt);
  if (x.sizes() != shape) x = expand(x, shape);
  if (y.sizes() != shape) y = expand(y, shape);
  return run1<PointwiseLossOp>({x, y}, kind, r, param);
}

}  // namespace

Tensor div_scalar(const Tensor& a, double s) { return run1<DivScalarOp>({a}, s); }

Tensor mse_loss(const Tensor& input, const Tensor& target, int reduction) {
  return pointwise(PointwiseLoss::Mse, "mse_loss", input, target, reduction, 0.0, true);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int reduction, double beta) {
  TSR_CHECK(beta >= 0, TSR_ERR_INVALID_ARGUMENT, "smooth_l1_loss does not support negative values for beta.");
  return pointwise(PointwiseLoss::SmoothL1, "smooth_l1_loss", input, target, reduction, beta, true);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, int reduction, double delta) {
  TSR_CHECK(delta > 0, TSR_ERR_INVALID_ARGUMENT, "huber_loss does not support non-positive values for delta.");
  return pointwise(PointwiseLoss::Huber, "huber_loss", input, target, reduction, delta, false);
}

Tensor l1_loss(const Tensor& input_arg, const Tensor& target_arg, int reduction) {
  LossReduction r = checked_reduction(reduction);
  const prim::Tensors cast = autocast::cast_inputs("l1_loss", {input_arg, target_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  return reduce(abs(sub(input, target)), r);
}

// torch 1.13: log_target ? exp(target) * (target - input)
//                        : xlogy(target, target) - target * input,
// xlogy(t, t) being 0 where t == 0.
Tensor kl_div(const Tensor& input_arg, const Tensor& target_arg, int reduction, bool log_target) {
  LossReduction r = checked_reduction(reduction);
  const prim::Tensors cast = autocast::cast_inputs("kl_div", {input_arg, target_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  Tensor l;
  if (log_target) {
    l = mul(exp(target), sub(target, input));
  } else {
    Tensor zero = device::mul_scalar_any(device::sign_any(target), 0.0);
    Tensor xlogy = where(eq(target, zero), zero, mul(target, log(target)));
    l = sub(xlogy, mul(target, input));
  }
  return reduce(l, r);
}

}  // namespace tsr::ops
