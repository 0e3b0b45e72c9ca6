#include "device/cnn.h"

#include "core/device_allocator.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/views.h"
#include "device/device_ops.h"
#include "device/dnn_flags.h"

namespace tsr::device {

namespace {

// t itself when dense in fmt, else a copy on the device that is.
Tensor dense_in(DeviceKernels& k, const Tensor& t, tsr_memory_format fmt) {
  if (is_contiguous_as(t.sizes(), t.strides(), fmt)) return t;
  return copy(k, t, t.dtype(), fmt);
}

DnnTensor dnn_tensor(const Tensor& t, tsr_memory_format fmt) {
  DnnTensor d{};
  d.data = t.data_ptr();
  d.dtype = t.dtype();
  d.channels_last = fmt == TSR_CHANNELS_LAST;
  // Dense in fmt: the strides fmt gives these sizes (a size-1 dim's stride
  // is whatever the view kept; the library wants the canonical one).
  const Shape strides = strides_for_format(t.sizes(), fmt);
  for (int i = 0; i < 4; ++i) {
    d.sizes[i] = t.sizes()[size_t(i)];
    d.strides[i] = strides[size_t(i)];
  }
  return d;
}

DnnConvParams dnn_params(const kernels::Conv2dArgs& a) {
  DnnConvParams p{};
  for (int i = 0; i < 2; ++i) {
    p.stride[i] = a.stride[size_t(i)];
    p.padding[i] = a.padding[size_t(i)];
    p.dilation[i] = a.dilation[size_t(i)];
  }
  p.groups = a.groups;
  p.policy = dnn_policy();
  return p;
}

// Workspaces as PyTorch gives cuDNN: a uint8 block of the caching
// allocator, freed when the call has queued its work. The block goes back
// to the pool of the current stream, whose later work runs after this
// call's, so reusing it is safe without an event.
class CachingWorkspace final : public DnnWorkspace {
 public:
  explicit CachingWorkspace(Device d) : device_(d) {}
  void* get(size_t bytes) override {
    if (bytes == 0) return nullptr;
    if (size_t(block_.defined() ? block_.numel() : 0) < bytes)
      block_ = empty({int64_t(bytes)}, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, device_);
    return block_.data_ptr();
  }

