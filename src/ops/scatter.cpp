// The scatter family: scatter (ScatterBackward0 / ScatterBackward1),
// scatter_add (ScatterAddBackward0), scatter_reduce
// (ScatterReduceBackward0), each in place and out of place (writes_self.h).
// Backward formulas are torch 1.13's (derivatives.yaml,
// scatter_reduce_backward in FunctionsManual.cpp), written with ops so
// create_graph records them.
#include "primitive/op_names.h"
#include "ops/indexing_ops.h"

#include "autograd/run.h"
#include "core/views.h"
#include "cpu/kernels/elementwise.h"
#include "device/any_device.h"
#include "device/index_ops.h"
#include "ops/compare.h"
#include "ops/layout.h"
#include "ops/math.h"
#include "ops/nn_functional.h"
#include "ops/writes_self.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names(
    {"scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_"});

// A constant (no history) of these sizes and dtype on device.
Tensor constant(const Shape& sizes, tsr_dtype dtype, double value, Device device = kCpu) {
  Tensor c = device::zeros_on(sizes, dtype, device);
  if (value != 0.0) device::fill_any(c, value);
  return c;
}
Tensor constant_like(const Tensor& t, double value) { return constant(t.sizes(), t.dtype(), value, t.device()); }

// Whether scatter_reduce's backward reads self's old value and the result.
bool reads_self(ScatterReduce r) {
  return r == ScatterReduce::Amax || r == ScatterReduce::Amin || r == ScatterReduce::Prod;
}

// scatter of src (ScatterBackward0) or of a value (ScatterBackward1);
// with a legacy reduce ("add" / "multiply") not differentiable, as torch.
class Scatter final : public WritesSelf {
 public:
  Scatter(bool inplace, int64_t dim, ScatterReduce reduce, std::optional<double> value)
      : WritesSelf(inplace), dim_(dim), reduce_(reduce), value_(value) {}
  const char* name() const override { return value_ ? "ScatterBackward1" : "ScatterBackward0"; }
  const char* op() const override { return inplace_ ? "scatter_" : "scatter"; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    TSR_CHECK(reduce_ == ScatterReduce::Assign, TSR_ERR_AUTOGRAD,
              "the derivative for 'scatter' with reduce ('add' / 'multiply') is not implemented (as torch 1.13); "
              "use scatter_reduce");
    const Tensor& g = ctx.grad(0);
    const Tensor index = ctx.input(1);
    Tensor gs, gsrc;
    if (ctx.needs_input_grad(0)) gs = scatter_value(g, dim_, index, 0.0, ScatterReduce::Assign);
    if (value_) return {gs, Tensor()};
    if (ctx.needs_input_grad(2)) gsrc = gather(g, dim_, index);
    return {gs, Tensor(), gsrc};
  }

 private:
  void check(const Tensors& in) const override {
    kernels::check_scatter(in[0], dim_, in[1], value_ ? nullptr : &in[2], "scatter");
  }
  void write(const Tensor& self, const Tensors& in) override {
    const Tensor src = value_ ? views::expand_or_self(constant({}, self.dtype(), *value_), in[1].sizes())
                              : source(self, in[2]);
    kernels::scatter_into(self, dim_, in[1], src, reduce_, true);
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    const Tensor src = value_ ? views::expand_or_self(constant({}, self.dtype(), *value_, self.device()), in[1].sizes())
                              : source(self, in[2]);
    device::scatter_into(k, self, dim_, in[1], src, reduce_, true);
  }
  int64_t dim_;
  ScatterReduce reduce_;
  std::optional<double> value_;
};

class ScatterAdd final : public WritesSelf {
 public:
  ScatterAdd(bool inplace, int64_t dim) : WritesSelf(inplace), dim_(dim) {}
  const char* name() const override { return "ScatterAddBackward0"; }
  const char* op() const override { return inplace_ ? "scatter_add_" : "scatter_add"; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor gsrc;
    if (ctx.needs_input_grad(2)) gsrc = gather(g, dim_, ctx.input(1));
    return {g, Tensor(), gsrc};
  }

 private:
  void check(const Tensors& in) const override { kernels::check_scatter(in[0], dim_, in[1], &in[2], "scatter_add"); }
  void write(const Tensor& self, const Tensors& in) override {
    kernels::scatter_into(self, dim_, in[1], source(self, in[2]), ScatterReduce::Sum, true);
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    device::scatter_into(k, self, dim_, in[1], source(self, in[2]), ScatterReduce::Sum, true);
  }
  int64_t dim_;
};

class ScatterReduceOp final : public WritesSelf {
 public:
  ScatterReduceOp(bool inplace, int64_t dim, ScatterReduce reduce, bool include_self)
      : WritesSelf(inplace), dim_(dim), reduce_(reduce), include_self_(include_self) {}
  const char* name() const override { return "ScatterReduceBackward0"; }
  const char* op() const override { return inplace_ ? "scatter_reduce_" : "scatter_reduce"; }
  // amax / amin / prod read self's old value, so their in-place form is
  // run as a copy (scatter_reduce_ below).
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return reads_self(reduce_) ? prim::SaveSpec{bit(0) | bit(1) | bit(2), bit(0)} : prim::SaveSpec{bit(1), 0};
  }
  Tensors backward(const BackwardContext& ctx) override;

 private:
  void check(const Tensors& in) const override {
    kernels::check_scatter(in[0], dim_, in[1], &in[2], "scatter_reduce");
  }
  void write(const Tensor& self, const Tensors& in) override {
    kernels::scatter_into(self, dim_, in[1], source(self, in[2]), reduce_, include_self_);
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    device::scatter_into(k, self, dim_, in[1], source(self, in[2]), reduce_, include_self_);
  }
  int64_t dim_;
  ScatterReduce reduce_;
  bool include_self_;
};

