// Which implementation runs each convolution, pooling and batch norm
// kernel: oneDNN (cpu/dnnl/) for float32 where it has the primitive, the
// reference loops otherwise: float64 (oneDNN has no f64 primitives),
// tensors without elements (oneDNN skips zero-volume work, leaving outputs
// such as a weight gradient unwritten), average pooling whose padding rule
// oneDNN cannot express. Max and adaptive pooling have only the reference
// kernels (pooling_ref.cpp says why), batch norm only its vectorized loops
// (batch_norm_ref.cpp: oneDNN 2.6's was slower in both memory formats).
//
// Low precision: bfloat16 convolution runs in oneDNN's bfloat16 kernels
// (torch 1.13 sends it to mkldnn; float32 accumulation, one rounding).
// bfloat16 batch norm and max pooling run in the reference loops on the
// bfloat16 tensors themselves, widened to float in registers (the
// activations of an autocast CNN: a widened copy cost more than the
// kernel). Every other bfloat16 kernel, and every float16 one (oneDNN 2.6
// has no float16 on CPUs without AVX512-FP16; torch 1.13 has no CPU
// float16 CNN kernels, torch 2.x accumulates them in float), widens its
// operands to float32, runs the float32 kernel and rounds each result once
// to its dtype. Either way: the float accumulation torch's
// reduced-precision CPU kernels use, the same bits.
#include "cpu/dnnl/dnnl_cnn.h"
#include "core/shape.h"
#include "cpu/kernels/cnn.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"

namespace tsr::kernels {

namespace {
bool use_onednn(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (!t->defined()) continue;
    if (t->dtype() != TSR_FLOAT32 || t->numel() == 0) return false;
  }
  return true;
}

bool low_precision(tsr_dtype d) { return d == TSR_BFLOAT16 || d == TSR_FLOAT16; }

// oneDNN's bfloat16 convolution: every operand bfloat16 and non-empty.
bool use_onednn_bf16(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (!t->defined()) continue;
    if (t->dtype() != TSR_BFLOAT16 || t->numel() == 0) return false;
  }
  return true;
}

tsr_memory_format format_for(const Tensor& t, tsr_memory_format fmt) {
  return t.ndim() == 4 ? fmt : TSR_CONTIGUOUS_FORMAT;
}

// t converted to dtype, dense in fmt (4-D) or contiguous; undefined stays so.
Tensor converted(const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt) {
  if (!t.defined() || t.dtype() == dtype) return t;
  Tensor r = empty_cpu(t.sizes(), dtype, format_for(t, fmt));
  copy_strided(r, t);
  return r;
}
Tensor widened(const Tensor& t, tsr_memory_format fmt) { return converted(t, TSR_FLOAT32, fmt); }
}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt) {
  if (use_onednn({&x, &w}) || use_onednn_bf16({&x, &w})) return onednn::conv2d(x, w, bias, a, fmt);
  if (low_precision(x.dtype()))
    return converted(conv2d(widened(x, fmt), widened(w, fmt), widened(bias, fmt), a, fmt), x.dtype(), fmt);
  return ref::conv2d(x, w, bias, a, fmt);
}

ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias) {
  const bool nonempty = checked_numel(x_sizes) > 0 && checked_numel(w_sizes) > 0;
  if (use_onednn({&g, &x, &w}) && nonempty)
    return onednn::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, need_input, need_weight, need_bias);
  if (use_onednn_bf16({&g, &x, &w}) && nonempty) {
    // The bias's gradient without the weight's is a sum over g, which the
    // oneDNN path leaves to the reference loops (float32 or float64 only).
    const bool bias_alone = need_bias && !need_weight;
    ConvGrads r = onednn::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, need_input, need_weight,
                                          need_bias && !bias_alone);
    if (bias_alone)
      r.bias = converted(ref::conv2d_backward(widened(g, fmt), Tensor(), Tensor(), x_sizes, w_sizes, a, fmt, false,
                                              false, true).bias, g.dtype(), fmt);
    return r;
  }
  if (low_precision(g.dtype())) {
    ConvGrads r = conv2d_backward(widened(g, fmt), widened(x, fmt), widened(w, fmt), x_sizes, w_sizes, a, fmt,
                                  need_input, need_weight, need_bias);
    return {converted(r.input, g.dtype(), fmt), converted(r.weight, g.dtype(), fmt),
            converted(r.bias, g.dtype(), fmt)};
  }
  return ref::conv2d_backward(g, x, w, x_sizes, w_sizes, a, fmt, need_input, need_weight, need_bias);
}

