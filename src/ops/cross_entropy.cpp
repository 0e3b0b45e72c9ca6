// nll_loss and cross_entropy (torch.nn.functional).
// nll_loss is one primitive (NllLossBackward0 for [C] and [N, C] input,
// NllLoss2DBackward0 for [N, C, d1, ...]; torch runs 3-dim and >4-dim
// input as 4-dim and views the result back, as here). Its backward is a
// primitive linear in the gradient, whose own backward is the forward
// again (the adjoint), so double backward works.

#include <cmath>

#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/loss.h"
#include "cpu/kernels/map.h"
#include "device/any_device.h"
#include "device/nll_ops.h"
#include "device/select_ops.h"
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

const bool nll_registered = prim::register_op_names({"nll_loss2d", "nll_loss2d_backward"});

class NllLossNdBackwardOp final : public prim::Primitive {
 public:
  NllLossNdBackwardOp(kernels::NllArgs a, Shape logp_sizes) : a_(a), logp_sizes_(std::move(logp_sizes)) {}
  const char* name() const override {
    return logp_sizes_.size() <= 2 ? "NllLossBackwardBackward0" : "NllLoss2DBackwardBackward0";
  }
  const char* op() const override { return logp_sizes_.size() <= 2 ? "nll_loss_backward" : "nll_loss2d_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{logp_sizes_, in[0].dtype(), in[0].device()}};
  }
  // in: grad, logp (unread: as torch's self, it makes the result depend
  // on logp, with a zero derivative), target, weight.
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::nll_loss_nd_backward(in[0], logp_sizes_, in[2], in[3], a_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::nll_loss_nd_backward(k, in[0], logp_sizes_, in[2], in[3], a_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(2) | bit(3), 0}; }
  Tensors backward(const BackwardContext& ctx) override;

 private:
  kernels::NllArgs a_;
  Shape logp_sizes_;
};