// torch 1.13's scatter_reduce_backward, reduction by reduction.
Tensors ScatterReduceOp::backward(const BackwardContext& ctx) {
  const Tensor& g = ctx.grad(0);
  const Tensor index = ctx.input(1);
  const prim::TensorMeta& src_meta = ctx.input_meta(2);
  Tensor gs, gsrc;
  switch (reduce_) {
    case ScatterReduce::Sum:
      gs = g;
      gsrc = gather(g, dim_, index);
      break;
    case ScatterReduce::Mean: {
      Tensor n = constant_like(g, include_self_ ? 1.0 : 0.0);
      n = scatter_add(n, dim_, index, constant(src_meta.sizes, g.dtype(), 1.0, g.device()));
      n = masked_fill(n, eq(n, constant({}, n.dtype(), 0.0, n.device())), 1.0);
      gs = div(g, n);
      gsrc = gather(gs, dim_, index);
      break;
    }
    case ScatterReduce::Amax:
    case ScatterReduce::Amin: {
      const Tensor self = ctx.input(0), src = ctx.input(2), result = ctx.output(0);
      const Tensor value = gather(result, dim_, index);
      const Tensor self_is_result = to_dtype(eq(self, result), g.dtype());
      const Tensor src_is_result = to_dtype(eq(src, value), g.dtype());
      const Tensor n = scatter_add(self_is_result, dim_, index, src_is_result);
      const Tensor distributed = div(g, n);
      gs = mul(self_is_result, distributed);
      gsrc = mul(src_is_result, gather(distributed, dim_, index));
      break;
    }
    case ScatterReduce::Prod: {
      // Zeros handled as torch: self's and src's zeros get the product of
      // the others (computed with the zeros masked to one).
      const Tensor self = ctx.input(0), src = ctx.input(2), result = ctx.output(0);
      const Tensor zero = device::zeros_on({}, self.dtype(), self.device());
      const Tensor self_zero = eq(self, zero);
      const Tensor masked_self = masked_fill(self, self_zero, 1.0);
      const Tensor masked_self_result = scatter_reduce(masked_self, dim_, index, src, reduce_, include_self_);
      gs = div(mul(g, masked_self_result), masked_self);
      const Tensor src_zero = eq(src, zero);
      const Tensor src_num_zeros =
          gather(scatter_add(constant_like(self, 0.0), dim_, index, to_dtype(src_zero, self.dtype())), dim_, index);
      const Tensor src_single_zero = mul(src_zero, eq(src_num_zeros, constant_like(zero, 1.0)));
      const Tensor masked_src = masked_fill(src, src_single_zero, 1.0);
      const Tensor masked_src_result = scatter_reduce(self, dim_, index, masked_src, reduce_, include_self_);
      const Tensor single = gather(mul(g, masked_src_result), dim_, index);
      const Tensor plain = div(gather(mul(g, result), dim_, index), masked_fill(src, src_zero, 1.0));
      gsrc = where(src_single_zero, single, plain);
      // Two or more zeros in one slot: every factor's gradient is 0.
      gsrc = masked_fill(gsrc, to_dtype(gt(src_num_zeros, constant_like(zero, 1.0)), TSR_BOOL), 0.0);
      break;
    }
    case ScatterReduce::Assign: break;
  }
  if (!include_self_ && gs.defined()) gs = scatter_value(gs, dim_, index, 0.0, ScatterReduce::Assign);
  return {ctx.needs_input_grad(0) ? gs : Tensor(), Tensor(), ctx.needs_input_grad(2) ? gsrc : Tensor()};
}

}  // namespace

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce) {
  return run1<Scatter>({self, index, src}, false, dim, reduce, std::nullopt);
}
Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, double value, ScatterReduce reduce) {
  return run1<Scatter>({self, index}, false, dim, reduce, value);
}
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce) {
  run1<Scatter>({self, index, src}, true, dim, reduce, std::nullopt);
}
void scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, double value, ScatterReduce reduce) {
  run1<Scatter>({self, index}, true, dim, reduce, value);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return run1<ScatterAdd>({self, index, src}, false, dim);
}
void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  run1<ScatterAdd>({self, index, src}, true, dim);
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                      bool include_self) {
  return run1<ScatterReduceOp>({self, index, src}, false, dim, reduce, include_self);
}
void scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                     bool include_self) {
  if (reads_self(reduce) && autograd::keeps_primitive({self, index, src})) {
    // The backward needs self's old value, which the write destroys: the
    // result is computed from a copy and copied in (grad_fn CopyBackwards).
    check_inplace_allowed(self, "scatter_reduce_");
    copy_(self, scatter_reduce(clone(self, TSR_PRESERVE_FORMAT), dim, index, src, reduce, include_self));
    return;
  }
  run1<ScatterReduceOp>({self, index, src}, true, dim, reduce, include_self);
}

}  // namespace tsr::ops