// bfloat16 max pooling runs as such (pooling_ref.cpp), float16 widened.
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt) {
  if (x.dtype() != TSR_FLOAT16) return ref::max_pool2d(x, a, fmt);
  auto [y, indices] = ref::max_pool2d(widened(x, fmt), a, fmt);
  return {converted(y, x.dtype(), fmt), indices};
}

Tensor max_pool2d_backward(const Tensor& g, const Tensor& indices, const Shape& x_sizes, tsr_memory_format fmt) {
  if (g.dtype() != TSR_FLOAT16) return ref::max_pool2d_backward(g, indices, x_sizes, fmt);
  return converted(ref::max_pool2d_backward(widened(g, fmt), indices, x_sizes, fmt), g.dtype(), fmt);
}

Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt) {
  if (low_precision(x.dtype())) return converted(avg_pool2d(widened(x, fmt), a, fmt), x.dtype(), fmt);
  Tensor y;
  if (use_onednn({&x}) && onednn::avg_pool2d(x, a, fmt, y)) return y;
  return ref::avg_pool2d(x, a, fmt);
}

Tensor avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt) {
  if (low_precision(g.dtype()))
    return converted(avg_pool2d_backward(widened(g, fmt), x_sizes, a, fmt), g.dtype(), fmt);
  Tensor gx;
  if (use_onednn({&g}) && onednn::avg_pool2d_backward(g, x_sizes, a, fmt, gx)) return gx;
  return ref::avg_pool2d_backward(g, x_sizes, a, fmt);
}

Tensor adaptive_avg_pool2d(const Tensor& x, const Pair& output_size, tsr_memory_format fmt) {
  if (!low_precision(x.dtype())) return ref::adaptive_avg_pool2d(x, output_size, fmt);
  return converted(ref::adaptive_avg_pool2d(widened(x, fmt), output_size, fmt), x.dtype(), fmt);
}

Tensor adaptive_avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, tsr_memory_format fmt) {
  if (!low_precision(g.dtype())) return ref::adaptive_avg_pool2d_backward(g, x_sizes, fmt);
  return converted(ref::adaptive_avg_pool2d_backward(widened(g, fmt), x_sizes, fmt), g.dtype(), fmt);
}

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double eps, tsr_memory_format fmt,
                           tsr_dtype stats_dtype) {
  if (!low_precision(x.dtype())) return ref::batch_norm(x, weight, bias, running_mean, running_var, training, eps, fmt);
  // bfloat16 x is read as such (the loops widen it in registers); only its
  // [C] parameters are widened here. float16 x is widened whole.
  const Tensor xs = x.dtype() == TSR_BFLOAT16 ? x : widened(x, fmt);
  BatchNormResult r = ref::batch_norm(xs, widened(weight, fmt), widened(bias, fmt), widened(running_mean, fmt),
                                      widened(running_var, fmt), training, eps, fmt);
  return {converted(r.out, x.dtype(), fmt), converted(r.mean, stats_dtype, fmt), converted(r.var, stats_dtype, fmt),
          converted(r.unbiased_var, stats_dtype, fmt)};
}

BatchNormGrads batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                   const Tensor& var, double eps, bool training, tsr_memory_format fmt,
                                   bool need_input, bool need_weight, bool need_bias) {
  if (!low_precision(x.dtype()))
    return ref::batch_norm_backward(g, x, weight, mean, var, eps, training, fmt, need_input, need_weight, need_bias);
  // bfloat16 g and x are read as such, as in the forward.
  const bool native = g.dtype() == TSR_BFLOAT16 && x.dtype() == TSR_BFLOAT16;
  BatchNormGrads r = ref::batch_norm_backward(native ? g : widened(g, fmt), native ? x : widened(x, fmt),
                                              widened(weight, fmt), widened(mean, fmt), widened(var, fmt), eps,
                                              training, fmt, need_input, need_weight, need_bias);
  return {converted(r.input, x.dtype(), fmt), converted(r.weight, mean.dtype(), fmt),
          converted(r.bias, mean.dtype(), fmt)};
}

}  // namespace tsr::kernels
