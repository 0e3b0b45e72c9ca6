// The batch norm primitive: F.batch_norm as one node,
// NativeBatchNormBackward0 (torch 1.13's grad_fn on the CPU, training and
// evaluation alike). Outputs: the result, and the per-channel mean and
// variance the backward reads (torch keeps save_mean / save_invstd; the
// variance is what oneDNN's backward takes; in evaluation the running
// stats'), plus, when training, the unbiased batch variance for
// the running update. The running stats are updated here, outside the
// primitive, under no_grad, as torch's kernel does in place: replaying a
// checkpointed region therefore does not update them twice.
#include "autograd/grad_mode.h"
#include "core/factory.h"
#include "autograd/run.h"
#include "cpu/kernels/cnn.h"
#include "cpu/kernels/elementwise.h"
#include "device/cnn.h"
#include "device/device_ops.h"
#include "ops/cnn.h"
#include "ops/grad_util.h"
#include "ops/layout.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"native_batch_norm", "native_batch_norm_backward"});

// inputs {grad_out, x, weight or undefined, mean, var}; outputs: the
// needed gradients in the order input, weight, bias. Runs with grad mode
// off only (a plain backward); under create_graph BatchNorm::backward uses
// differentiable ops instead, so this primitive needs no backward.
class BatchNormBackward final : public prim::Primitive {
 public:
  BatchNormBackward(bool training, double eps, tsr_memory_format fmt, bool nx, bool nw, bool nb)
      : training_(training), eps_(eps), fmt_(fmt), nx_(nx), nw_(nw), nb_(nb) {}
  const char* name() const override { return "NativeBatchNormBackwardBackward0"; }
  const char* op() const override { return "native_batch_norm_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    std::vector<TensorMeta> m;
    // The input's gradient in x's dtype, the parameters' in the saved
    // statistics' (the parameters' dtype: float32 for mixed bfloat16).
    const tsr_dtype d = in[1].dtype(), pd = in[3].dtype();
    if (nx_) m.push_back({in[1].sizes(), d});
    if (nw_) m.push_back({{in[1].size(1)}, pd});
    if (nb_) m.push_back({{in[1].size(1)}, pd});
    return m;
  }
  Tensors eval_cpu(const Tensors& in) override {
    Tensor w = in[2].defined() ? kernels::dense_in(in[2], fmt_) : Tensor();
    kernels::BatchNormGrads r = kernels::batch_norm_backward(
        kernels::dense_in(in[0], fmt_), kernels::dense_in(in[1], fmt_), w, kernels::dense_in(in[3], fmt_),
        kernels::dense_in(in[4], fmt_), eps_, training_, fmt_, nx_, nw_, nb_);
    return outputs(r);
  }
  // cuDNN's backward when training (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return outputs(device::batch_norm_backward(k, in[0], in[1], in[2], in[3], in[4], eps_, training_, fmt_, nx_,
                                               nw_, nb_));
  }

 private:
  Tensors outputs(const kernels::BatchNormGrads& r) const {
    Tensors out;
    if (nx_) out.push_back(r.input);
    if (nw_) out.push_back(r.weight);
    if (nb_) out.push_back(r.bias);
    return out;
  }

  bool training_;
  double eps_;
  tsr_memory_format fmt_;
  bool nx_, nw_, nb_;
};

