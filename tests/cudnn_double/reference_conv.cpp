#include "reference_conv.h"

#include "reference_tensors.h"

#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/cnn.h"
#include "cpu/kernels/copy.h"

namespace tsr::cudnn_double {
namespace {

Shape sizes_of(const Operand& o) { return Shape(o.sizes, o.sizes + 4); }

// The CPU's convolution takes float32 and float64 here (16-bit operands
// are widened: cuDNN computes them in float too).
tsr_dtype compute_dtype(tsr_dtype d) { return d == TSR_FLOAT64 ? TSR_FLOAT64 : TSR_FLOAT32; }

}  // namespace

Tensor wrap(const Operand& o) {
  const Shape strides(o.strides, o.strides + 4);
  return from_blob(o.data, sizes_of(o), &strides, o.dtype, Device{TSR_DEVICE_CPU, 0}, nullptr, nullptr);
}

tsr_memory_format format_of(const Operand& o) {
  const Shape strides(o.strides, o.strides + 4);
  return !is_contiguous_as(sizes_of(o), strides, TSR_CONTIGUOUS_FORMAT) &&
                 is_contiguous_as(sizes_of(o), strides, TSR_CHANNELS_LAST)
             ? TSR_CHANNELS_LAST
             : TSR_CONTIGUOUS_FORMAT;
}

Tensor dense_compute(const Operand& o, tsr_memory_format fmt) {
  const Tensor t = wrap(o);
  if (t.dtype() == compute_dtype(t.dtype()) && is_contiguous_as(t.sizes(), t.strides(), fmt)) return t;
  Tensor d = empty(t.sizes(), compute_dtype(t.dtype()), fmt, t.device());
  kernels::copy_strided(d, t);
  return d;
}

namespace {

template <typename T>
void blend(const Tensor& out, const Tensor& r, double alpha, double beta) {
  const auto& os = out.strides();
  const auto& rs = r.strides();
  T* o = out.data<T>();
  const T* v = r.data<T>();
  const Shape& n = out.sizes();
  for (int64_t a = 0; a < n[0]; ++a)
    for (int64_t b = 0; b < n[1]; ++b)
      for (int64_t c = 0; c < n[2]; ++c)
        for (int64_t d = 0; d < n[3]; ++d) {
          T& dst = o[a * os[0] + b * os[1] + c * os[2] + d * os[3]];
          const double val = alpha * double(v[a * rs[0] + b * rs[1] + c * rs[2] + d * rs[3]]);
          // beta 0 never reads out (it may be uninitialised, as cuDNN allows).
          dst = T(beta == 0.0 ? val : val + beta * double(dst));
        }
}

}  // namespace

void write(const Operand& out_op, const Tensor& r, double alpha, double beta) {
  const Tensor out = wrap(out_op);
  if (alpha == 1.0 && beta == 0.0) {
    kernels::copy_strided(out, r);
    return;
  }
  TSR_CHECK(out.dtype() == r.dtype(), TSR_ERR_UNSUPPORTED,
            "cuDNN double: alpha/beta other than 1/0 for 16-bit types");
  if (out.dtype() == TSR_FLOAT64)
    blend<double>(out, r, alpha, beta);
  else
    blend<float>(out, r, alpha, beta);
}

void compute(Pass pass, const Operand& x, const Operand& w, const Operand& y, const ConvSpec& spec, double alpha,
             double beta) {
  const kernels::Conv2dArgs a{{spec.stride[0], spec.stride[1]},
                              {spec.padding[0], spec.padding[1]},
                              {spec.dilation[0], spec.dilation[1]},
                              spec.groups};
  // The format of the activation (x or dy) decides; the filter is made
  // dense in it (cuDNN takes the two in different formats).
  const tsr_memory_format fmt = format_of(pass == Pass::BackwardData ? y : x);
  switch (pass) {
    case Pass::Forward: {
      const Tensor r = kernels::conv2d(dense_compute(x, fmt), dense_compute(w, fmt), Tensor(), a, fmt);
      write(y, r, alpha, beta);
      return;
    }
    case Pass::BackwardData: {
      const kernels::ConvGrads g = kernels::conv2d_backward(dense_compute(y, fmt), Tensor(), dense_compute(w, fmt),
                                                                 sizes_of(x), sizes_of(w), a, fmt, true, false, false);
      write(x, g.input, alpha, beta);
      return;
    }
    case Pass::BackwardFilter: {
      const kernels::ConvGrads g = kernels::conv2d_backward(dense_compute(y, fmt), dense_compute(x, fmt), Tensor(),
                                                                 sizes_of(x), sizes_of(w), a, fmt, false, true, false);
      write(w, g.weight, alpha, beta);
      return;
    }
  }
}

namespace {

kernels::Pool2dArgs pool_args(const PoolSpec& p) {
  return {{p.kernel[0], p.kernel[1]}, {p.stride[0], p.stride[1]}, {p.padding[0], p.padding[1]}, {1, 1}, false,
          p.count_include_pad};
}

}  // namespace

void avg_pool_forward(const Operand& x, const Operand& y, const PoolSpec& spec) {
  const tsr_memory_format fmt = format_of(x);
  write(y, kernels::ref::avg_pool2d(dense_compute(x, fmt), pool_args(spec), fmt), 1.0, 0.0);
}

void avg_pool_backward(const Operand& dy, const Operand& dx, const PoolSpec& spec) {
  const tsr_memory_format fmt = format_of(dy);
  write(dx, kernels::ref::avg_pool2d_backward(dense_compute(dy, fmt), sizes_of(dx), pool_args(spec), fmt), 1.0, 0.0);
}

}  // namespace tsr::cudnn_double
