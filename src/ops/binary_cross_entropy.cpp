// binary_cross_entropy and binary_cross_entropy_with_logits.
// One primitive each (torch's native ops). weight and pos_weight are
// expanded to input's sizes first (ones when absent); torch gives them no
// gradient. Backward formulas from derivatives.yaml, in differentiable ops.

#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/loss.h"
#include "cpu/kernels/map.h"
#include "device/any_device.h"
#include "device/loss_ops.h"
#include "ops/loss.h"
#include "ops/loss_util.h"
#include "ops/math.h"
#include "ops/grad_util.h"
#include "ops/layout.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using autograd::run1;
using kernels::LossReduction;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool bce_registered = prim::register_op_names({"binary_cross_entropy", "binary_cross_entropy_with_logits"});

// The elementwise gradient g (expanded; / numel for mean).
Tensor loss_grad(const Tensor& g, const Shape& sizes, LossReduction r) {
  if (r == LossReduction::None) return g;
  Tensor e = expand(g, sizes);
  double n = 1;
  for (int64_t s : sizes) n *= double(s);
  return r == LossReduction::Mean ? mul_scalar(e, 1.0 / n) : e;
}

class BinaryCrossEntropyOp final : public prim::Primitive {
 public:
  explicit BinaryCrossEntropyOp(LossReduction r) : r_(r) {}
  const char* name() const override { return "BinaryCrossEntropyBackward0"; }
  const char* op() const override { return "binary_cross_entropy"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    if (r_ == LossReduction::None) return {prim::meta_of(in[0])};
    return {{{}, in[0].dtype(), in[0].device()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::reduce_loss(kernels::binary_cross_entropy(in[0], in[1], in[2]), r_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::binary_cross_entropy(k, in[0], in[1], in[2], r_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0) | bit(1) | bit(2), 0}; }
  // input: g w (x - t) / max(x (1 - x), 1e-12); target: -g w logit(x).
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor x = ctx.input(0), t = ctx.input(1), w = ctx.input(2);
    Tensor gw = mul(loss_grad(ctx.grad(0), x.sizes(), r_), w);
    Tensor gx, gt;
    if (ctx.needs_input_grad(0))
      gx = div(mul(gw, sub(x, t)), clamp(mul(x, add_scalar(neg(x), 1.0)), 1e-12, std::nullopt));
    if (ctx.needs_input_grad(1)) gt = neg(mul(gw, sub(log(x), log(add_scalar(neg(x), 1.0)))));
    return {gx, gt, Tensor()};
  }

 private:
  LossReduction r_;
};

// log(sigmoid(x)) = -(m + log(exp(-m) + exp(-x - m))), m = max(-x, 0).
Tensor log_sigmoid(const Tensor& x) {
  Tensor m = clamp(neg(x), 0.0, std::nullopt);
  return neg(add(m, log(add(exp(neg(m)), exp(sub(neg(x), m))))));
}

class BceWithLogitsOp final : public prim::Primitive {
 public:
  BceWithLogitsOp(LossReduction r, bool has_pos_weight) : r_(r), pos_(has_pos_weight) {}
  const char* name() const override { return "BinaryCrossEntropyWithLogitsBackward0"; }
  const char* op() const override { return "binary_cross_entropy_with_logits"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    if (r_ == LossReduction::None) return {prim::meta_of(in[0])};
    return {{{}, in[0].dtype(), in[0].device()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::reduce_loss(kernels::bce_with_logits(in[0], in[1], in[2], in[3]), r_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::bce_with_logits(k, in[0], in[1], in[2], in[3], r_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return {bit(0) | bit(1) | bit(2) | bit(3), 0};
  }
  // input: g w ((pw t + 1 - t) sigmoid(x) - pw t); target: g w
  // (log_sigmoid(-x) - pw log_sigmoid(x)) (without pos_weight: -g w x).
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor x = ctx.input(0), t = ctx.input(1), w = ctx.input(2), pw = ctx.input(3);
    Tensor gw = mul(loss_grad(ctx.grad(0), x.sizes(), r_), w);
    Tensor gx, gt;
    if (ctx.needs_input_grad(0)) {
      if (pos_) {
        Tensor pt = mul(pw, t);
        gx = mul(gw, sub(mul(sub(add_scalar(pt, 1.0), t), sigmoid(x)), pt));
      } else {
        gx = mul(gw, sub(sigmoid(x), t));
      }
    }
    if (ctx.needs_input_grad(1))
      gt = pos_ ? mul(gw, sub(log_sigmoid(neg(x)), mul(log_sigmoid(x), pw))) : neg(mul(gw, x));
    return {gx, gt, Tensor(), Tensor()};
  }

 private:
  LossReduction r_;
  bool pos_;
};

// weight (or pos_weight) as an operand of input's sizes and dtype: ones
// when undefined, else broadcast against `against` (torch's operand order
// for its message) and expanded.
Tensor weight_operand(const Tensor& weight, const Tensor& input, const Tensor& against, bool weight_first) {
  if (!weight.defined()) {
    const Tensor one = device::zeros_on({}, input.dtype(), input.device());
    device::fill_any(one, 1.0);
    return expand(one, input.sizes());
  }
  Shape s = weight_first ? broadcast_shapes(weight.sizes(), against.sizes())
                         : broadcast_shapes(against.sizes(), weight.sizes());
  TSR_CHECK(s == input.sizes(), TSR_ERR_SHAPE_MISMATCH, "weight of sizes ", weight.sizes(),
            " broadcasts to ", s, ", not to input's sizes ", input.sizes());
  Tensor w = weight.dtype() == input.dtype() ? weight : to_dtype(weight, input.dtype());
  return w.sizes() == s ? w : expand(w, s);
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& input_arg, const Tensor& target_arg, const Tensor& weight_arg,
                            int reduction) {
  const TensorList cast = autocast::cast_inputs("binary_cross_entropy", {input_arg, target_arg, weight_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  const Tensor& weight = cast[2];
  LossReduction r = checked_reduction(reduction);
  TSR_CHECK(input.sizes() == target.sizes(), TSR_ERR_SHAPE_MISMATCH, "Using a target size (", target.sizes(),
            ") that is different to the input size (", input.sizes(),
            ") is deprecated. Please ensure they have the same size.");
  device::check_bce_args_any(input, target);
  if (weight.defined())
    TSR_CHECK(weight.dtype() == input.dtype(), TSR_ERR_DTYPE_MISMATCH, "Found dtype ",
              kernels::scalar_type_name(weight.dtype()), " but expected ", kernels::scalar_type_name(input.dtype()));
  Tensor w = weight_operand(weight, input, target, false);
  return run1<BinaryCrossEntropyOp>({input, target, w}, r);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input_arg, const Tensor& target_arg,
                                        const Tensor& weight_arg, const Tensor& pos_weight_arg, int reduction) {
  const TensorList cast = autocast::cast_inputs("binary_cross_entropy_with_logits", {input_arg, target_arg, weight_arg, pos_weight_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  const Tensor& weight = cast[2];
  const Tensor& pos_weight = cast[3];
  LossReduction r = checked_reduction(reduction);
  TSR_CHECK(input.sizes() == target.sizes(), TSR_ERR_SHAPE_MISMATCH, "Target size (", target.sizes(),
            ") must be the same as input size (", input.sizes(), ")");
  kernels::check_bce_logits_dtype(input.dtype());
  Tensor t = target.dtype() == input.dtype() ? target : to_dtype(target, input.dtype());
  Tensor w = weight_operand(weight, input, input, false);
  Tensor pw = weight_operand(pos_weight, input, target, true);
  return run1<BceWithLogitsOp>({input, t, w, pw}, r, pos_weight.defined());
}

}  // namespace tsr::ops