// inputs {x, weight, bias, running_mean, running_var} (any but x undefined).
// stats_dtype: the parameters' dtype (kernels::batch_norm_param_dtype of
// the user's tensors: the running stats are no inputs when training).
class BatchNorm final : public prim::Primitive {
 public:
  BatchNorm(bool training, double eps, tsr_memory_format fmt, tsr_dtype stats_dtype)
      : training_(training), eps_(eps), fmt_(fmt), stats_dtype_(stats_dtype) {}
  const char* name() const override { return "NativeBatchNormBackward0"; }
  const char* op() const override { return "native_batch_norm"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_batch_norm(in[0], in[3], in[4], in[1], in[2], training_);
    const tsr_dtype d = in[0].dtype(), sd = stats_dtype_;
    const Shape c{in[0].size(1)};
    std::vector<TensorMeta> m{{in[0].sizes(), d}, {c, sd}, {c, sd}};
    if (training_) m.push_back({c, sd});
    return m;
  }
  Tensors eval_cpu(const Tensors& in) override {
    auto dense = [&](const Tensor& t) { return t.defined() ? kernels::dense_in(t, fmt_) : Tensor(); };
    kernels::BatchNormResult r = kernels::batch_norm(dense(in[0]), dense(in[1]), dense(in[2]), dense(in[3]),
                                                     dense(in[4]), training_, eps_, fmt_, stats_dtype_);
    return outputs(r);
  }
  // cuDNN's batch norm (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    kernels::check_batch_norm(in[0], in[3], in[4], in[1], in[2], training_);
    return outputs(device::batch_norm(k, in[0], in[1], in[2], in[3], in[4], training_, eps_, fmt_, stats_dtype_));
  }
  // x and the statistics for every gradient, weight for the input's.
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {bit(0) | (rg[0] ? bit(1) : 0), bit(1) | bit(2)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const bool nx = ctx.needs_input_grad(0), nw = ctx.needs_input_grad(1), nb = ctx.needs_input_grad(2);
    if (!nx && !nw && !nb) return {Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
    if (autograd::is_grad_enabled()) return differentiable_backward(ctx, nx, nw, nb);
    Tensor w = nx ? ctx.input(1) : Tensor();
    Tensors r = autograd::run(std::make_shared<BatchNormBackward>(training_, eps_, fmt_, nx, nw, nb),
                              {ctx.grad(0), ctx.input(0), w, ctx.output(1), ctx.output(2)});
    size_t k = 0;
    Tensor gx = nx ? r[k++] : Tensor();
    Tensor gw = nw ? r[k++] : Tensor();
    Tensor gb = nb ? r[k++] : Tensor();
    return {gx, gw, gb, Tensor(), Tensor()};
  }

 private:
  // Under create_graph: the same gradients in differentiable ops (as
  // layer_norm's), so a second derivative flows. Training recomputes the
  // batch statistics from x with ops, making them functions of x; in
  // evaluation the running stats (the saved mean / var) are constants.
  //
  // bfloat16 / float16: computed in float32 from the widened tensors (the
  // casts are differentiable), each gradient rounded once to its tensor's
  // dtype, as the first-order kernel does; low-precision ops would round
  // every intermediate (the centred x, the statistics) instead.
  Tensors outputs(const kernels::BatchNormResult& r) const {
    Tensors out{r.out, r.mean, r.var};
    if (training_) out.push_back(r.unbiased_var);
    return out;
  }

  // A 0-dim 1 of x's dtype on x's device (an op's operands share a device).
  static Tensor unit(const Tensor& x) {
    if (x.device().type == TSR_DEVICE_CPU) return kernels::add_scalar(kernels::zeros({}, x.dtype()), 1.0);
    Tensor one = empty({}, x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
    device::fill(device::kernels_for(x.device()), one, 1.0);
    return one;
  }

  Tensors differentiable_backward(const BackwardContext& ctx, bool nx, bool nw, bool nb) const {
    const tsr_dtype xd = ctx.input(0).dtype(), pd = ctx.output(1).dtype();
    auto wide = [](const Tensor& t) {
      return t.defined() && (t.dtype() == TSR_BFLOAT16 || t.dtype() == TSR_FLOAT16) ? to_dtype(t, TSR_FLOAT32) : t;
    };
    const Tensor g = wide(ctx.grad(0)), x = wide(ctx.input(0));
    Shape dims{0}, cshape{1, x.size(1)};
    for (int64_t d = 2; d < x.ndim(); ++d) {
      dims.push_back(d);
      cshape.push_back(1);
    }
    Tensor one = unit(x);
    Tensor xc, invstd;
    if (training_) {
      xc = sub(x, mean(x, dims, true));
      invstd = div(one, sqrt(add_scalar(mean(mul(xc, xc), dims, true), eps_)));
    } else {
      xc = sub(x, reshape(wide(ctx.output(1)), cshape));
      invstd = div(one, sqrt(add_scalar(reshape(wide(ctx.output(2)), cshape), eps_)));
    }
    Tensor xhat = mul(xc, invstd);
    Tensor gx, gw, gb;
    if (nx) {
      Tensor scale = ctx.input_meta(1).sizes.empty() ? invstd : mul(invstd, reshape(wide(ctx.input(1)), cshape));
      gx = training_ ? mul(scale, sub(sub(g, mean(g, dims, true)), mul(xhat, mean(mul(g, xhat), dims, true))))
                     : mul(g, scale);
    }
    if (nw) gw = sum(mul(g, xhat), dims, false);
    if (nb) gb = sum(g, dims, false);
    auto as = [](const Tensor& t, tsr_dtype d) { return t.defined() && t.dtype() != d ? to_dtype(t, d) : t; };
    return {as(gx, xd), as(gw, pd), as(gb, pd), Tensor(), Tensor()};
  }

  bool training_;
  double eps_;
  tsr_memory_format fmt_;
  tsr_dtype stats_dtype_;
};

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  kernels::check_batch_norm(x, running_mean, running_var, weight, bias, training);
  // Training reads no running stat (they are written after the primitive),
  // so they are no inputs then: a checkpoint replay must not see them as
  // inputs modified since the forward.
  const Tensor rm = training ? Tensor() : running_mean, rv = training ? Tensor() : running_var;
  const tsr_dtype stats_dtype = kernels::batch_norm_param_dtype(x, {&weight, &bias, &running_mean, &running_var});
  // The output's format: the CPU kernel's rule, or cudnn_batch_norm's
  // (x's suggested format) on another device.
  const tsr_memory_format fmt = x.device().type == TSR_DEVICE_CPU
                                    ? kernels::batch_norm_format(x, {&weight, &bias, &running_mean, &running_var})
                                    : kernels::cnn_format(x);
  Tensors r = autograd::run(std::make_shared<BatchNorm>(training, eps, fmt, stats_dtype), {x, weight, bias, rm, rv});
  if (training && running_mean.defined()) {
    // running = (1 - momentum) * running + momentum * batch statistic, in
    // place and without history (torch updates them inside its kernel).
    autograd::NoGradGuard no_grad;
    for (auto [run, stat] : {std::pair{running_mean, r[1]}, std::pair{running_var, r[3]}}) {
      if (run.device().type == TSR_DEVICE_CPU) {
        kernels::scale_inplace(run, 1.0 - momentum);
        kernels::add_into(run, stat, momentum);
      } else {
        device::blend_running_stat(device::kernels_for(run.device()), run, stat, momentum);
      }
      run.bump_version();
    }
  }
  return r[0];
}

}  // namespace tsr::ops
