#include "device/nll_ops.h"

#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/reduce.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"
#include "device/select_ops.h"
#include "device/transfer.h"

namespace tsr::device {

namespace {

using Geometry = kernels::NllGeometry;

// A contiguous copy of t (or t) viewed with sizes.
Tensor viewed(DeviceKernels& k, const Tensor& t, const Shape& sizes) {
  const Tensor c = contiguous(k, t, t.dtype());
  return make_view(c, sizes, contiguous_strides(sizes), c.storage_offset());
}

Tensor scalar(DeviceKernels& k, double v, tsr_dtype dtype, Device dev) {
  Tensor t = empty({}, dtype, TSR_CONTIGUOUS_FORMAT, dev);
  fill(k, t, v);
  return t;
}

// The targets as the CPU's target_weights sees them, over [n, 1, s]: safe
// (int64, the target or 0 where ignored: an index gather and scatter can
// take) and w (float64, the class weight or 1, 0 where ignored).
struct Targets {
  Tensor safe, w;
};
Targets targets(DeviceKernels& k, const Geometry& g, const Tensor& target, const Tensor& weight,
                int64_t ignore_index) {
  const Device dev = target.device();
  const Shape sizes{g.n, 1, g.s};
  const Tensor t = viewed(k, target, sizes);
  const Tensor ignored = eq_scalar_mask_any(t, double(ignore_index));
  const Tensor safe = contiguous(k, where(k, ignored, scalar(k, 0.0, TSR_INT64, dev), t), TSR_INT64);
  if (safe.numel() > 0) {
    // Every kept target within [0, c): the first bad one's position comes
    // back; the CPU's own check on a host copy then words the error.
    Tensor first_bad = empty({}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, dev);
    k.index_bounds(kernel_shape({safe.numel()}), kernel_operand(static_cast<char*>(safe.data_ptr()), TSR_INT64, {1}),
                   g.c, static_cast<int64_t*>(first_bad.data_ptr()), current_stream(dev));
    if (*readable_on_host(first_bad).data<int64_t>() >= 0) {
      (void)kernels::nll_total_weight(readable_on_host(target), Tensor(), g.c, ignore_index);
      fail(TSR_ERR_INTERNAL, "nll_loss: the device found a target out of range that the host did not");
    }
  }
  Tensor w;
  if (weight.defined()) {
    const Tensor flat = make_view(safe, {safe.numel()}, {1}, safe.storage_offset());
    const Tensor picked = index_select(k, copy(k, weight, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT), 0, flat);
    w = where(k, ignored, scalar(k, 0.0, TSR_FLOAT64, dev), viewed(k, picked, sizes));
  } else {
    w = where(k, ignored, scalar(k, 0.0, TSR_FLOAT64, dev), scalar(k, 1.0, TSR_FLOAT64, dev));
  }
  return {safe, contiguous(k, w, TSR_FLOAT64)};
}

Tensor sum_all(DeviceKernels& k, const Tensor& t) { return sum(k, t, kernels::reduction_mask(t, {}), false); }

}  // namespace

Tensor nll_loss_nd(DeviceKernels& k, const Tensor& logp, const Tensor& target, const Tensor& weight,
                   kernels::NllArgs a) {
  const Geometry g = kernels::nll_geometry(logp.sizes());
  const Device dev = logp.device();
  const tsr_dtype dtype = logp.dtype();
  const Targets tw = targets(k, g, target, weight, a.ignore_index);
  // v = w == 0 ? 0 : -w * logp[n, target, s], in double (nll_loss_nd).
  Tensor v = zeros(k, {g.n, 1, g.s}, TSR_FLOAT64, dev);
  if (v.numel() > 0 && g.c > 0) {  // (no classes: every target ignored, or refused above)
    const Tensor picked = gather(k, viewed(k, logp, {g.n, g.c, g.s}), 1, tw.safe);
    const Tensor neg_w = unary(k, UnaryKernel::Neg, tw.w, 0.0, TSR_FLOAT64);
    const Tensor prod = binary(k, BinaryKernel::Mul, neg_w, picked, 1.0, TSR_FLOAT64);
    v = where(k, eq_scalar_mask_any(tw.w, 0.0), scalar(k, 0.0, TSR_FLOAT64, dev), prod);
  }
  if (a.reduction == kernels::LossReduction::None) {
    const Tensor out = contiguous(k, v, dtype);
    return make_view(out, target.sizes(), contiguous_strides(target.sizes()), out.storage_offset());
  }
  Tensor acc = sum_all(k, v);
  if (a.reduction == kernels::LossReduction::Mean)
    acc = binary(k, BinaryKernel::Div, acc, sum_all(k, tw.w), 1.0, TSR_FLOAT64);
  return copy(k, acc, dtype, TSR_CONTIGUOUS_FORMAT);
}

Tensor nll_loss_nd_backward(DeviceKernels& k, const Tensor& grad, const Shape& logp_sizes, const Tensor& target,
                            const Tensor& weight, kernels::NllArgs a) {
  const Geometry g = kernels::nll_geometry(logp_sizes);
  const Device dev = grad.device();
  const Targets tw = targets(k, g, target, weight, a.ignore_index);
  const Shape sizes{g.n, 1, g.s};
  // gi in double at each target: the loss's own gradient (None) or the
  // 0-dim one for all.
  const Tensor g64 = copy(k, grad, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT);
  const Tensor gi = a.reduction == kernels::LossReduction::None
                        ? make_view(g64, sizes, contiguous_strides(sizes), g64.storage_offset())
                        : make_view(g64, sizes, Shape{0, 0, 0}, g64.storage_offset());
  // -w * gi * scale, left out (0) where w is 0, as the CPU skips those.
  Tensor src = binary(k, BinaryKernel::Mul, unary(k, UnaryKernel::Neg, tw.w, 0.0, TSR_FLOAT64), gi, 1.0, TSR_FLOAT64);
  if (a.reduction == kernels::LossReduction::Mean) {
    const Tensor scale = binary(k, BinaryKernel::Div, scalar(k, 1.0, TSR_FLOAT64, dev), sum_all(k, tw.w), 1.0,
                                TSR_FLOAT64);
    src = binary(k, BinaryKernel::Mul, src, scale, 1.0, TSR_FLOAT64);
  }
  src = where(k, eq_scalar_mask_any(tw.w, 0.0), scalar(k, 0.0, TSR_FLOAT64, dev), src);
  const Tensor src_t = contiguous(k, src, grad.dtype());
  if (g.c == 0) return zeros(k, logp_sizes, grad.dtype(), dev);
  const Tensor out = contiguous(k, scatter_add_zeros(k, {g.n, g.c, g.s}, 1, tw.safe, src_t), grad.dtype());
  return make_view(out, logp_sizes, contiguous_strides(logp_sizes), out.storage_offset());
}

double nll_total_weight_any(const Tensor& target, const Tensor& weight, int64_t classes, int64_t ignore_index) {
  if (target.device().type == TSR_DEVICE_CPU) return kernels::nll_total_weight(target, weight, classes, ignore_index);
  DeviceKernels& k = kernels_for(target.device());
  const Shape& ts = target.sizes();
  int64_t s = 1;
  for (size_t i = 1; i < ts.size(); ++i) s *= ts[i];
  const Geometry g{ts.empty() ? 1 : ts[0], classes, s};
  const Targets tw = targets(k, g, target, weight, ignore_index);
  return *readable_on_host(sum_all(k, tw.w)).data<double>();
}

}  // namespace tsr::device
