// batch_norm through oneDNN's batch normalization primitive (float32, 4-D
// input in NCHW or NHWC): training forward (batch mean and biased
// variance, which oneDNN returns), evaluation forward (use_global_stats
// with the running stats) and training backward (diff_src with the
// statistics' full derivative, diff_scale / diff_shift). Weight and bias
// are oneDNN's separate scale and shift (use_scale / use_shift).
#include "cpu/dnnl/dnnl_cnn.h"
#include "cpu/dnnl/dnnl_context.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/empty_cpu.h"

namespace tsr::kernels::onednn {

using dnnl::memory;
using dnnl::normalization_flags;

namespace {

memory::desc channel_desc(int64_t C) { return memory::desc({C}, memory::data_type::f32, memory::format_tag::a); }

normalization_flags flags_for(const Tensor& weight, const Tensor& bias, bool global_stats) {
  auto f = normalization_flags::none;
  if (weight.defined()) f = f | normalization_flags::use_scale;
  if (bias.defined()) f = f | normalization_flags::use_shift;
  if (global_stats) f = f | normalization_flags::use_global_stats;
  return f;
}

dnnl::batch_normalization_forward::primitive_desc forward_pd(const memory::desc& data, double eps,
                                                             normalization_flags f, bool training) {
  dnnl::batch_normalization_forward::desc desc(
      training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, data, float(eps), f);
  return dnnl::batch_normalization_forward::primitive_desc(desc, attr(), engine());
}

Tensor copy_of(const Tensor& t) {
  Tensor c = empty_cpu(t.sizes(), t.dtype());
  copy_strided(c, t);
  return c;
}

}  // namespace

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double eps, tsr_memory_format fmt) {
  const int64_t C = x.size(1);
  BatchNormResult r;
  r.out = empty_cpu(x.sizes(), x.dtype(), fmt);
  if (training) {
    r.mean = empty_cpu({C}, x.dtype());
    r.var = empty_cpu({C}, x.dtype());
  } else {
    r.mean = copy_of(running_mean);
    r.var = copy_of(running_var);
  }
  const normalization_flags f = flags_for(weight, bias, !training);
  run("batch_norm", [&] {
    const memory::desc data = desc_of(x), c = channel_desc(C);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(data, x)},
                                         {DNNL_ARG_DST, mem(desc_of(r.out), r.out)},
                                         {DNNL_ARG_MEAN, mem(c, r.mean)},
                                         {DNNL_ARG_VARIANCE, mem(c, r.var)}};
    if (weight.defined()) args.emplace(DNNL_ARG_SCALE, mem(c, weight));
    if (bias.defined()) args.emplace(DNNL_ARG_SHIFT, mem(c, bias));
    auto pd = forward_pd(data, eps, f, training);
    execute(dnnl::batch_normalization_forward(pd), pd, args);
    stream().wait();
  });
  if (training) {
    // The running update takes the unbiased variance: var * M / (M - 1).
    const int64_t M = x.numel() / C;
    r.unbiased_var = mul_scalar(r.var, double(M) / double(M - 1));
  }
  return r;
}

BatchNormGrads batch_norm_backward_training(const Tensor& g, const Tensor& x, const Tensor& weight,
                                            const Tensor& mean, const Tensor& var, double eps,
                                            tsr_memory_format fmt, bool need_input, bool need_weight,
                                            bool need_bias) {
  const int64_t C = x.size(1);
  BatchNormGrads r;
  // oneDNN computes every gradient its flags name; the unneeded ones land
  // in temporaries dropped below.
  Tensor gx = empty_cpu(x.sizes(), x.dtype(), fmt);
  Tensor gw = empty_cpu({C}, x.dtype()), gb = empty_cpu({C}, x.dtype());
  const normalization_flags f = flags_for(weight, weight, false) | normalization_flags::use_shift;
  Tensor shift_unused = zeros({C}, x.dtype());
  run("batch_norm backward", [&] {
    const memory::desc data = desc_of(x), c = channel_desc(C);
    auto fwd = forward_pd(data, eps, f, true);
    dnnl::batch_normalization_backward::desc bd(dnnl::prop_kind::backward, desc_of(g), data, float(eps), f);
    dnnl::batch_normalization_backward::primitive_desc pd(bd, attr(), engine(), fwd);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(data, x)},       {DNNL_ARG_MEAN, mem(c, mean)},
                                         {DNNL_ARG_VARIANCE, mem(c, var)},   {DNNL_ARG_DIFF_DST, mem(desc_of(g), g)},
                                         {DNNL_ARG_DIFF_SRC, mem(desc_of(gx), gx)},
                                         {DNNL_ARG_DIFF_SHIFT, mem(c, gb)},
                                         // Validated as an input though the backward never reads it.
                                         {DNNL_ARG_SHIFT, mem(c, shift_unused)}};
    if (weight.defined()) {
      args.emplace(DNNL_ARG_SCALE, mem(c, weight));
      args.emplace(DNNL_ARG_DIFF_SCALE, mem(c, gw));
    }
    execute(dnnl::batch_normalization_backward(pd), pd, args);
    stream().wait();
  });
  if (need_input) r.input = gx;
  if (need_weight) {
    if (weight.defined()) {
      r.weight = gw;
    } else {  // no weight: its gradient is undefined anyway (nothing requires it)
      r.weight = Tensor();
    }
  }
  if (need_bias) r.bias = gb;
  return r;
}

}  // namespace tsr::kernels::onednn
