// The convolution primitive: torch.nn.functional.conv2d as one node,
// ConvolutionBackward0 (torch 1.13's grad_fn for conv2d on the CPU), with
// gradients for input, weight and bias from a ConvolutionBackward primitive
// (oneDNN's backward-data / backward-weights in float32 and bfloat16; float16
// widened to float32 and rounded once).
#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "device/cnn.h"
#include "cpu/kernels/cnn.h"
#include "ops/cnn.h"
#include "ops/grad_util.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using kernels::Conv2dArgs;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"convolution", "convolution_backward"});

// inputs {grad_out, x or undefined, weight or undefined}: x is given when
// the weight's gradient is needed, weight when the input's is. Outputs: the
// needed gradients, in the order input, weight, bias.
//
// Its own backward (torch's _convolution_double_backward): the outputs are
// bilinear, gx = A(g, w), gw = B(g, x), gb = sum(g), so with incoming
// gradients ggx, ggw, ggb:
//   d/dg = conv2d(ggx, w) + conv2d(x, ggw) + ggb broadcast over N, H, W
//   d/dx = A(g, ggw)   (the input-gradient formula with ggw as the weight)
//   d/dw = B(g, ggx)   (the weight-gradient formula with ggx as the input)
class ConvolutionBackward final : public prim::Primitive {
 public:
  ConvolutionBackward(Conv2dArgs a, tsr_memory_format fmt, Shape x_sizes, Shape w_sizes, bool nx, bool nw, bool nb)
      : a_(a), fmt_(fmt), x_sizes_(std::move(x_sizes)), w_sizes_(std::move(w_sizes)), nx_(nx), nw_(nw), nb_(nb) {}
  const char* name() const override { return "ConvolutionBackwardBackward0"; }
  const char* op() const override { return "convolution_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    std::vector<TensorMeta> m;
    const tsr_dtype d = in[0].dtype();
    if (nx_) m.push_back({x_sizes_, d});
    if (nw_) m.push_back({w_sizes_, d});
    if (nb_) m.push_back({{w_sizes_[0]}, d});
    return m;
  }
  Tensors eval_cpu(const Tensors& in) override {
    Tensor g = kernels::dense_in(in[0], fmt_);
    Tensor x = in[1].defined() ? kernels::dense_in(in[1], fmt_) : Tensor();
    Tensor w = in[2].defined() ? kernels::dense_in(in[2], fmt_) : Tensor();
    return outputs(kernels::conv2d_backward(g, x, w, x_sizes_, w_sizes_, a_, fmt_, nx_, nw_, nb_));
  }
  // cuDNN's backward-data and backward-filter (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return outputs(device::conv2d_backward(k, in[0], in[1], in[2], x_sizes_, w_sizes_, a_, fmt_, nx_, nw_, nb_));
  }
  // g always; x and weight where given (x with the weight's gradient, the
  // weight with the input's).
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return {bit(0) | (nw_ ? bit(1) : 0) | (nx_ ? bit(2) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override;

 private:
  Tensors outputs(const kernels::ConvGrads& r) const {
    Tensors out;
    if (nx_) out.push_back(r.input);
    if (nw_) out.push_back(r.weight);
    if (nb_) out.push_back(r.bias);
    return out;
  }

  Conv2dArgs a_;
  tsr_memory_format fmt_;
  Shape x_sizes_, w_sizes_;
  bool nx_, nw_, nb_;
};

// The gradients of conv2d (first order), through the primitive above.
kernels::ConvGrads conv_grads(const Tensor& g, const Tensor& x, const Tensor& w, const Conv2dArgs& a,
                              tsr_memory_format fmt, const Shape& x_sizes, const Shape& w_sizes, bool nx, bool nw,
                              bool nb) {
  Tensors r = autograd::run(std::make_shared<ConvolutionBackward>(a, fmt, x_sizes, w_sizes, nx, nw, nb),
                            {g, nw ? x : Tensor(), nx ? w : Tensor()});
  size_t k = 0;
  kernels::ConvGrads out;
  if (nx) out.input = r[k++];
  if (nw) out.weight = r[k++];
  if (nb) out.bias = r[k++];
  return out;
}

Tensors ConvolutionBackward::backward(const BackwardContext& ctx) {
  size_t k = 0;
  const Tensor ggx = nx_ ? ctx.grad(k++) : Tensor();
  const Tensor ggw = nw_ ? ctx.grad(k++) : Tensor();
  const Tensor ggb = nb_ ? ctx.grad(k++) : Tensor();
  const Tensor g = ctx.input(0);
  const Tensor x = nw_ ? ctx.input(1) : Tensor();
  const Tensor w = nx_ ? ctx.input(2) : Tensor();
  Tensor dg, dx, dw;
  if (ctx.needs_input_grad(0)) {
    auto acc = [&](Tensor t) { dg = dg.defined() ? add(dg, t) : t; };
    if (nx_) acc(conv2d(ggx, w, Tensor(), a_));
    if (nw_) acc(conv2d(x, ggw, Tensor(), a_));
    if (nb_) acc(expand(reshape(ggb, {1, w_sizes_[0], 1, 1}), g.sizes()));
  }
  if (nw_ && ctx.needs_input_grad(1))
    dx = conv_grads(g, Tensor(), ggw, a_, fmt_, x_sizes_, w_sizes_, true, false, false).input;
  if (nx_ && ctx.needs_input_grad(2))
    dw = conv_grads(g, ggx, Tensor(), a_, fmt_, x_sizes_, w_sizes_, false, true, false).weight;
  return {dg, dx, dw};
}

class Convolution final : public prim::Primitive {
 public:
  Convolution(Conv2dArgs a, tsr_memory_format fmt) : a_(a), fmt_(fmt) {}
  const char* name() const override { return "ConvolutionBackward0"; }
  const char* op() const override { return "convolution"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::conv2d_output_sizes(in[0], in[1], in[2], a_), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    kernels::conv2d_output_sizes(in[0], in[1], in[2], a_);  // checks before any copy
    Tensor b = in[2].defined() ? kernels::dense_in(in[2], fmt_) : Tensor();
    return {kernels::conv2d(kernels::dense_in(in[0], fmt_), kernels::dense_in(in[1], fmt_), b, a_, fmt_)};
  }
  // cuDNN's forward, then the bias added (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::conv2d(k, in[0], in[1], in[2], a_, fmt_)};
  }
  // x for the weight's gradient, weight for the input's.
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {(rg[1] ? bit(0) : 0) | (rg[0] ? bit(1) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const bool nx = ctx.needs_input_grad(0), nw = ctx.needs_input_grad(1), nb = ctx.needs_input_grad(2);
    if (!nx && !nw && !nb) return {Tensor(), Tensor(), Tensor()};
    Tensor x = nw ? ctx.input(0) : Tensor();
    Tensor w = nx ? ctx.input(1) : Tensor();
    kernels::ConvGrads r =
        conv_grads(ctx.grad(0), x, w, a_, fmt_, ctx.input_meta(0).sizes, ctx.input_meta(1).sizes, nx, nw, nb);
    return {r.input, r.weight, r.bias};
  }

 private:
  Conv2dArgs a_;
  tsr_memory_format fmt_;
};

}  // namespace

Tensor conv2d(const Tensor& x_arg, const Tensor& weight_arg, const Tensor& bias_arg, const Conv2dArgs& a) {
  const TensorList cast = autocast::cast_inputs("conv2d", {x_arg, weight_arg, bias_arg});
  const Tensor& x = cast[0];
  const Tensor& weight = cast[1];
  const Tensor& bias = cast[2];
  // Unbatched [C, H, W] input: torch's conv2d unsqueezes it to a batch of
  // one and squeezes the result (grad_fn SqueezeBackward1), so does this.
  if (x.defined() && x.ndim() == 3) return squeeze_dim(conv2d(unsqueeze(x, 0), weight, bias, a), 0);
  // Checked here as well, so that the format rule below reads 4-D tensors.
  kernels::conv2d_output_sizes(x, weight, bias, a);
  // The output's format is the backend's: the CPU's (oneDNN, or the native
  // kernels per group) or cuDNN's on any other device.
  const tsr_memory_format fmt = x.device().type == TSR_DEVICE_CPU ? kernels::conv_format(x, weight, a)
                                                                   : kernels::cudnn_conv_format(x, weight);
  return autograd::run1<Convolution>({x, weight, bias}, a, fmt);
}

}  // namespace tsr::ops
