// maximum / minimum, amax / amin and norm: primitives with torch 1.13's
// grad_fns; backward formulas from derivatives.yaml (maximum's half-split
// ties, amax's even distribution, norm_backward), written with ops so they
// are differentiable again.
#include "primitive/op_names.h"
#include "ops/cpu_scalar.h"
#include "ops/reductions.h"

#include <cmath>

#include "autograd/run.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/extrema.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/reduce.h"
#include "device/any_device.h"
#include "device/reduce_ops.h"
#include "ops/compare.h"
#include "ops/grad_util.h"
#include "ops/indexing_ops.h"
#include "ops/loss_util.h"
#include "ops/nn_functional.h"
#include "ops/pointwise.h"
#include "ops/views.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"maximum", "minimum", "amax", "amin", "norm", "linalg_vector_norm"});

class Extremum final : public prim::Primitive {
 public:
  explicit Extremum(bool max) : max_(max) {}
  const char* name() const override { return max_ ? "MaximumBackward0" : "MinimumBackward0"; }
  const char* op() const override { return max_ ? "maximum" : "minimum"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{broadcast_shapes(in[0].sizes(), in[1].sizes()), kernels::extremum_result_dtype(in[0], in[1])}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {max_ ? kernels::maximum(in[0], in[1]) : kernels::minimum(in[0], in[1])};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::extremum(k, in[0], in[1], max_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0) | bit(1), 0}; }
  // torch 1.13's formula, op for op (so a create_graph backward has its
  // nodes: MaskedFillBackward0, WhereBackward0, DivBackward1):
  // where(a == b, g / 2, g).masked_fill_(side loses, 0).
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const Tensor a = ctx.input(0), b = ctx.input(1);
    const Tensor shared = where(eq(a, b), div_scalar(g, 2.0), g);
    Tensor ga, gb;
    if (ctx.needs_input_grad(0)) ga = to_input(masked_fill(shared, max_ ? lt(a, b) : gt(a, b), 0.0), ctx.input_meta(0));
    if (ctx.needs_input_grad(1)) gb = to_input(masked_fill(shared, max_ ? gt(a, b) : lt(a, b), 0.0), ctx.input_meta(1));
    return {ga, gb};
  }

 private:
  bool max_;
};

// g (and a reduction's result) with the reduced dims back as size 1.
Tensor keep_dims(Tensor t, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim) return t;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) t = unsqueeze(t, int64_t(d));
  return t;
}

Shape mask_dims(const std::vector<bool>& mask) {
  Shape dims;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) dims.push_back(int64_t(d));
  return dims;
}

class ExtremeOver final : public prim::Primitive {
 public:
  ExtremeOver(bool max, Shape dims, bool keepdim) : max_(max), dims_(std::move(dims)), keepdim_(keepdim) {}
  const char* name() const override { return max_ ? "AmaxBackward0" : "AminBackward0"; }
  const char* op() const override { return max_ ? "amax" : "amin"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::reduced_sizes(in[0].sizes(), kernels::reduction_mask(in[0], dims_), keepdim_), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    const auto mask = kernels::reduction_mask(in[0], dims_);
    return {max_ ? kernels::amax(in[0], mask, keepdim_) : kernels::amin(in[0], mask, keepdim_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::extreme_over(k, in[0], kernels::reduction_mask(in[0], dims_), keepdim_, max_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), bit(0)}; }
  // grad shared evenly among the elements equal to the result.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor x = ctx.input(0);
    const auto mask = kernels::reduction_mask(x, dims_);
    const Tensor hit = to_dtype(eq(x, keep_dims(ctx.output(0), mask, keepdim_)), ctx.grad(0).dtype());
    const Tensor count = sum(hit, mask_dims(mask), true);
    return {mul(div(keep_dims(ctx.grad(0), mask, keepdim_), count), hit)};
  }

 private:
  bool max_;
  Shape dims_;
  bool keepdim_;
};

// torch.norm, or torch.linalg.vector_norm: the same values and gradient,
// their own node names and messages.
enum class NormFlavor { Norm, LinalgVectorNorm };