class NllLossNdOp final : public prim::Primitive {
 public:
  NllLossNdOp(kernels::NllArgs a, int64_t ndim) : a_(a), ndim_(ndim) {}
  const char* name() const override { return ndim_ <= 2 ? "NllLossBackward0" : "NllLoss2DBackward0"; }
  const char* op() const override { return ndim_ <= 2 ? "nll_loss" : "nll_loss2d"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    Shape s = a_.reduction == LossReduction::None ? in[1].sizes() : Shape{};
    return {{s, in[0].dtype(), in[0].device()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::nll_loss_nd(in[0], in[1], in[2], a_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::nll_loss_nd(k, in[0], in[1], in[2], a_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0) | bit(1) | bit(2), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    ctx.input(0);  // checked like PyTorch, which saves self
    return {run1<NllLossNdBackwardOp>({ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2)}, a_,
                                      ctx.input_meta(0).sizes),
            Tensor(), Tensor()};
  }

 private:
  kernels::NllArgs a_;
  int64_t ndim_;
};

Tensors NllLossNdBackwardOp::backward(const BackwardContext& ctx) {
  const TensorMeta& logp = ctx.input_meta(1);
  return {run1<NllLossNdOp>({ctx.grad(0), ctx.input(2), ctx.input(3)}, a_, int64_t(logp_sizes_.size())),
          ctx.needs_input_grad(1) ? device::zeros_on(logp.sizes, logp.dtype, logp.device) : Tensor(), Tensor(),
          Tensor()};
}

int64_t class_count(const Tensor& input) { return input.ndim() == 1 ? input.sizes()[0] : input.sizes()[1]; }

// weight [C] shaped to broadcast along input's class dim.
Tensor class_weight_view(const Tensor& weight, const Tensor& input) {
  if (input.ndim() <= 1) return weight;
  Shape s(size_t(input.ndim()), 1);
  s[1] = weight.numel();
  return reshape(weight, s);
}

// cross_entropy with class-probability targets (torch 1.13's
// cross_entropy_loss_prob_target).
Tensor cross_entropy_prob(const Tensor& input, const Tensor& target, const Tensor& weight, LossReduction r,
                          int64_t ignore_index, double ls) {
  TSR_CHECK(is_floating(target.dtype()), TSR_ERR_DTYPE_MISMATCH,
            "Expected floating point type for target with class probabilities, got ",
            kernels::scalar_type_name(target.dtype()));
  TSR_CHECK(ignore_index < 0, TSR_ERR_INVALID_ARGUMENT, "ignore_index is not supported for floating point target");
  const int64_t c = class_count(input);
  const int64_t class_dim = input.ndim() == 1 ? 0 : 1;
  if (weight.defined())
    TSR_CHECK(weight.ndim() == 1 && weight.numel() == c, TSR_ERR_SHAPE_MISMATCH,
              "weight tensor should be defined either for all ", c,
              " classes or no classes but got weight tensor of shape: ", weight.sizes());
  Tensor lp = log_softmax(input, class_dim);
  Tensor t = ls > 0 ? add_scalar(mul_scalar(target, 1 - ls), ls / double(c)) : target;
  Tensor terms = mul(lp, t);
  if (weight.defined()) terms = mul(terms, class_weight_view(weight, input));
  switch (r) {
    case LossReduction::None: return neg(sum(terms, {class_dim}, false));
    case LossReduction::Sum: return neg(sum(terms, {}, false));
    case LossReduction::Mean:
      // torch 1.13: an empty input gives -(sum).fill_(nan) (NegBackward0).
      if (input.numel() == 0) return neg(mul_scalar(sum(terms, {}, false), std::nan("")));
      return div_scalar(neg(sum(terms, {}, false)), double(input.numel()) / double(c));
  }
  return Tensor();
}

}  // namespace

Tensor nll_loss(const Tensor& input_arg, const Tensor& target_arg, const Tensor& weight_arg, int reduction,
                int64_t ignore_index) {
  const TensorList cast = autocast::cast_inputs("nll_loss", {input_arg, target_arg, weight_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  const Tensor& weight = cast[2];
  kernels::NllArgs a{checked_reduction(reduction), ignore_index};
  kernels::check_nll_nd_args(input, target, weight);
  const int64_t nd = input.ndim();
  if (nd <= 2 || nd == 4) return run1<NllLossNdOp>({input, target, weight}, a, nd);
  // 3-dim and >4-dim: as [N, C, S, 1], the loss viewed back.
  const int64_t n = input.sizes()[0], c = input.sizes()[1];
  const int64_t s = n * c == 0 ? 0 : input.numel() / (n * c);
  Tensor out = run1<NllLossNdOp>({reshape(input, {n, c, s, 1}), reshape(target, {n, s, 1}), weight}, a, int64_t(4));
  return a.reduction == LossReduction::None ? view(out, target.sizes()) : out;
}

Tensor cross_entropy(const Tensor& input_arg, const Tensor& target_arg, const Tensor& weight_arg,
                     int reduction, int64_t ignore_index, double label_smoothing) {
  LossReduction r = checked_reduction(reduction);
  const prim::Tensors cast =
      autocast::cast_inputs("cross_entropy_loss", {input_arg, target_arg, weight_arg});
  const Tensor& input = cast[0];
  const Tensor& target = cast[1];
  const Tensor& weight = cast[2];
  TSR_CHECK(label_smoothing >= 0 && label_smoothing <= 1, TSR_ERR_INVALID_ARGUMENT,
            "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  TSR_CHECK(input.ndim() >= 1, TSR_ERR_SHAPE_MISMATCH, "Expected 1 or more dimensions (got ", input.ndim(), ")");
  if (input.sizes() == target.sizes())
    return cross_entropy_prob(input, target, weight, r, ignore_index, label_smoothing);
  const int64_t class_dim = input.ndim() == 1 ? 0 : 1;
  kernels::check_nll_nd_args(input, target, weight);
  Tensor lp = log_softmax(input, class_dim);
  Tensor nll = nll_loss(lp, target, weight, reduction, ignore_index);
  if (label_smoothing == 0) return nll;
  // torch 1.13: (1 - ls) nll + ls / C * smooth, smooth = -sum over classes
  // of (weighted) log-probabilities, 0 at ignored targets, mean over the
  // total weight of the others.
  const int64_t c = class_count(input);
  Tensor terms = weight.defined() ? mul(lp, class_weight_view(weight, input)) : lp;
  Tensor smooth = neg(sum(terms, {class_dim}, false));
  Tensor ignored = device::eq_scalar_mask_any(target, double(ignore_index));
  smooth = where(ignored, device::zeros_on({}, smooth.dtype(), smooth.device()), smooth);
  if (r == LossReduction::Sum) smooth = sum(smooth, {}, false);
  if (r == LossReduction::Mean)
    smooth = mul_scalar(sum(smooth, {}, false), 1.0 / device::nll_total_weight_any(target, weight, c, ignore_index));
  return add(mul_scalar(nll, 1 - label_smoothing), mul_scalar(smooth, label_smoothing / double(c)));
}

}  // namespace tsr::ops
