#include "device/max_pool.h"

#include "core/factory.h"
#include "core/stream.h"

namespace tsr::device {

namespace {

void set_strides(int64_t* dst, const Tensor& t) {
  for (int i = 0; i < 4; ++i) dst[i] = t.strides()[size_t(i)];
}

MaxPool2dArgs pool_args(const kernels::Pool2dArgs& p, const Shape& x_sizes, const Shape& y_sizes, tsr_dtype dtype) {
  MaxPool2dArgs a{};
  a.batch = x_sizes[0];
  a.channels = x_sizes[1];
  a.height = x_sizes[2];
  a.width = x_sizes[3];
  a.out_height = y_sizes[2];
  a.out_width = y_sizes[3];
  for (size_t i = 0; i < 2; ++i) {
    a.kernel[i] = p.kernel[i];
    a.stride[i] = p.stride[i];
    a.padding[i] = p.padding[i];
    a.dilation[i] = p.dilation[i];
  }
  a.dtype = dtype;
  return a;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d(DeviceKernels& k, const Tensor& x, const kernels::Pool2dArgs& p,
                                     tsr_memory_format fmt) {
  const Shape y_sizes = kernels::pool2d_output_sizes("max_pool2d", x, p);
  Tensor y = empty(y_sizes, x.dtype(), fmt, x.device());
  Tensor indices = empty(y_sizes, TSR_INT64, fmt, x.device());
  MaxPool2dArgs a = pool_args(p, x.sizes(), y_sizes, x.dtype());
  a.input = x.data_ptr();
  set_strides(a.input_strides, x);
  a.output = y.data_ptr();
  set_strides(a.output_strides, y);
  a.indices = static_cast<int64_t*>(indices.data_ptr());
  set_strides(a.indices_strides, indices);
  if (y.numel() > 0) k.max_pool2d(a, current_stream(x.device()));
  return {y, indices};
}

Tensor max_pool2d_backward(DeviceKernels& k, const Tensor& g, const Tensor& indices, const Shape& x_sizes,
                           const kernels::Pool2dArgs& p, tsr_memory_format fmt) {
  Tensor gx = empty(x_sizes, g.dtype(), fmt, g.device());
  MaxPool2dArgs a = pool_args(p, x_sizes, g.sizes(), g.dtype());
  a.input = gx.data_ptr();
  set_strides(a.input_strides, gx);
  a.output = g.data_ptr();
  set_strides(a.output_strides, g);
  a.indices = static_cast<int64_t*>(indices.data_ptr());
  set_strides(a.indices_strides, indices);
  // Every element of gx is written (0 where no output chose it).
  if (gx.numel() > 0) k.max_pool2d_backward(a, current_stream(g.device()));
  return gx;
}

}  // namespace tsr::device