 private:
  Device device_;
  Tensor block_;
};

}  // namespace

DnnKernels& dnn_kernels_for(const char* op, Device d) {
  DnnKernels* dnn = backend_for(d).dnn_kernels();
  TSR_CHECK(dnn, TSR_ERR_UNSUPPORTED, op, ": no kernel for device ", device_name(d), " in this build");
  return *dnn;
}

Tensor conv2d(DeviceKernels& k, const Tensor& x_in, const Tensor& w_in, const Tensor& bias,
              const kernels::Conv2dArgs& a, tsr_memory_format fmt) {
  DnnKernels& dnn = dnn_kernels_for("convolution", x_in.device());
  const Shape out_sizes = kernels::conv2d_output_sizes(x_in, w_in, bias, a);
  const Tensor x = dense_in(k, x_in, fmt), w = dense_in(k, w_in, fmt);
  Tensor y = empty(out_sizes, x.dtype(), fmt, x.device());
  if (y.numel() == 0) return y;
  if (x.numel() == 0) {  // C_in = 0 contributes nothing
    fill(k, y, 0.0);
  } else {
    CachingWorkspace ws(x.device());
    dnn.conv2d_forward(dnn_tensor(y, fmt), dnn_tensor(x, fmt), dnn_tensor(w, fmt), dnn_params(a), ws,
                       current_stream(x.device()));
  }
  // As at::convolution: the bias is added afterwards, broadcast over N, H, W.
  if (bias.defined()) binary_into(k, BinaryKernel::Add, y, y, views::view(bias, {1, bias.numel(), 1, 1}), 1.0);
  return y;
}

kernels::ConvGrads conv2d_backward(DeviceKernels& k, const Tensor& g_in, const Tensor& x_in,
                                   const Tensor& w_in, const Shape& x_sizes, const Shape& w_sizes,
                                   const kernels::Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                                   bool need_weight, bool need_bias) {
  const Device d = g_in.device();
  DnnKernels& dnn = dnn_kernels_for("convolution_backward", d);
  const Tensor g = dense_in(k, g_in, fmt);
  const DnnConvParams p = dnn_params(a);
  const Stream s = current_stream(d);
  kernels::ConvGrads r;
  CachingWorkspace ws(d);
  if (need_input) {
    const Tensor w = dense_in(k, w_in, fmt);
    r.input = empty(x_sizes, g.dtype(), fmt, d);
    if (g.numel() == 0 || w.numel() == 0) {
      fill(k, r.input, 0.0);
    } else if (r.input.numel() > 0) {
      dnn.conv2d_backward_data(dnn_tensor(r.input, fmt), dnn_tensor(g, fmt), dnn_tensor(w, fmt), p, ws, s);
    }
  }
  if (need_weight) {
    const Tensor x = dense_in(k, x_in, fmt);
    r.weight = empty(w_sizes, g.dtype(), fmt, d);
    if (g.numel() == 0 || x.numel() == 0) {
      fill(k, r.weight, 0.0);
    } else if (r.weight.numel() > 0) {
      dnn.conv2d_backward_filter(dnn_tensor(r.weight, fmt), dnn_tensor(g, fmt), dnn_tensor(x, fmt), p, ws, s);
    }
  }
  // As ATen's convolution_backward: grad_output summed over N, H, W.
  if (need_bias) r.bias = sum(k, g, {true, false, true, true}, false);
  return r;
}

namespace {

// A contiguous [C] parameter in dtype for cuDNN: t (copied when it is not
// so already), or `fill` everywhere when the op has none.
Tensor param(DeviceKernels& k, const Tensor& t, int64_t c, tsr_dtype dtype, double fill_value, Device d) {
  if (t.defined()) return contiguous(k, t, dtype);
  Tensor p = empty({c}, dtype, TSR_CONTIGUOUS_FORMAT, d);
  fill(k, p, fill_value);
  return p;
}

void check_batch_norm_dtypes(const Tensor& x, tsr_dtype stats_dtype) {
  const tsr_dtype want = x.dtype() == TSR_FLOAT64 ? TSR_FLOAT64 : TSR_FLOAT32;
  TSR_CHECK(stats_dtype == want, TSR_ERR_UNSUPPORTED, "native_batch_norm: cuDNN on ", device_name(x.device()),
            " takes ", dtype_name(want), " weight, bias and running stats for ", dtype_name(x.dtype()),
            " input, got ", dtype_name(stats_dtype));
}

Tensor channel_view(const Tensor& t) { return views::view(t, {1, t.numel(), 1, 1}); }

}  // namespace

kernels::BatchNormResult batch_norm(DeviceKernels& k, const Tensor& x_in, const Tensor& weight, const Tensor& bias,
                                    const Tensor& running_mean, const Tensor& running_var, bool training,
                                    double eps, tsr_memory_format fmt, tsr_dtype stats_dtype) {
  const Device d = x_in.device();
  DnnKernels& dnn = dnn_kernels_for("native_batch_norm", d);
  TSR_CHECK(x_in.ndim() == 4, TSR_ERR_UNSUPPORTED, "native_batch_norm: ", device_name(d),
            " takes 4-D input (cuDNN's spatial batch norm), got ", x_in.ndim(), "-D");
  check_batch_norm_dtypes(x_in, stats_dtype);
  const Tensor x = dense_in(k, x_in, fmt);
  const int64_t c = x.size(1);
  const Tensor w = param(k, weight, c, stats_dtype, 1.0, d), b = param(k, bias, c, stats_dtype, 0.0, d);
  kernels::BatchNormResult r;
  r.out = empty(x.sizes(), x.dtype(), fmt, d);
  const Stream s = current_stream(d);
  if (training) {
    r.mean = zeros(k, {c}, stats_dtype, d);
    r.unbiased_var = zeros(k, {c}, stats_dtype, d);
    if (x.numel() > 0)
      dnn.batch_norm_training(dnn_tensor(r.out, fmt), dnn_tensor(x, fmt), w.data_ptr(), b.data_ptr(), stats_dtype,
                              eps, r.mean.data_ptr(), r.unbiased_var.data_ptr(), s);
    // The biased variance the backward and the CPU's contract use.
    const double n = c > 0 ? double(x.numel() / c) : 0.0;
    r.var = unary(k, UnaryKernel::MulScalar, r.unbiased_var, n > 0 ? (n - 1.0) / n : 1.0, stats_dtype);
  } else {
    r.mean = copy(k, running_mean, stats_dtype, TSR_CONTIGUOUS_FORMAT);
    r.var = copy(k, running_var, stats_dtype, TSR_CONTIGUOUS_FORMAT);
    if (x.numel() > 0)
      dnn.batch_norm_inference(dnn_tensor(r.out, fmt), dnn_tensor(x, fmt), w.data_ptr(), b.data_ptr(), stats_dtype,
                               r.mean.data_ptr(), r.var.data_ptr(), eps, s);
  }
  return r;
}

kernels::BatchNormGrads batch_norm_backward(DeviceKernels& k, const Tensor& g_in, const Tensor& x_in,
                                            const Tensor& weight, const Tensor& mean, const Tensor& var,
                                            double eps, bool training, tsr_memory_format fmt, bool need_input,
                                            bool need_weight, bool need_bias) {
  const Device d = x_in.device();
  const tsr_dtype sd = mean.dtype();
  const Tensor g = dense_in(k, g_in, fmt), x = dense_in(k, x_in, fmt);
  const int64_t c = x.size(1);
  kernels::BatchNormGrads r;
  if (training) {
    DnnKernels& dnn = dnn_kernels_for("native_batch_norm_backward", d);
    check_batch_norm_dtypes(x, sd);
    const Tensor w = param(k, weight, c, sd, 1.0, d);
    Tensor gx = empty(x.sizes(), x.dtype(), fmt, d);
    Tensor gw = zeros(k, {c}, sd, d), gb = zeros(k, {c}, sd, d);
    if (x.numel() > 0)
      dnn.batch_norm_backward(dnn_tensor(gx, fmt), dnn_tensor(g, fmt), dnn_tensor(x, fmt), w.data_ptr(),
                              gw.data_ptr(), gb.data_ptr(), sd, eps, current_stream(d));
    if (need_input) r.input = gx;
    if (need_weight) r.weight = gw;
    if (need_bias) r.bias = gb;
    return r;
  }
  // Evaluation: invstd = (var + eps)^-1/2; gx = g * weight * invstd,
  // gw = sum(g * (x - mean) * invstd), gb = sum(g) over N, H, W.
  const Tensor invstd =
      unary(k, UnaryKernel::PowScalar, unary(k, UnaryKernel::AddScalar, var, eps, sd), -0.5, sd);
  const std::vector<bool> spatial{true, false, true, true};
  if (need_input) {
    const Tensor scale = weight.defined() ? binary(k, BinaryKernel::Mul, weight, invstd, 1.0, sd) : invstd;
    r.input = empty(x.sizes(), x.dtype(), fmt, d);
    binary_into(k, BinaryKernel::Mul, r.input, g, channel_view(scale), 1.0);
  }
  if (need_weight) {
    const Tensor centred = binary(k, BinaryKernel::Sub, x, channel_view(mean), 1.0, sd);
    const Tensor xhat = binary(k, BinaryKernel::Mul, centred, channel_view(invstd), 1.0, sd);
    r.weight = reduce_sum(k, binary(k, BinaryKernel::Mul, g, xhat, 1.0, sd), spatial, false, 1.0, sd);
  }
  if (need_bias) r.bias = reduce_sum(k, g, spatial, false, 1.0, sd);
  return r;
}

void blend_running_stat(DeviceKernels& k, const Tensor& running, const Tensor& stat, double momentum) {
  unary_into(k, UnaryKernel::MulScalar, running, running, 1.0 - momentum);
  binary_into(k, BinaryKernel::Add, running, running, stat, momentum);
}

namespace {

DnnPoolParams pool_params(const kernels::Pool2dArgs& a, const Shape& x_sizes) {
  DnnPoolParams p{};
  for (size_t i = 0; i < 2; ++i) {
    p.kernel[i] = a.kernel[i];
    p.stride[i] = a.stride[i];
    p.padding[i] = a.padding[i];
    // Ceil mode's extra window (one starting inside the input or left
    // padding past the floor rule's last) overhangs the padded input;
    // cuDNN's windows never do.
    // pooling_output_shape (ATen's Pool.h), avg_pool2d having no dilation.
    const int64_t in = x_sizes[2 + i], pad = a.padding[i], kernel = a.kernel[i], stride = a.stride[i];
    const int64_t floor_out = (in + 2 * pad - kernel) / stride + 1;
    int64_t torch_out = floor_out;
    if (a.ceil_mode) {
      torch_out = (in + 2 * pad - kernel + stride - 1) / stride + 1;
      if ((torch_out - 1) * stride >= in + pad) --torch_out;
    }
    TSR_CHECK(torch_out == floor_out, TSR_ERR_UNSUPPORTED,
              "avg_pool2d: ceil_mode windows past the padded input are not supported on this device (cuDNN's "
              "pooling); got ", torch_out, " windows where cuDNN makes ", floor_out);
  }
  p.count_include_pad = a.count_include_pad;
  return p;
}

DnnPoolParams adaptive_params(const Shape& x_sizes, const kernels::Pair& out) {
  DnnPoolParams p{};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t in = x_sizes[2 + i];
    TSR_CHECK(out[i] > 0 && in % out[i] == 0, TSR_ERR_UNSUPPORTED, "adaptive_avg_pool2d: output size ", out[i],
              " must divide input size ", in, " on this device (uniform windows for cuDNN's pooling)");
    p.kernel[i] = p.stride[i] = in / out[i];
  }
  p.count_include_pad = true;
  return p;
}

Tensor pool_forward(DeviceKernels& k, const Tensor& x_in, const Shape& out_sizes, const DnnPoolParams& p,
                    tsr_memory_format fmt) {
  DnnKernels& dnn = dnn_kernels_for("avg_pool2d", x_in.device());
  const Tensor x = dense_in(k, x_in, fmt);
  Tensor y = empty(out_sizes, x.dtype(), fmt, x.device());
  if (y.numel() > 0) dnn.avg_pool2d_forward(dnn_tensor(y, fmt), dnn_tensor(x, fmt), p, current_stream(x.device()));
  return y;
}

Tensor pool_backward(DeviceKernels& k, const Tensor& g_in, const Shape& x_sizes, const DnnPoolParams& p,
                     tsr_memory_format fmt) {
  DnnKernels& dnn = dnn_kernels_for("avg_pool2d_backward", g_in.device());
  const Tensor g = dense_in(k, g_in, fmt);
  Tensor dx = empty(x_sizes, g.dtype(), fmt, g.device());
  if (g.numel() == 0)
    fill(k, dx, 0.0);
  else if (dx.numel() > 0)
    dnn.avg_pool2d_backward(dnn_tensor(dx, fmt), dnn_tensor(g, fmt), p, current_stream(g.device()));
  return dx;
}

}  // namespace

