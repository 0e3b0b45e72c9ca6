#include "device/cnn.h"

#include "core/device_allocator.h"
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

}  // namespace tsr::device
