// The memory format PyTorch 1.13's CPU kernels give the outputs of conv2d,
// pooling and batch norm, including the ambiguous cases: tensors that are
// both contiguous and channels_last (C = 1, or H = W = 1), whose format torch
// decides from the strides (c10's is_channels_last_strides_2d), and, for
// conv2d, from the backend it picks and how that backend handles groups.
// Golden cases: tests/golden/gen_cnn_format.py.
#include "cpu/kernels/cnn.h"

#include "core/layout.h"
#include "cpu/kernels/threads.h"

namespace tsr::kernels {

tsr_memory_format cnn_format(const Tensor& x) {
  return x.ndim() == 4 ? suggest_memory_format(x.sizes(), x.strides()) : TSR_CONTIGUOUS_FORMAT;
}

namespace {

bool channels_last(const Shape& sizes, const Shape& strides) { return is_channels_last_strides_2d(sizes, strides); }
bool channels_last(const Tensor& t) { return t.ndim() == 4 && channels_last(t.sizes(), t.strides()); }

// mkldnn_conv_use_channels_last and thnn_conv_use_channels_last: either
// operand suggesting channels_last makes the convolution channels_last.
bool either_channels_last(bool x, bool w) { return x || w; }

// mkldnn_bf16_device_check (aten/src/ATen/native/mkldnn/Utils.h): the
// AVX-512 subsets oneDNN's bfloat16 kernels need.
bool bf16_device() {
  static const bool yes = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq");
  return yes;
}

// ConvParams::use_mkldnn (aten/src/ATen/native/Convolution.cpp): oneDNN
// takes every bfloat16 convolution on a CPU with AVX-512 (BW, VL, DQ), and
// float32 convolutions except small single-threaded 1x1 ones, where the
// native slow path is faster. float16 (torch 2.x: oneDNN only with
// AVX512-FP16, which mkldnn_fp16_device_check asks for and tessera does not
// use) and float64 take the native backends.
bool torch_uses_mkldnn(const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  if (x.dtype() == TSR_BFLOAT16) return bf16_device();
  if (x.dtype() != TSR_FLOAT32) return false;
  const Shape& xs = x.sizes();
  const Shape& ws = w.sizes();
  const bool strided = a.stride[0] != 1 || a.stride[1] != 1;
  const bool dilated = a.dilation[0] != 1 || a.dilation[1] != 1;
  const bool not_slow_1x1 = strided || dilated || xs[0] >= 16 || ws[3] != 1 || ws[2] != 1 || num_threads() > 1;
  const bool worth_it =
      a.groups > 1 || (ws[3] > 3 && ws[2] > 3) || xs[0] > 1 || xs[0] * xs[1] * xs[2] * xs[3] > 20480;
  return not_slow_1x1 && worth_it;
}

// Whether a dense tensor of these sizes allocated in fmt reads as
// channels_last (an output made with channels_last strides can still be
// ambiguous, and torch's next step sees only its strides).
bool allocated_channels_last(const Shape& sizes, tsr_memory_format fmt) {
  return channels_last(sizes, strides_for_format(sizes, fmt));
}

// subtensor(t, dim, groups, 0).contiguous(t's suggested format) reads as
// channels_last: the narrowed view itself when it is already dense in that
// format, else a fresh copy.
bool group_slice_channels_last(const Tensor& t, size_t dim, int64_t groups, bool t_cl) {
  Shape sizes = t.sizes();
  sizes[dim] /= groups;
  const tsr_memory_format fmt = t_cl ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT;
  if (is_contiguous_as(sizes, t.strides(), fmt)) return channels_last(sizes, t.strides());
  return allocated_channels_last(sizes, fmt);
}

}  // namespace

tsr_memory_format conv_format(const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  if (x.ndim() != 4 || w.ndim() != 4) return TSR_CONTIGUOUS_FORMAT;
  const bool x_cl = channels_last(x), w_cl = channels_last(w);
  const tsr_memory_format whole = either_channels_last(x_cl, w_cl) ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT;
  if (a.groups == 1 || torch_uses_mkldnn(x, w, a)) return whole;
  // The native backends have no groups: torch convolves each group's slice
  // of x and w, made dense in x's and w's own suggested formats
  // (subtensor()), and concatenates the results along C, whose format is
  // channels_last only when every group's result reads as channels_last.
  // Every group's slices have the same sizes and strides, so the first
  // group's answer is every group's.
  const int64_t g = a.groups;
  const bool group_cl = either_channels_last(group_slice_channels_last(x, 1, g, x_cl),
                                             group_slice_channels_last(w, 0, g, w_cl));
  if (!group_cl) return TSR_CONTIGUOUS_FORMAT;
  const Shape out = conv2d_output_sizes(x, w, Tensor(), a);
  const Shape out_group{out[0], out[1] / g, out[2], out[3]};
  return allocated_channels_last(out_group, TSR_CHANNELS_LAST) ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT;
}

tsr_memory_format cudnn_conv_format(const Tensor& x, const Tensor& w) {
  if (x.ndim() != 4 || w.ndim() != 4) return TSR_CONTIGUOUS_FORMAT;
  if (x.dtype() == TSR_FLOAT64 || w.dtype() == TSR_FLOAT64) return TSR_CONTIGUOUS_FORMAT;
  return either_channels_last(channels_last(x), channels_last(w)) ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT;
}

tsr_memory_format batch_norm_format(const Tensor& x, const std::initializer_list<const Tensor*> params) {
  if (x.ndim() != 4) return TSR_CONTIGUOUS_FORMAT;
  // batch_norm_cpu_transform_input_template: when every tensor is dense
  // (x contiguous in either format), the output is contiguous whenever x is
  // (suggest_memory_format_contig, pytorch#63224), even if x's strides also
  // read as channels_last; otherwise x's suggested format.
  bool all_contiguous = is_contiguous_as(x.sizes(), x.strides(), TSR_CONTIGUOUS_FORMAT) || is_contiguous_as(x.sizes(), x.strides(), TSR_CHANNELS_LAST);
  for (const Tensor* p : params) all_contiguous = all_contiguous && (!p->defined() || is_contiguous_as(p->sizes(), p->strides(), TSR_CONTIGUOUS_FORMAT));
  if (all_contiguous) return is_contiguous_as(x.sizes(), x.strides(), TSR_CONTIGUOUS_FORMAT) ? TSR_CONTIGUOUS_FORMAT : TSR_CHANNELS_LAST;
  return cnn_format(x);
}

}  // namespace tsr::kernels
