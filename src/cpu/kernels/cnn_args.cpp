// Argument checks and output sizes of conv2d, pooling and batch norm, with
// PyTorch 1.13's messages (aten/src/ATen/native/Convolution.cpp,
// Pool.h's pool2d_shape_check, AdaptiveAveragePooling.cpp,
// Normalization.cpp). Everything is checked before any kernel runs, so a
// failing call changes nothing.
#include "cpu/kernels/cnn.h"

#include "core/device.h"
#include "core/error.h"
#include "core/layout.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/map.h"

namespace tsr::kernels {

Tensor dense_in(const Tensor& t, tsr_memory_format fmt) {
  if (t.ndim() != 4) return contiguous_or_self(t);
  if (is_contiguous_as(t.sizes(), t.strides(), fmt)) return t;
  Tensor d = empty(t.sizes(), t.dtype(), fmt, t.device());
  copy_strided(d, t);
  return d;
}

Tensor as_batched(const Tensor& t) {
  if (t.ndim() != 3) return t;
  Shape sizes{1}, strides{t.numel() ? t.numel() : 1};
  sizes.insert(sizes.end(), t.sizes().begin(), t.sizes().end());
  strides.insert(strides.end(), t.strides().begin(), t.strides().end());
  return make_view(t, sizes, strides, t.storage_offset());
}

Tensor unbatched(const Tensor& t) {
  return make_view(t, Shape(t.sizes().begin() + 1, t.sizes().end()), Shape(t.strides().begin() + 1, t.strides().end()),
                   t.storage_offset());
}

void check_cnn_dtype(const char* op, const Tensor& x) {
  const tsr_dtype d = x.dtype();
  if (d != TSR_FLOAT32 && d != TSR_FLOAT64 && d != TSR_BFLOAT16 && d != TSR_FLOAT16) not_implemented(op, op, d);
}

void check_same_dtype(const char* op, const Tensor& x, const Tensor& other, const char* what) {
  TSR_CHECK(!other.defined() || other.dtype() == x.dtype(), TSR_ERR_DTYPE_MISMATCH, op, ": ", what,
            " type (", dtype_name(other.dtype()), ") should be the same as input type (",
            dtype_name(x.dtype()), ")");
}

namespace {
void check_pair_positive(const Pair& p, const char* what) {
  TSR_CHECK(p[0] > 0 && p[1] > 0, TSR_ERR_INVALID_ARGUMENT, "non-positive ", what,
            " is not supported (got ", what, "=[", p[0], ", ", p[1], "])");
}
}  // namespace

Shape conv2d_output_sizes(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a) {
  TSR_CHECK(x.ndim() == 4, TSR_ERR_SHAPE_MISMATCH,
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ", x.sizes());
  TSR_CHECK(w.ndim() == 4, TSR_ERR_SHAPE_MISMATCH,
            "conv2d: expected weight to be 4-dimensional [C_out, C_in / groups, kH, kW], but got weight "
            "of size ", w.sizes());
  check_cnn_dtype("conv2d", x);
  check_same_dtype("conv2d", x, w, "weight");
  check_same_dtype("conv2d", x, bias, "bias");
  check_pair_positive(a.stride, "stride");
  check_pair_positive(a.dilation, "dilation");
  TSR_CHECK(a.padding[0] >= 0 && a.padding[1] >= 0, TSR_ERR_INVALID_ARGUMENT,
            "negative padding is not supported (got padding=[", a.padding[0], ", ", a.padding[1], "])");
  TSR_CHECK(a.groups > 0, TSR_ERR_INVALID_ARGUMENT, "non-positive groups is not supported (got groups=",
            a.groups, ")");
  const int64_t cin = x.size(1), cout = w.size(0);
  TSR_CHECK(cout % a.groups == 0, TSR_ERR_SHAPE_MISMATCH, "Given groups=", a.groups,
            ", expected weight to be divisible by ", a.groups, " at dimension 0, but got weight of size [",
            w.sizes(), "] instead");
  TSR_CHECK(cin == w.size(1) * a.groups, TSR_ERR_SHAPE_MISMATCH, "Given groups=", a.groups,
            ", weight of size ", w.sizes(), ", expected input", x.sizes(), " to have ", w.size(1) * a.groups,
            " channels, but got ", cin, " channels instead");
  TSR_CHECK(!bias.defined() || (bias.ndim() == 1 && bias.size(0) == cout), TSR_ERR_SHAPE_MISMATCH,
            "Given weight of size ", w.sizes(), ", expected bias to be 1-dimensional with ", cout,
            " elements, but got bias of size ", bias.defined() ? bias.sizes() : Shape{}, " instead");
  Shape out{x.size(0), cout, 0, 0};
  for (int i = 0; i < 2; ++i) {
    // Overflow-safe: sizes and arguments are bounded by int64 but their
    // combination need not be; __builtin_*_overflow catches that.
    int64_t padded, kext;
    const bool ovf = __builtin_add_overflow(x.size(2 + i), 2 * a.padding[i], &padded) ||
                     __builtin_mul_overflow(a.dilation[i], w.size(2 + i) - 1, &kext) ||
                     a.padding[i] > (INT64_MAX / 4);
    TSR_CHECK(!ovf, TSR_ERR_INVALID_ARGUMENT, "conv2d: padding or dilation too large");
    kext += 1;
    if (padded < kext)
      fail(TSR_ERR_SHAPE_MISMATCH, "Calculated padded input size per channel: (", x.size(2) + 2 * a.padding[0],
           " x ", x.size(3) + 2 * a.padding[1], "). Kernel size: (", a.dilation[0] * (w.size(2) - 1) + 1, " x ",
           a.dilation[1] * (w.size(3) - 1) + 1, "). Kernel size can't be greater than actual input size");
    out[2 + i] = (padded - kext) / a.stride[i] + 1;
  }
  return out;
}

namespace {
// ATen's pooling_output_shape (Pool.h).
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  // div_rtn: rounding toward -inf.
  int64_t q = num / stride;
  if ((num % stride != 0) && ((num < 0) != (stride < 0))) --q;
  int64_t out = q + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}
}  // namespace

Shape pool2d_output_sizes(const char* op, const Tensor& x3, const Pool2dArgs& a) {
  TSR_CHECK(x3.ndim() == 3 || x3.ndim() == 4, TSR_ERR_SHAPE_MISMATCH, op,
            ": non-empty 3D or 4D (batch mode) tensor expected for input, but got input of size ", x3.sizes());
  const Tensor x = as_batched(x3);
  check_cnn_dtype(op, x);
  TSR_CHECK(a.kernel[0] > 0 && a.kernel[1] > 0, TSR_ERR_INVALID_ARGUMENT,
            "kernel size should be greater than zero, but got kH: ", a.kernel[0], " kW: ", a.kernel[1]);
  TSR_CHECK(a.stride[0] > 0 && a.stride[1] > 0, TSR_ERR_INVALID_ARGUMENT,
            "stride should be greater than zero, but got dH: ", a.stride[0], " dW: ", a.stride[1]);
  TSR_CHECK(a.dilation[0] > 0 && a.dilation[1] > 0, TSR_ERR_INVALID_ARGUMENT,
            "dilation should be greater than zero, but got dilationH: ", a.dilation[0],
            " dilationW: ", a.dilation[1]);
  for (int i = 0; i < 2; ++i)
    TSR_CHECK(a.padding[i] >= 0 && a.padding[i] <= a.kernel[i] / 2, TSR_ERR_INVALID_ARGUMENT,
              "pad should be at most half of kernel size, but got pad=", a.padding[i],
              " and kernel_size=", a.kernel[i]);
  TSR_CHECK(x.size(1) > 0 && x.size(2) > 0 && x.size(3) > 0, TSR_ERR_SHAPE_MISMATCH, op,
            ": Expected input to have non-zero size for non-batch dimensions, but got input of size ",
            x.sizes());
  for (int i = 0; i < 2; ++i)
    TSR_CHECK(a.kernel[i] < (int64_t(1) << 31) && a.stride[i] < (int64_t(1) << 31) &&
                  a.dilation[i] < (int64_t(1) << 31),
              TSR_ERR_INVALID_ARGUMENT, op, ": kernel_size, stride and dilation must be below 2^31");
  const int64_t oh = pool_out(x.size(2), a.kernel[0], a.padding[0], a.stride[0], a.dilation[0], a.ceil_mode);
  const int64_t ow = pool_out(x.size(3), a.kernel[1], a.padding[1], a.stride[1], a.dilation[1], a.ceil_mode);
  TSR_CHECK(oh >= 1 && ow >= 1, TSR_ERR_INVALID_ARGUMENT, "Given input size: (", x.size(1), "x", x.size(2), "x",
            x.size(3), "). Calculated output size: (", x.size(1), "x", oh, "x", ow, "). Output size is too small");
  if (x3.ndim() == 3) return {x.size(1), oh, ow};
  return {x.size(0), x.size(1), oh, ow};
}

Shape adaptive_pool2d_output_sizes(const Tensor& x, const Pair& o) {
  TSR_CHECK(x.ndim() == 3 || x.ndim() == 4, TSR_ERR_SHAPE_MISMATCH,
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ", x.sizes());
  check_cnn_dtype("adaptive_avg_pool2d", x);
  TSR_CHECK(o[0] >= 0 && o[1] >= 0, TSR_ERR_INVALID_ARGUMENT,
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {",
            o[0], ", ", o[1], "}");
  for (int64_t d = x.ndim() - 3; d < x.ndim(); ++d)
    TSR_CHECK(x.size(d) > 0, TSR_ERR_SHAPE_MISMATCH,
              "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
              "input has sizes ", x.sizes(), " with dimension ", d, " being empty");
  if (x.ndim() == 3) return {x.size(0), o[0], o[1]};
  return {x.size(0), x.size(1), o[0], o[1]};
}

void check_batch_norm(const Tensor& x, const Tensor& rm, const Tensor& rv, const Tensor& w, const Tensor& b,
                      bool training) {
  TSR_CHECK(x.ndim() >= 2, TSR_ERR_SHAPE_MISMATCH,
            "batch_norm: expected input of at least 2 dims [N, C, ...], but got input of size ", x.sizes());
  check_cnn_dtype("batch_norm", x);
  const int64_t c = x.size(1);
  const std::pair<const Tensor*, const char*> params[] = {
      {&w, "weight"}, {&b, "bias"}, {&rm, "running_mean"}, {&rv, "running_var"}};
  // torch 1.13's rule (Normalization.cpp, is_mixed_type): the first defined
  // parameter's dtype is the parameters' dtype; when it is not x's, x must
  // be bfloat16 (float16 too here, as torch 2.x) and the parameters float32.
  // The parameters are checked first, x last (check_mixed_data_type).
  const tsr_dtype pd = batch_norm_param_dtype(x, {&w, &b, &rm, &rv});
  const bool mixed = pd != x.dtype();
  for (auto [p, what] : params) {
    if (!p->defined()) continue;
    // The running stats are written outside the primitive (whose run()
    // checks devices), so all devices are checked here.
    TSR_CHECK(p->device() == x.device(), TSR_ERR_DEVICE_MISMATCH,
              "Expected all tensors to be on the same device, but found at least two devices, ",
              device_name(x.device()), " and ", device_name(p->device()), "! (batch_norm: ", what, ")");
    if (mixed)
      TSR_CHECK(p->dtype() == TSR_FLOAT32, TSR_ERR_DTYPE_MISMATCH,
                "mixed dtype (CPU): expect parameter to have scalar type of Float (batch_norm: input ",
                dtype_name(x.dtype()), ", ", what, " ", dtype_name(p->dtype()), ")");
    else
      TSR_CHECK(p->dtype() == x.dtype(), TSR_ERR_DTYPE_MISMATCH, "expected scalar type ",
                scalar_type_name(x.dtype()), " but found ", scalar_type_name(p->dtype()), " (batch_norm: input ",
                dtype_name(x.dtype()), ", ", what, " ", dtype_name(p->dtype()), ")");
    TSR_CHECK(p->ndim() == 1 && p->numel() == c, TSR_ERR_SHAPE_MISMATCH, what, " should contain ", c,
              " elements not ", p->numel(), " (", what, " of size ", p->sizes(), ")");
  }
  TSR_CHECK(!mixed || x.dtype() == TSR_BFLOAT16 || x.dtype() == TSR_FLOAT16, TSR_ERR_DTYPE_MISMATCH,
            "mixed dtype (CPU): expect input to have scalar type of BFloat16 (batch_norm: input ",
            dtype_name(x.dtype()), ", parameters ", dtype_name(pd), ")");
  TSR_CHECK(training || rm.defined(), TSR_ERR_INVALID_ARGUMENT, "running_mean must be defined in evaluation mode");
  TSR_CHECK(training || rv.defined(), TSR_ERR_INVALID_ARGUMENT, "running_var must be defined in evaluation mode");
  TSR_CHECK(rm.defined() == rv.defined(), TSR_ERR_INVALID_ARGUMENT,
            "batch_norm: running_mean and running_var must both be given or both be NULL");
  if (training) {
    int64_t per_channel = x.size(0);
    for (int64_t d = 2; d < x.ndim(); ++d) per_channel *= x.size(d);
    TSR_CHECK(per_channel > 1, TSR_ERR_INVALID_ARGUMENT,
              "Expected more than 1 value per channel when training, got input size ", x.sizes());
  }
}

tsr_dtype batch_norm_param_dtype(const Tensor& x, std::initializer_list<const Tensor*> params) {
  for (const Tensor* p : params)
    if (p->defined()) return p->dtype();
  return x.dtype();
}

}  // namespace tsr::kernels