class Norm final : public prim::Primitive {
 public:
  Norm(double p, Shape dims, bool keepdim, NormFlavor flavor)
      : p_(p), dims_(std::move(dims)), keepdim_(keepdim), flavor_(flavor) {}
  const char* name() const override { return linalg() ? "LinalgVectorNormBackward0" : "NormBackward1"; }
  const char* op() const override { return linalg() ? "linalg_vector_norm" : "norm"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    // The dtype's name only on failure: this runs at every forward.
    if (linalg()) {
      TSR_CHECK(is_floating(in[0].dtype()), TSR_ERR_DTYPE_MISMATCH,
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
                kernels::scalar_type_name(in[0].dtype()));
      check_identity(in[0]);
    } else {
      TSR_CHECK(is_floating(in[0].dtype()), TSR_ERR_DTYPE_MISMATCH,
                "norm(): input dtype should be either floating point or complex. Got ",
                kernels::scalar_type_name(in[0].dtype()), " instead.");
    }
    return {{kernels::reduced_sizes(in[0].sizes(), kernels::reduction_mask(in[0], dims_), keepdim_), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    output_meta(in);
    return {kernels::norm(in[0], p_, kernels::reduction_mask(in[0], dims_), keepdim_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    output_meta(in);
    return {device::norm(k, in[0], p_, kernels::reduction_mask(in[0], dims_), keepdim_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), bit(0)}; }
  Tensors backward(const BackwardContext& ctx) override;

 private:
  bool linalg() const { return flavor_ == NormFlavor::LinalgVectorNorm; }
  // linalg.vector_norm's refusal of a max/min over nothing (torch's
  // messages, the missing space included).
  void check_identity(const Tensor& x) const {
    if (!std::isinf(p_) || x.numel() != 0) return;
    const char* order = p_ > 0 ? "inf" : "-inf";
    TSR_CHECK(!dims_.empty(), TSR_ERR_INVALID_ARGUMENT, "linalg.vector_norm cannot compute the ", order,
              " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d : dims_) {
      const int64_t dim = d < 0 ? d + x.ndim() : d;
      TSR_CHECK(dim < 0 || dim >= x.ndim() || x.sizes()[size_t(dim)] != 0, TSR_ERR_INVALID_ARGUMENT,
                "linalg.vector_norm cannot compute the ", order, " norm on the dimension ", dim,
                "because this dimension is empty and the operation does not have an identity");
    }
  }

  double p_;
  Shape dims_;
  bool keepdim_;
  NormFlavor flavor_;
};

// torch 1.13's norm_backward.
Tensors Norm::backward(const BackwardContext& ctx) {
  const Tensor x = ctx.input(0);
  const auto mask = kernels::reduction_mask(x, dims_);
  const Tensor g = keep_dims(ctx.grad(0), mask, keepdim_), n = keep_dims(ctx.output(0), mask, keepdim_);
  // masked_fill(r, m, 0) written where(m, zero, r): where runs on every device.
  const Tensor zero = device::zeros_on({}, x.dtype(), x.device());
  if (p_ == 0) return {mul_scalar(x, 0.0)};
  if (p_ == 1) return {mul(sign(x), g)};
  if (p_ == 2) return {mul(x, where(eq(n, zero), zero, div(g, n)))};
  if (std::isinf(p_)) {
    const Tensor hit = to_dtype(eq(abs(x), n), x.dtype());
    return {mul(mul(sign(x), div(g, sum(hit, mask_dims(mask), true))), hit)};
  }
  if (p_ < 1) {
    const Tensor r = div(mul(mul(sign(x), pow_scalar(abs(x), p_ - 1)), g), pow_scalar(n, p_ - 1));
    return {where(eq(x, zero), zero, r)};
  }
  const Tensor r = div(mul(mul(x, pow_scalar(abs(x), p_ - 2)), g), pow_scalar(n, p_ - 1));
  return {where(eq(n, zero), zero, r)};
}

}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) {
  return run1<Extremum>({cpu_scalar_to_device_of(a, {&b}), cpu_scalar_to_device_of(b, {&a})}, true);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return run1<Extremum>({cpu_scalar_to_device_of(a, {&b}), cpu_scalar_to_device_of(b, {&a})}, false);
}
Tensor amax(const Tensor& a, const Shape& dims, bool keepdim) { return run1<ExtremeOver>({a}, true, dims, keepdim); }
Tensor amin(const Tensor& a, const Shape& dims, bool keepdim) { return run1<ExtremeOver>({a}, false, dims, keepdim); }
Tensor norm(const Tensor& a, double p, const Shape& dims, bool keepdim) {
  return run1<Norm>({a}, p, dims, keepdim, NormFlavor::Norm);
}

Tensor linalg_vector_norm(const Tensor& a, double ord, const Shape& dims, bool keepdim) {
  return run1<Norm>({a}, ord, dims, keepdim, NormFlavor::LinalgVectorNorm);
}

}  // namespace tsr::ops
