#include "device/loss_ops.h"

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/compare.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/loss.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/pointwise.h"
#include "cpu/kernels/reduce.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"
#include "device/pointwise_ops.h"
#include "device/select_ops.h"
#include "device/transfer.h"

namespace tsr::device {

namespace {

bool on_cpu(const Tensor& t) { return t.device().type == TSR_DEVICE_CPU; }

// out = op(operands...) over out's sizes, every operand read at out's
// positions (already of out's sizes or broadcast to them).
void loss_map_into(DeviceKernels& k, LossKernel op, const Tensor& out, const std::vector<Tensor>& in, double p,
                   double q, tsr_dtype compute) {
  std::vector<FlatOperand> flat{operand(out)};
  std::vector<Shape> strides{out.strides()};
  for (const Tensor& t : in) {
    flat.push_back(operand(t));
    strides.push_back(broadcast_strides(t, out.sizes()));
  }
  const Stream s = current_stream(out.device());
  for_each_launch(out.sizes(), flat, strides, [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
    LossMapArgs a{};
    a.shape = shape;
    a.out = ops[0];
    KernelOperand* slots[4] = {&a.a, &a.b, &a.c, &a.d};
    for (size_t i = 1; i < ops.size(); ++i) *slots[i - 1] = ops[i];
    a.p = p, a.q = q, a.compute = compute;
    k.loss_map(op, a, s);
  });
}

// A fresh output of dtype laid out as TensorIterator lays out one computed
// from `in` (kernels::new_output), filled by loss_map.
Tensor loss_map(DeviceKernels& k, LossKernel op, const std::vector<Tensor>& in, double p, double q,
                tsr_dtype out_dtype) {
  kernels::TensorRefs refs;
  for (const Tensor& t : in) refs.push_back(&t);
  Tensor out = kernels::new_output(in[0].sizes(), refs, out_dtype);
  loss_map_into(k, op, out, in, p, q, in[0].dtype());
  return out;
}

// kernels::reduce_loss: mean or sum over every dim (accumulated in double).
Tensor reduce(DeviceKernels& k, const Tensor& l, kernels::LossReduction r) {
  if (r == kernels::LossReduction::None) return l;
  const std::vector<bool> mask = kernels::reduction_mask(l, {});
  return r == kernels::LossReduction::Mean ? mean(k, l, mask, false) : sum(k, l, mask, false);
}

LossKernel loss_kernel(kernels::PointwiseLoss kind) {
  switch (kind) {
    case kernels::PointwiseLoss::Mse: return LossKernel::Mse;
    case kernels::PointwiseLoss::SmoothL1: return LossKernel::SmoothL1;
    case kernels::PointwiseLoss::Huber: break;
  }
  return LossKernel::Huber;
}

}  // namespace

Tensor softplus(DeviceKernels& k, const Tensor& x, double beta, double threshold) {
  const kernels::PwArgs args{beta, threshold};
  const tsr_dtype d = kernels::pw_result_dtype(kernels::Pw::Softplus, x.dtype(), args);  // floating, or refused
  return loss_map(k, LossKernel::Softplus, {x}, beta, threshold, d);
}

Tensor pointwise_loss(DeviceKernels& k, kernels::PointwiseLoss kind, const Tensor& x, const Tensor& y, double param,
                      kernels::LossReduction r) {
  kernels::check_pointwise_loss_dtype(kind, "loss", x.dtype());
  return reduce(k, loss_map(k, loss_kernel(kind), {x, y}, param, 0.0, x.dtype()), r);
}

Tensor binary_cross_entropy(DeviceKernels& k, const Tensor& x, const Tensor& t, const Tensor& w,
                            kernels::LossReduction r) {
  return reduce(k, loss_map(k, LossKernel::Bce, {x, t, w}, 0.0, 0.0, x.dtype()), r);
}

Tensor bce_with_logits(DeviceKernels& k, const Tensor& x, const Tensor& t, const Tensor& w, const Tensor& pw,
                       kernels::LossReduction r) {
  kernels::check_bce_logits_dtype(x.dtype());
  return reduce(k, loss_map(k, LossKernel::BceWithLogits, {x, t, w, pw}, 0.0, 0.0, x.dtype()), r);
}

Tensor div_scalar(DeviceKernels& k, const Tensor& t, double s) {
  if (!is_floating(t.dtype())) return kernels::div_scalar(t, s);  // the CPU's refusal, before any data is read
  return loss_map(k, LossKernel::DivScalar, {t}, s, 0.0, t.dtype());
}

void check_bce_args_any(const Tensor& x, const Tensor& t) {
  if (on_cpu(x)) return kernels::check_bce_args(x, t);
  // The dtype checks without the values: the same call on empty CPU tensors.
  kernels::check_bce_args(empty({0}, x.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu),
                          empty({0}, t.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu));
  if (x.numel() == 0) return;
  DeviceKernels& k = kernels_for(x.device());
  const Tensor in_range = in_range_mask_any(x, 0.0, 1.0);  // NaN is not
  const Tensor count = readable_on_host(sum(k, in_range, kernels::reduction_mask(in_range, {}), false));
  TSR_CHECK(*static_cast<const int64_t*>(count.data_ptr()) == x.numel(), TSR_ERR_INVALID_ARGUMENT,
            "all elements of input should be between 0 and 1");
}

Tensor abs_below_any(const Tensor& t, double bound, bool inclusive) {
  if (on_cpu(t) || !is_floating(t.dtype())) return kernels::abs_below(t, bound, inclusive);
  return loss_map(kernels_for(t.device()), inclusive ? LossKernel::AbsAtMost : LossKernel::AbsBelow, {t}, bound, 0.0,
                  TSR_BOOL);
}

Tensor sign_any(const Tensor& t) {
  if (on_cpu(t)) return kernels::sign(t);
  return sign(kernels_for(t.device()), t);
}

Tensor mul_scalar_any(const Tensor& t, double s) {
  if (on_cpu(t)) return kernels::mul_scalar(t, s);
  return unary(kernels_for(t.device()), UnaryKernel::MulScalar, t, s, t.dtype());
}

}  // namespace tsr::device
