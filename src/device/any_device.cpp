#include "device/any_device.h"

#include "core/factory.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "device/accumulate.h"
#include "device/device_ops.h"

namespace tsr::device {

namespace {
bool on_cpu(Device d) { return d.type == TSR_DEVICE_CPU; }
}  // namespace

Tensor zeros_on(const Shape& sizes, tsr_dtype dtype, Device device) {
  if (on_cpu(device)) return kernels::zeros(sizes, dtype);
  return zeros(kernels_for(device), sizes, dtype, device);
}

void fill_any(const Tensor& dst, double value) {
  if (on_cpu(dst.device())) return kernels::fill(dst, value);
  fill(kernels_for(dst.device()), dst, value);
}

void add_into_any(const Tensor& dst, const Tensor& src, double alpha) {
  if (on_cpu(dst.device())) return kernels::add_into(dst, src, alpha);
  // dst may reach an element several times (a view scatter's replayed
  // view): race-free on a device (device/accumulate.h).
  accumulate_into(kernels_for(dst.device()), dst, src, alpha);
}

void copy_strided_any(const Tensor& dst, const Tensor& src) {
  if (on_cpu(dst.device())) return kernels::copy_strided(dst, src);
  copy_into(kernels_for(dst.device()), dst, src);
}

Tensor contiguous_copy_any(const Tensor& t, tsr_dtype dtype) {
  if (on_cpu(t.device())) return kernels::contiguous_copy(t, dtype);
  return copy(kernels_for(t.device()), t, dtype, TSR_CONTIGUOUS_FORMAT);
}

Tensor divide_any(const Tensor& a, const Tensor& b) {
  if (on_cpu(a.device())) return kernels::binary(kernels::BinaryOp::Div, a, b);
  return binary(kernels_for(a.device()), BinaryKernel::Div, a, b, 1.0,
                kernels::binary_result_dtype(kernels::BinaryOp::Div, a, b));
}

}  // namespace tsr::device