Tensor avg_pool2d(DeviceKernels& k, const Tensor& x, const kernels::Pool2dArgs& a, tsr_memory_format fmt) {
  const DnnPoolParams p = pool_params(a, x.sizes());
  return pool_forward(k, x, kernels::pool2d_output_sizes("avg_pool2d", x, a), p, fmt);
}

Tensor avg_pool2d_backward(DeviceKernels& k, const Tensor& g, const Shape& x_sizes, const kernels::Pool2dArgs& a,
                           tsr_memory_format fmt) {
  return pool_backward(k, g, x_sizes, pool_params(a, x_sizes), fmt);
}

Tensor adaptive_avg_pool2d(DeviceKernels& k, const Tensor& x, const kernels::Pair& output_size,
                           tsr_memory_format fmt) {
  const DnnPoolParams p = adaptive_params(x.sizes(), output_size);
  return pool_forward(k, x, kernels::adaptive_pool2d_output_sizes(x, output_size), p, fmt);
}

Tensor adaptive_avg_pool2d_backward(DeviceKernels& k, const Tensor& g, const Shape& x_sizes, tsr_memory_format fmt) {
  return pool_backward(k, g, x_sizes, adaptive_params(x_sizes, {g.size(2), g.size(3)}), fmt);
}

}  // namespace tsr::device
