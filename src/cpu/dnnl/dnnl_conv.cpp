// conv2d through oneDNN's convolution primitives: forward (with bias),
// backward data, backward weights (with the bias gradient), in float32 or
// bfloat16 (every operand, bias and gradients included, in the input's
// dtype, as torch 1.13's mkldnn convolution; oneDNN accumulates bfloat16 in
// float32 and rounds each result once).
//
// Layouts: activations stay in the tensors' own layout (NCHW or NHWC, read
// and written in place), weights are given to oneDNN as format `any` and
// reordered to the blocked layout its JIT kernels want (weights are small;
// plain OIHW/OHWI weights would send NHWC convolutions to oneDNN's slow
// reference implementation). Where oneDNN has no direct kernel for plain
// activations (NCHW), every operand goes `any` and the activations are
// reordered to its blocked layout too (choose_layouts). Grouped weights are [G, O/G, I/G, kH, kW].
// oneDNN's primitive cache (on by default) makes repeated shapes cheap to
// set up. torch's symmetric padding is oneDNN's padding_l; oneDNN wants
// padding_r too: the one that makes its output size formula give torch's
// (floor) size.
#include <cstring>

#include "cpu/dnnl/dnnl_cnn.h"
#include "cpu/dnnl/dnnl_context.h"
#include "cpu/kernels/empty_cpu.h"

namespace tsr::kernels::onednn {

using dnnl::memory;

namespace {

struct ConvDescs {
  memory::desc src, weights, bias, dst;  // the tensors' own layouts
  memory::dims strides, dilates, pad_l, pad_r;
};

memory::desc any_like(const memory::desc& d) {
  return memory::desc(d.dims(), d.data_type(), memory::format_tag::any);
}

// x and y sizes; w a tensor (or, for backward, the gradient made in w's
// format) giving the weights' layout.
ConvDescs descs(const Tensor& x, const Tensor& w, const Tensor& y, const Conv2dArgs& a) {
  ConvDescs d;
  d.src = desc_of(x);
  d.dst = desc_of(y);
  const int64_t G = a.groups;
  if (G == 1) {
    d.weights = desc_of(w);
  } else {
    const Shape& s = w.sizes();
    const Shape& st = w.strides();
    d.weights = desc_of(w, {G, s[0] / G, s[1], s[2], s[3]}, {st[0] * (s[0] / G), st[0], st[1], st[2], st[3]});
  }
  d.bias = memory::desc({w.size(0)}, data_type_of(w.dtype()), memory::format_tag::a);
  for (int i = 0; i < 2; ++i) {
    const int64_t ext = a.dilation[i] * (w.size(2 + i) - 1) + 1;
    d.strides.push_back(a.stride[i]);
    d.dilates.push_back(a.dilation[i] - 1);  // oneDNN counts dilation from 0
    d.pad_l.push_back(a.padding[i]);
    d.pad_r.push_back((y.size(2 + i) - 1) * a.stride[i] + ext - x.size(2 + i) - a.padding[i]);
  }
  return d;
}

bool is_reference(const char* impl) { return std::strncmp(impl, "ref", 3) == 0; }

// The layouts a primitive is created with: activations plain or any.
struct Layouts {
  memory::desc src, weights, dst;
};
Layouts layouts(const ConvDescs& d, bool plain_activations) {
  return {plain_activations ? d.src : any_like(d.src), any_like(d.weights),
          plain_activations ? d.dst : any_like(d.dst)};
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& d, const Layouts& l, bool with_bias) {
  auto desc = with_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                                          dnnl::algorithm::convolution_direct, l.src, l.weights,
                                                          d.bias, l.dst, d.strides, d.dilates, d.pad_l, d.pad_r)
                        : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                                          dnnl::algorithm::convolution_direct, l.src, l.weights,
                                                          l.dst, d.strides, d.dilates, d.pad_l, d.pad_r);
  return dnnl::convolution_forward::primitive_desc(desc, attr(), engine());
}

// Plain activations when oneDNN has a direct (JIT) kernel for them (NHWC on
// x86-64); when it would fall back to im2col + GEMM or its reference kernel
// (NCHW), blocked activations with reorders are faster (measured with
// bench/conv_bench.cpp: about 2x on a 3x3 NCHW convolution's backward).
Layouts choose_layouts(const ConvDescs& d, bool with_bias) {
  Layouts plain = layouts(d, true);
  const char* impl = forward_pd(d, plain, with_bias).impl_info_str();
  if (!is_reference(impl) && !std::strstr(impl, "gemm")) return plain;
  return layouts(d, false);
}

