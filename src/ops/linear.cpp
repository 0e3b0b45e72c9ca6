// The linear primitive: torch.nn.functional.linear, y = x @ weight^T + bias,
// as one node. Its name is the grad_fn torch 1.13's at::linear leaves: it
// runs addmm for 2-D x with a bias (AddmmBackward0), addmm then view for
// contiguous 3-D x with a bias (ViewBackward0), else matmul (MmBackward0,
// SqueezeBackward3 for 1-D x, UnsafeViewBackward0 for folded >2-D x)
// followed by an in-place add of the bias (AddBackward0).
#include "primitive/op_names.h"
#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "core/layout.h"
#include "device/device_ops.h"
#include "cpu/kernels/linear.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"
#include "ops/views.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"linear"});


class Linear final : public prim::Primitive {
 public:
  Linear(const Tensor& x, bool has_bias) : name_(torch_name(x, has_bias)) {}
  const char* name() const override { return name_; }
  const char* op() const override { return "linear"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::linear_sizes(in[0], in[1], in[2]), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::linear(in[0], in[1], in[2])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::linear(k, in[0], in[1], in[2])};
  }
  // x is read for weight's gradient, weight for x's; bias's gradient needs
  // neither.
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {(rg[1] ? bit(0) : 0) | (rg[0] ? bit(1) : 0), 0};
  }
  // With g2 = g as [M, N] and x2 = x as [M, K]: grad_x = g2 @ weight,
  // grad_weight = g2^T @ x2, grad_bias = g summed to bias's sizes.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const TensorMeta& mx = ctx.input_meta(0);
    const int64_t N = g.sizes().back(), K = mx.sizes.back();
    int64_t M = 1;
    for (size_t i = 0; i + 1 < mx.sizes.size(); ++i) M *= mx.sizes[i];
    Tensor g2 = reshape(g, {M, N});
    Tensor gx, gw, gb;
    // As linears (g2 @ W = linear(g2, W^T)): bfloat16 works too, and the
    // transposes reach BLAS as flags, never as copies.
    if (ctx.needs_input_grad(0)) gx = reshape(linear(g2, t(ctx.input(1)), Tensor()), mx.sizes);
    if (ctx.needs_input_grad(1)) gw = linear(t(g2), t(reshape(ctx.input(0), {M, K})), Tensor());
    if (ctx.needs_input_grad(2)) gb = sum_to_size(g, ctx.input_meta(2).sizes);
    return {gx, gw, gb};
  }

 private:
  static const char* torch_name(const Tensor& x, bool has_bias) {
    const int64_t d = x.ndim();
    if (has_bias) {
      if (d == 2) return "AddmmBackward0";
      if (d == 3 && is_contiguous_strides(x.sizes(), x.strides())) return "ViewBackward0";
      return "AddBackward0";
    }
    if (d == 1) return "SqueezeBackward3";
    if (d == 2) return "MmBackward0";
    return "UnsafeViewBackward0";
  }

  const char* name_;
};

}  // namespace

Tensor linear(const Tensor& x_arg, const Tensor& weight_arg, const Tensor& bias_arg) {
  const TensorList cast = autocast::cast_inputs("linear", {x_arg, weight_arg, bias_arg});
  const Tensor& x = cast[0];
  const Tensor& weight = cast[1];
  const Tensor& bias = cast[2];
  return autograd::run1<Linear>({x, weight, bias}, x, bias.defined());
}

}  // namespace tsr::ops
