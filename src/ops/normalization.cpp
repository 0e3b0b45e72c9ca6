// Normalisation primitives: softmax (SoftmaxBackward0) and layer_norm
// (NativeLayerNormBackward0, gradients for x, weight and bias). Backward:
// ATen's fused kernels with grad mode off; under create_graph the same
// formulas in differentiable ops (layer_norm recomputes mean and rstd from
// x with ops, so its double backward reaches x through them).
#include "primitive/op_names.h"
#include "autograd/grad_mode.h"
#include "autograd/run.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/normalization.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "device/select_ops.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"softmax", "layer_norm"});


class Softmax final : public prim::Primitive {
 public:
  explicit Softmax(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "SoftmaxBackward0"; }
  const char* op() const override { return "softmax"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_softmax_dtype(in[0], dim_);
    return {prim::meta_of(in[0])};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::softmax(in[0], dim_)}; }
  // The row kernel log_softmax uses, without the log (DeviceKernels::softmax).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::softmax(k, in[0], dim_, false)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(0)}; }
  // y * (g - sum(g * y, dim)): one fused CPU kernel, or (on a device, or
  // under create_graph) the same formula in differentiable ops.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor y = ctx.output(0);
    if (!autograd::is_grad_enabled() && g.device().type == TSR_DEVICE_CPU)
      return {kernels::softmax_backward(g, y, dim_)};
    Shape dims;
    if (y.ndim() > 0) dims.push_back(dim_);
    return {mul(y, sub(g, sum(mul(g, y), dims, true)))};
  }

 private:
  int64_t dim_;  // wrapped
};

class LayerNorm final : public prim::Primitive {
 public:
  LayerNorm(Shape normalized_shape, double eps) : shape_(std::move(normalized_shape)), eps_(eps) {}
  const char* name() const override { return "NativeLayerNormBackward0"; }
  const char* op() const override { return "layer_norm"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_layer_norm(in[0], shape_, in[1], in[2]);
    return {prim::meta_of(in[0])};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::layer_norm(in[0], shape_, in[1], in[2], eps_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::layer_norm(k, in[0], shape_, in[1], in[2], eps_)};
  }
  // x for every gradient; weight for x's.
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {bit(0) | (rg[0] ? bit(1) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor x = ctx.input(0);
    Tensor w = ctx.needs_input_grad(0) ? ctx.input(1) : Tensor();
    const bool nx = ctx.needs_input_grad(0), nw = ctx.needs_input_grad(1), nb = ctx.needs_input_grad(2);
    if (!autograd::is_grad_enabled() && g.device().type == TSR_DEVICE_CPU) {
      auto r = kernels::layer_norm_backward(g, x, shape_, w, eps_, nx, nw, nb);
      return {r.x, r.weight, r.bias};
    }
    // xhat = (x - mean) * rstd over the normalised dims, in ops (on a
    // device also without create_graph: its kernels are these ops').
    // mean and rstd are recomputed in x's dtype, where ATen's fused kernel
    // keeps them in the accumulation type: within rounding of the CPU's.
    Shape dims;
    for (int64_t i = 0; i < int64_t(shape_.size()); ++i) dims.push_back(x.ndim() - 1 - i);
    Tensor xc = sub(x, mean(x, dims, true));
    Tensor var = mean(mul(xc, xc), dims, true);
    Tensor one = device::zeros_on({}, x.dtype(), x.device());
    device::fill_any(one, 1.0);
    Tensor rstd = div(one, sqrt(add_scalar(var, eps_)));
    Tensor xhat = mul(xc, rstd);
    Tensor gx, gw, gb;
    if (nx) {
      Tensor dy = w.defined() ? mul(g, w) : g;
      gx = mul(rstd, sub(sub(dy, mean(dy, dims, true)), mul(xhat, mean(mul(dy, xhat), dims, true))));
    }
    if (nw) gw = sum_to_size(mul(g, xhat), shape_);
    if (nb) gb = sum_to_size(g, shape_);
    return {gx, gw, gb};
  }

 private:
  Shape shape_;
  double eps_;
};

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim) { return run1<Softmax>({x}, wrap_dim(dim, x.ndim())); }

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return run1<LayerNorm>({x, weight, bias}, normalized_shape, eps);
}

}  // namespace tsr::ops