// An operand in the layout `want`: the tensor's own memory when it already
// is, else a reordered copy.
memory input(const memory::desc& want, const memory::desc& have, const Tensor& t) {
  memory user = mem(have, t);
  if (want == have) return user;
  memory m(want, engine());
  dnnl::reorder(user, m).execute(stream(), user, m);
  return m;
}

// A result: written in place when the layouts agree, else into a scratch
// memory that finish() reorders into the tensor.
struct Output {
  memory m, user;
  Output(const memory::desc& want, const memory::desc& have, const Tensor& t) : user(mem(have, t)) {
    m = want == have ? user : memory(want, engine());
  }
  void finish() {
    if (m.get_data_handle() != user.get_data_handle()) dnnl::reorder(m, user).execute(stream(), m, user);
  }
};

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt) {
  Tensor y = empty_cpu(conv2d_output_sizes(x, w, bias, a), x.dtype(), fmt);
  run("conv2d", [&] {
    const ConvDescs d = descs(x, w, y, a);
    const Layouts l = choose_layouts(d, bias.defined());
    auto pd = forward_pd(d, l, bias.defined());
    Output out(pd.dst_desc(), d.dst, y);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, input(pd.src_desc(), d.src, x)},
                                         {DNNL_ARG_WEIGHTS, input(pd.weights_desc(), d.weights, w)},
                                         {DNNL_ARG_DST, out.m}};
    if (bias.defined()) args.emplace(DNNL_ARG_BIAS, mem(d.bias, bias));
    execute(dnnl::convolution_forward(pd), pd, args);
    out.finish();
    stream().wait();
  });
  return y;
}

ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias) {
  ConvGrads r;
  // The bias's gradient alone (x not kept): a sum over g, no oneDNN needed.
  if (need_bias && !need_weight)
    r.bias = ref::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, false, false, true).bias;
  const bool with_bias = need_bias && need_weight;
  if (need_input) r.input = empty_cpu(x_sizes, g.dtype(), fmt);
  if (need_weight) r.weight = empty_cpu(w_sizes, g.dtype(), fmt);
  if (with_bias) r.bias = empty_cpu({w_sizes[0]}, g.dtype());
  if (!need_input && !need_weight) return r;
  // Descriptors need a tensor of x's and w's layout; the gradients have it.
  const Tensor& xl = need_input ? r.input : x;
  const Tensor& wl = need_weight ? r.weight : w;
  run("conv2d backward", [&] {
    const ConvDescs d = descs(xl, wl, g, a);
    const Layouts l = choose_layouts(d, with_bias);
    auto fwd = forward_pd(d, l, with_bias);
    if (need_input) {
      dnnl::convolution_backward_data::desc bd(dnnl::algorithm::convolution_direct, l.src, l.weights, l.dst,
                                               d.strides, d.dilates, d.pad_l, d.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(bd, attr(), engine(), fwd);
      Output gx(pd.diff_src_desc(), d.src, r.input);
      execute(dnnl::convolution_backward_data(pd), pd,
              {{DNNL_ARG_DIFF_DST, input(pd.diff_dst_desc(), d.dst, g)},
               {DNNL_ARG_WEIGHTS, input(pd.weights_desc(), d.weights, w)},
               {DNNL_ARG_DIFF_SRC, gx.m}});
      gx.finish();
    }
    if (need_weight) {
      auto bd = with_bias ? dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, l.src,
                                                                     l.weights, d.bias, l.dst, d.strides,
                                                                     d.dilates, d.pad_l, d.pad_r)
                          : dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, l.src,
                                                                     l.weights, l.dst, d.strides, d.dilates,
                                                                     d.pad_l, d.pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(bd, attr(), engine(), fwd);
      Output gw(pd.diff_weights_desc(), d.weights, r.weight);
      std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, input(pd.diff_dst_desc(), d.dst, g)},
                                           {DNNL_ARG_SRC, input(pd.src_desc(), d.src, x)},
                                           {DNNL_ARG_DIFF_WEIGHTS, gw.m}};
      if (with_bias) args.emplace(DNNL_ARG_DIFF_BIAS, mem(d.bias, r.bias));
      execute(dnnl::convolution_backward_weights(pd), pd, args);
      gw.finish();
    }
    stream().wait();
  });
  return r;
}

}  // namespace tsr::kernels::onednn
