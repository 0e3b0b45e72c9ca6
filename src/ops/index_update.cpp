// Updates along one dim at the positions an index lists: index_add
// (IndexAddBackward0), index_copy (IndexCopyBackward0), index_fill
// (IndexFillBackward0), in place and out of place (writes_self.h). Backward
// formulas are torch 1.13's derivatives.yaml entries.
#include "primitive/op_names.h"
#include "ops/indexing_ops.h"

#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "core/views.h"
#include "cpu/kernels/scatter.h"
#include "device/index_ops.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "ops/writes_self.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::Tensors;

namespace {

const bool registered =
    prim::register_op_names({"index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_"});

// The gradient of source: grad's slices at index, in source's shape (a
// 0-dim source takes the one slice; a 0-dim self's one gradient goes to
// every element of source, torch's expand_as).
Tensor source_grad(const Tensor& g, int64_t dim, const Tensor& index, const prim::TensorMeta& source) {
  if (g.ndim() == 0) return source.sizes.empty() ? g : expand(g, source.sizes);
  Tensor s = index_select(g, dim, index);
  return s.sizes() == source.sizes ? s : reshape(s, source.sizes);
}

class IndexAddOp final : public WritesSelf {
 public:
  IndexAddOp(bool inplace, int64_t dim, double alpha) : WritesSelf(inplace), dim_(dim), alpha_(alpha) {}
  const char* name() const override { return "IndexAddBackward0"; }
  const char* op() const override { return inplace_ ? "index_add_" : "index_add"; }
  bool saves_scalar() const override { return alpha_ != 1.0; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor gsrc;
    if (ctx.needs_input_grad(2)) {
      gsrc = source_grad(g, dim_, ctx.input(1), ctx.input_meta(2));
      if (alpha_ != 1.0) gsrc = mul_scalar(gsrc, alpha_);
    }
    return {g, Tensor(), gsrc};
  }

 private:
  void write(const Tensor& self, const Tensors& in) override {
    kernels::index_add_into(self, dim_, in[1], source(self, in[2]), alpha_);
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    device::index_add_into(k, self, dim_, in[1], source(self, in[2]), alpha_);
  }
  int64_t dim_;
  double alpha_;
};

class IndexCopyOp final : public WritesSelf {
 public:
  IndexCopyOp(bool inplace, int64_t dim) : WritesSelf(inplace), dim_(dim) {}
  const char* name() const override { return "IndexCopyBackward0"; }
  const char* op() const override { return inplace_ ? "index_copy_" : "index_copy"; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const Tensor index = ctx.input(1);
    Tensor gs, gsrc;
    if (ctx.needs_input_grad(0)) gs = index_fill(g, dim_, index, 0.0);
    if (ctx.needs_input_grad(2)) gsrc = source_grad(g, dim_, index, ctx.input_meta(2));
    return {gs, Tensor(), gsrc};
  }

 private:
  void write(const Tensor& self, const Tensors& in) override {
    kernels::index_copy_into(self, dim_, in[1], source(self, in[2]));
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    device::index_copy_into(k, self, dim_, in[1], source(self, in[2]));
  }
  int64_t dim_;
};

class IndexFillOp final : public WritesSelf {
 public:
  IndexFillOp(bool inplace, int64_t dim, double value) : WritesSelf(inplace), dim_(dim), value_(value) {}
  const char* name() const override { return "IndexFillBackward0"; }
  const char* op() const override { return inplace_ ? "index_fill_" : "index_fill"; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {index_fill(ctx.grad(0), dim_, ctx.input(1), 0.0), Tensor()};
  }

 private:
  void write(const Tensor& self, const Tensors& in) override { kernels::index_fill_into(self, dim_, in[1], value_); }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    device::index_fill_into(k, self, dim_, in[1], value_);
  }
  int64_t dim_;
  double value_;
};

}  // namespace

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha) {
  return run1<IndexAddOp>({self, index, source}, false, dim, alpha);
}
void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha) {
  run1<IndexAddOp>({self, index, source}, true, dim, alpha);
}
Tensor index_copy(const Tensor& self_arg, int64_t dim, const Tensor& index_arg, const Tensor& source_arg) {
  const TensorList cast = autocast::cast_inputs("index_copy", {self_arg, index_arg, source_arg});
  const Tensor& self = cast[0];
  const Tensor& index = cast[1];
  const Tensor& source = cast[2];
  return run1<IndexCopyOp>({self, index, source}, false, dim);
}
void index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  run1<IndexCopyOp>({self, index, source}, true, dim);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, double value) {
  return run1<IndexFillOp>({self, index}, false, dim, value);
}
void index_fill_(const Tensor& self, int64_t dim, const Tensor& index, double value) {
  run1<IndexFillOp>({self, index}, true, dim, value);
}

}  // namespace tsr::ops
