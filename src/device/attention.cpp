#include "device/attention.h"

#include "core/factory.h"
#include "core/philox.h"
#include "core/stream.h"
#include "core/views.h"
#include "device/device_ops.h"

namespace tsr::device {
namespace {

Shape with_rows(const Shape& batch, int64_t rows, int64_t cols) {
  Shape s = batch;
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

// t expanded to batch + its last two sizes, contiguous in dtype.
Tensor batched(DeviceKernels& k, const Tensor& t, const Shape& batch, tsr_dtype dtype) {
  const Shape sizes = with_rows(batch, t.sizes()[size_t(t.ndim() - 2)], t.sizes()[size_t(t.ndim() - 1)]);
  return contiguous(k, views::expand(t, sizes), dtype);
}

// The kernels' arguments for a, with its operands on the device.
struct Operands {
  kernels::SdpaShape sh;
  Tensor q, k, v, mask;
  SdpaDeviceArgs args{};
};

Operands operands(DeviceKernels& kern, const kernels::SdpaArgs& a) {
  Operands o;
  o.sh = kernels::sdpa_shape(a.q, a.k, a.v, a.mask);
  const tsr_dtype dt = a.q.dtype();
  o.q = batched(kern, a.q, o.sh.batch, dt);
  o.k = batched(kern, a.k, o.sh.batch, dt);
  o.v = batched(kern, a.v, o.sh.batch, dt);
  SdpaDeviceArgs& x = o.args;
  x.batch = o.sh.batch_numel();
  x.L = o.sh.L;
  x.S = o.sh.S;
  x.E = o.sh.E;
  x.Ev = o.sh.Ev;
  x.dtype = dt;
  x.q = o.q.data_ptr();
  x.k = o.k.data_ptr();
  x.v = o.v.data_ptr();
  if (a.mask.defined()) {
    o.mask = contiguous(kern, views::expand(a.mask, with_rows(o.sh.batch, o.sh.L, o.sh.S)), a.mask.dtype());
    x.mask = o.mask.data_ptr();
    x.mask_dtype = a.mask.dtype();
  }
  x.causal = a.causal;
  x.scale = a.scale;
  x.dropout = a.dropout.p > 0.0;
  if (x.dropout) {
    const philox::DropoutMask dm = philox::dropout_mask(a.dropout.p);
    x.seed = a.dropout.seed;
    x.start = a.dropout.start;
    x.threshold = dm.threshold;
    x.keep_scale = dm.scale;
  }
  return o;
}

}  // namespace

kernels::SdpaForwardResult sdpa_forward(DeviceKernels& k, const kernels::SdpaArgs& a) {
  Operands o = operands(k, a);
  const Device dev = a.q.device();
  const tsr_dtype compute = kernels::sdpa_compute_dtype(a.q.dtype());
  Tensor lse = empty(o.sh.lse_sizes(), compute, TSR_CONTIGUOUS_FORMAT, dev);
  Tensor acc = empty(o.sh.out_sizes(), compute, TSR_CONTIGUOUS_FORMAT, dev);
  o.args.lse = lse.data_ptr();
  o.args.acc = acc.data_ptr();
  k.sdpa_forward(o.args, current_stream(dev));
  return {contiguous(k, acc, a.q.dtype()), lse};
}

kernels::SdpaGrads sdpa_backward(DeviceKernels& k, const kernels::SdpaArgs& a, const Tensor& grad_out,
                                 const Tensor& out, const Tensor& lse) {
  Operands o = operands(k, a);
  const Device dev = a.q.device();
  const tsr_dtype dt = a.q.dtype(), compute = kernels::sdpa_compute_dtype(dt);
  const Tensor g = contiguous(k, grad_out, dt), fwd = contiguous(k, out, dt), l = contiguous(k, lse, compute);
  Tensor delta = empty(o.sh.lse_sizes(), compute, TSR_CONTIGUOUS_FORMAT, dev);
  Tensor dq = empty(with_rows(o.sh.batch, o.sh.L, o.sh.E), compute, TSR_CONTIGUOUS_FORMAT, dev);
  Tensor dk = empty(with_rows(o.sh.batch, o.sh.S, o.sh.E), compute, TSR_CONTIGUOUS_FORMAT, dev);
  Tensor dv = empty(with_rows(o.sh.batch, o.sh.S, o.sh.Ev), compute, TSR_CONTIGUOUS_FORMAT, dev);
  SdpaDeviceArgs& x = o.args;
  x.grad_out = g.data_ptr();
  x.out = fwd.data_ptr();
  x.lse = l.data_ptr();
  x.delta = delta.data_ptr();
  x.acc = dq.data_ptr();
  x.acc2 = dk.data_ptr();
  x.acc3 = dv.data_ptr();
  k.sdpa_backward(x, current_stream(dev));
  return {contiguous(k, dq, dt), contiguous(k, dk, a.k.dtype()), contiguous(k, dv, a.v.dtype())};
}

}  // namespace tsr::device
