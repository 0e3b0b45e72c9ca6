// Joining primitives: cat (CatBackward0) and stack (StackBackward0). Their
// backward hands each input its slice of the gradient (narrow / select,
// views of the gradient), converted back to the input's dtype; a legacy
// 1-D empty input that cat skipped gets an empty gradient, as in torch.
#include "primitive/op_names.h"
#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/joining.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"
#include "ops/views.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"cat", "stack"});


Tensor as_dtype(const Tensor& g, tsr_dtype d) { return g.dtype() == d ? g : to_dtype(g, d); }

// The slice copy of cat and stack on a device: its copy kernel, which
// converts dtypes as copy_strided does.
kernels::CopyInto device_copy(DeviceKernels& k) {
  return [&k](const Tensor& dst, const Tensor& src) { device::copy_into(k, dst, src); };
}

class Cat final : public prim::Primitive {
 public:
  Cat(int64_t dim, size_t n) : dim_(dim), n_(n) {}
  const char* name() const override { return "CatBackward0"; }
  const char* op() const override { return "cat"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    auto p = kernels::cat_plan(in, dim_);
    return {{p.sizes, p.dtype}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::cat(in, dim_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {kernels::cat(in, dim_, in[0].device(), device_copy(k))};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const size_t n = n_;
    Tensors grads(n);
    // The dim cat used: wrapped against the first input it did not skip.
    int64_t offset = 0, dim = 0;
    for (size_t i = 0; i < n; ++i)
      if (!skipped(ctx.input_meta(i))) {
        dim = wrap_dim(dim_, int64_t(ctx.input_meta(i).sizes.size()));
        break;
      }
    for (size_t i = 0; i < n; ++i) {
      const TensorMeta& m = ctx.input_meta(i);
      if (skipped(m)) {
        if (ctx.needs_input_grad(i)) grads[i] = device::zeros_on({0}, m.dtype, g.device());
        continue;
      }
      const int64_t len = m.sizes[size_t(dim)];
      if (ctx.needs_input_grad(i)) grads[i] = as_dtype(narrow(g, dim, offset, len), m.dtype);
      offset += len;
    }
    return grads;
  }

 private:
  static bool skipped(const TensorMeta& m) { return m.sizes.size() == 1 && m.sizes[0] == 0; }

  int64_t dim_;
  size_t n_;  // number of inputs
};

class Stack final : public prim::Primitive {
 public:
  Stack(int64_t dim, size_t n) : dim_(dim), n_(n) {}
  const char* name() const override { return "StackBackward0"; }
  const char* op() const override { return "stack"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    auto p = kernels::stack_plan(in, dim_);
    return {{p.sizes, p.dtype}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::stack(in, dim_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {kernels::stack(in, dim_, in[0].device(), device_copy(k))};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const int64_t dim = wrap_dim(dim_, g.ndim());
    Tensors grads(n_);
    for (size_t i = 0; i < n_; ++i)
      if (ctx.needs_input_grad(i)) grads[i] = as_dtype(select(g, dim, int64_t(i)), ctx.input_meta(i).dtype);
    return grads;
  }

 private:
  int64_t dim_;
  size_t n_;
};

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  return run1<Cat>(autocast::cast_inputs("cat", tensors), dim, tensors.size());
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  return run1<Stack>(autocast::cast_inputs("stack", tensors), dim, tensors.size());
}

}  // namespace tsr::ops
