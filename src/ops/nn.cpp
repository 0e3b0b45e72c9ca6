// Neural-network primitives: log_softmax and nll_loss (cross_entropy =
// nll_loss(log_softmax(x, 1)), as torch.nn.functional.cross_entropy).
#include "primitive/op_names.h"
#include "autograd/grad_mode.h"
#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "device/device_ops.h"
#include "cpu/kernels/nn.h"
#include "ops/grad_util.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"log_softmax", "nll_loss", "nll_loss_backward"});


class LogSoftmax final : public prim::Primitive {
 public:
  explicit LogSoftmax(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "LogSoftmaxBackward0"; }
  const char* op() const override { return "log_softmax"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {prim::meta_of(in[0])}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::log_softmax(in[0], dim_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::softmax(k, in[0], dim_, true)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(0)}; }
  // grad - exp(output) * sum(grad, dim): one fused kernel, or (under
  // create_graph) the same formula in differentiable ops.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor out = ctx.output(0);
    if (!autograd::is_grad_enabled() && g.device().type == TSR_DEVICE_CPU)
      return {kernels::log_softmax_backward(g, out, dim_)};
    if (!autograd::is_grad_enabled())
      return {device::log_softmax_backward(device::kernels_for(g.device()), g, out, dim_)};
    Shape dims;
    if (out.ndim() > 0) dims.push_back(dim_);
    return {sub(g, mul(exp(out), sum(g, dims, true)))};
  }

 private:
  int64_t dim_;
};

// nll_loss's backward, linear in its gradient: its own backward is
// nll_loss of the incoming gradient.
class NllLossBackwardOp final : public prim::Primitive {
 public:
  explicit NllLossBackwardOp(Shape logp_sizes) : logp_sizes_(std::move(logp_sizes)) {}
  const char* name() const override { return "NllLossBackwardBackward0"; }
  const char* op() const override { return "nll_loss_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{logp_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::nll_loss_backward(in[0], logp_sizes_, in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::nll_loss_backward(k, in[0], logp_sizes_, in[1])};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override { return {nll_loss(ctx.grad(0), ctx.input(1)), Tensor()}; }

 private:
  Shape logp_sizes_;
};

class NllLoss final : public prim::Primitive {
 public:
  const char* name() const override { return "NllLossBackward0"; }
  const char* op() const override { return "nll_loss"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{{}, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::nll_loss(in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::nll_loss(k, in[0], in[1])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0) | bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    ctx.input(0);  // checked like PyTorch, which saves self
    return {run1<NllLossBackwardOp>({ctx.grad(0), ctx.input(1)}, ctx.input_meta(0).sizes), Tensor()};
  }
};

}  // namespace

Tensor log_softmax(const Tensor& a, int64_t dim) { return run1<LogSoftmax>({a}, wrap_dim(dim, a.ndim())); }

Tensor nll_loss(const Tensor& logp, const Tensor& target) {
  return run1<NllLoss>(autocast::cast_inputs("nll_loss", {logp, target}));
}

Tensor cross_entropy(const Tensor& logits_arg, const Tensor& target) {
  const Tensor logits = autocast::cast_inputs("cross_entropy_loss", {logits_arg, target})[0];
  TSR_CHECK(logits.ndim() == 2, TSR_ERR_SHAPE_MISMATCH,
            "cross_entropy: expected logits of 2 dims [N, C], got ", logits.sizes());
  TSR_CHECK(is_floating(logits.dtype()), TSR_ERR_DTYPE_MISMATCH,
            "cross_entropy: expected floating logits, got ", dtype_name(logits.dtype()));
  return nll_loss(log_softmax(logits, 1), target);
}

}  // namespace tsr::ops
