// avg_pool2d through oneDNN's pooling primitives (forward and backward,
// float32). torch's windows are oneDNN's with padding_l = padding and a
// padding_r that makes oneDNN's output size torch's (ceil mode can need
// more on the right, floor mode less): a negative padding_r becomes a
// cropped input instead (the rows no window reads, whose gradient is zero).
// torch's count_include_pad counts padding only up to `padding` on the
// right; where a ceil-mode window reaches further, oneDNN's
// include-padding divisor would differ, and the reference kernel runs.
#include "cpu/dnnl/dnnl_cnn.h"
#include "cpu/dnnl/dnnl_context.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"

namespace tsr::kernels::onednn {

using dnnl::memory;

namespace {

struct PoolDescs {
  memory::dims src_dims, strides, kernel, pad_l, pad_r;
  dnnl::algorithm alg;
};

// False when oneDNN's divisor would differ from torch's.
bool pool_descs(const Shape& x, const Shape& y, const Pool2dArgs& a, PoolDescs& d) {
  d.src_dims = {x[0], x[1], x[2], x[3]};
  for (int i = 0; i < 2; ++i) {
    int64_t pr = (y[2 + i] - 1) * a.stride[i] + a.kernel[i] - x[2 + i] - a.padding[i];
    if (pr < 0) {
      d.src_dims[2 + i] += pr;
      pr = 0;
    }
    if (a.count_include_pad && pr > a.padding[i]) return false;
    d.strides.push_back(a.stride[i]);
    d.kernel.push_back(a.kernel[i]);
    d.pad_l.push_back(a.padding[i]);
    d.pad_r.push_back(pr);
  }
  d.alg = a.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                              : dnnl::algorithm::pooling_avg_exclude_padding;
  return true;
}

memory::dims strides_of(const Tensor& t) { return memory::dims(t.strides().begin(), t.strides().end()); }

dnnl::pooling_forward::primitive_desc forward_pd(const PoolDescs& d, const memory::desc& src,
                                                 const memory::desc& dst) {
  dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_training, d.alg, src, dst, d.strides, d.kernel,
                                   d.pad_l, d.pad_r);
  return dnnl::pooling_forward::primitive_desc(desc, attr(), engine());
}

}  // namespace

bool avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt, Tensor& out) {
  const Shape ys = pool2d_output_sizes("avg_pool2d", x, a);
  PoolDescs d;
  if (!pool_descs(x.sizes(), ys, a, d)) return false;
  Tensor y = empty_cpu(ys, x.dtype(), fmt);
  run("avg_pool2d", [&] {
    const memory::desc src = desc_of(x, d.src_dims, strides_of(x)), dst = desc_of(y);
    auto pd = forward_pd(d, src, dst);
    execute(dnnl::pooling_forward(pd), pd, {{DNNL_ARG_SRC, mem(src, x)}, {DNNL_ARG_DST, mem(dst, y)}});
    stream().wait();
  });
  out = y;
  return true;
}

bool avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt,
                         Tensor& grad_input) {
  PoolDescs d;
  if (!pool_descs(x_sizes, g.sizes(), a, d)) return false;
  Tensor gx = empty_cpu(x_sizes, g.dtype(), fmt);
  // Rows and columns a cropped descriptor leaves out get no gradient.
  if (d.src_dims[2] != x_sizes[2] || d.src_dims[3] != x_sizes[3]) fill(gx, 0.0);
  run("avg_pool2d backward", [&] {
    const memory::desc src = desc_of(gx, d.src_dims, strides_of(gx)), dst = desc_of(g);
    auto fwd = forward_pd(d, src, dst);
    dnnl::pooling_backward::desc bd(d.alg, src, dst, d.strides, d.kernel, d.pad_l, d.pad_r);
    dnnl::pooling_backward::primitive_desc pd(bd, attr(), engine(), fwd);
    execute(dnnl::pooling_backward(pd), pd, {{DNNL_ARG_DIFF_DST, mem(dst, g)}, {DNNL_ARG_DIFF_SRC, mem(src, gx)}});
    stream().wait();
  });
  grad_input = gx;
  return true;
}

}  // namespace tsr::kernels::onednn
