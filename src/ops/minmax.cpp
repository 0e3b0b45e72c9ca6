// min primitives: min(dim) (MinBackward0: the gradient goes to each
// minimum's index), min() (MinBackward1: split evenly among all minimal
// elements), and argmin. The backwards are max's (math.h's
// value_selecting_reduction_backward / evenly_distribute_backward, which
// only select by index or by equality with the result).
#include "autograd/run.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/minmax.h"
#include "cpu/kernels/reduce.h"
#include "device/device_ops.h"
#include "device/reduce_ops.h"
#include "ops/grad_util.h"
#include "ops/math.h"
#include "ops/reductions.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"min"});

class MinDim final : public prim::Primitive {
 public:
  MinDim(int64_t dim, bool keepdim) : dim_(dim), keepdim_(keepdim) {}
  const char* name() const override { return "MinBackward0"; }
  const char* op() const override { return "min"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    int64_t d = dim_;
    kernels::check_min_dim(in[0], &d, "min");
    std::vector<bool> mask(in[0].ndim(), false);
    if (!mask.empty()) mask[d] = true;
    Shape sizes = kernels::reduced_sizes(in[0].sizes(), mask, keepdim_);
    return {{sizes, in[0].dtype()}, {sizes, TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    auto [values, indices] = kernels::min_dim(in[0], dim_, keepdim_);
    return {values, indices};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    auto [values, indices] = device::min_dim(k, in[0], dim_, keepdim_);
    return {values, indices};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& sizes = ctx.input_meta(0).sizes;
    return {value_selecting_reduction_backward(ctx.grad(0), ctx.output(1), sizes,
                                               sizes.empty() ? int64_t(0) : wrap_dim(dim_, int64_t(sizes.size())),
                                               keepdim_)};
  }

 private:
  int64_t dim_;
  bool keepdim_;
};

class MinAll final : public prim::Primitive {
 public:
  const char* name() const override { return "MinBackward1"; }
  const char* op() const override { return "min"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{{}, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::min_all(in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::extreme_all(k, in[0], false)}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), bit(0)}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {evenly_distribute_backward(ctx.grad(0), ctx.input(0), ctx.output(0))};
  }
};

}  // namespace

std::pair<Tensor, Tensor> min_dim(const Tensor& a, int64_t dim, bool keepdim) {
  Tensors out = autograd::run(std::make_shared<MinDim>(dim, keepdim), {a});
  return {out[0], out[1]};
}

Tensor min(const Tensor& a) { return run1<MinAll>({a}); }

Tensor argmin(const Tensor& a, int64_t dim, bool keepdim) {
  if (a.dtype() == TSR_BOOL) kernels::not_implemented("argmin", "argmin_cpu", a.dtype());
  kernels::check_min_dim(a, &dim, "argmin");
  if (a.device().type != TSR_DEVICE_CPU) return device::min_dim(device::kernels_for(a.device()), a, dim, keepdim).second;
  return kernels::max_dim(kernels::order_reversed(a), dim, keepdim).second;
}

}  // namespace tsr::ops
