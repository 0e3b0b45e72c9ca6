// Reduction primitives: sum, mean, max (over a dim and over everything),
// sum_to_size (broadcasting's adjoint), and the backward of max as
// primitives of their own.
#include "primitive/op_names.h"
#include "autograd/run.h"
#include "core/layout.h"
#include "core/views.h"
#include "device/device_ops.h"
#include "device/reduce_ops.h"
#include "device/select_ops.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/reduce.h"
#include "ops/grad_util.h"
#include "ops/views.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"sum", "mean", "sum_to_size", "max", "value_selecting_reduction_backward", "evenly_distribute_backward"});


// sum and mean over the dims in `mask`. Backward: the gradient broadcast
// back over the reduced dims (times 1/count for mean), materialised densely.
class Reduce final : public prim::Primitive {
 public:
  Reduce(bool is_mean, bool all_dims, std::vector<bool> mask, bool keepdim)
      : is_mean_(is_mean), all_dims_(all_dims), mask_(std::move(mask)), keepdim_(keepdim) {}
  // torch: x.sum() is SumBackward0; sum over dims (also all of them with
  // keepdim) is SumBackward1. Same for mean.
  const char* name() const override {
    if (is_mean_) return all_dims_ ? "MeanBackward0" : "MeanBackward1";
    return all_dims_ ? "SumBackward0" : "SumBackward1";
  }
  const char* op() const override { return is_mean_ ? "mean" : "sum"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::reduced_sizes(in[0].sizes(), mask_, keepdim_),
             is_mean_ ? in[0].dtype() : kernels::sum_result_dtype(in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {is_mean_ ? kernels::mean(in[0], mask_, keepdim_) : kernels::sum(in[0], mask_, keepdim_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {is_mean_ ? device::mean(k, in[0], mask_, keepdim_) : device::sum(k, in[0], mask_, keepdim_)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& sizes = ctx.input_meta(0).sizes;
    Tensor grad = expand(unsqueeze_kept(ctx.grad(0)), sizes);
    if (!is_mean_) return {clone(grad, TSR_CONTIGUOUS_FORMAT)};
    int64_t count = 1;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (mask_[i]) count *= sizes[i];
    return {mul_scalar(grad, 1.0 / double(count))};
  }

 private:
  Tensor unsqueeze_kept(const Tensor& g) const {
    if (keepdim_) return g;
    Tensor r = g;
    for (size_t d = 0; d < mask_.size(); ++d)
      if (mask_[d]) r = unsqueeze(r, int64_t(d));
    return r;
  }

  bool is_mean_, all_dims_;
  std::vector<bool> mask_;
  bool keepdim_;
};

// Sums a broadcast gradient down to an input's sizes.
class SumToSize final : public prim::Primitive {
 public:
  explicit SumToSize(Shape sizes) : sizes_(std::move(sizes)) {}
  const char* name() const override { return "SumBackward1"; }
  const char* op() const override { return "sum_to_size"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::sum_to_size(in[0], sizes_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::sum_to_size(k, in[0], sizes_)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    return {expand(ctx.grad(0), ctx.input_meta(0).sizes)};
  }

 private:
  Shape sizes_;
};

// The backward of max(dim) and min(dim) as a primitive: not differentiable
// again.
class ValueSelectingBackward final : public prim::Primitive {
 public:
  ValueSelectingBackward(Shape input_sizes, int64_t dim, bool keepdim)
      : input_sizes_(std::move(input_sizes)), dim_(dim), keepdim_(keepdim) {}
  const char* name() const override { return "ValueSelectingReductionBackward0"; }
  const char* op() const override { return "value_selecting_reduction_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{input_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::max_dim_backward(in[0], in[1], input_sizes_, dim_, keepdim_)};
  }
  // zeros.scatter(dim, indices, grad) as a scatter_add into zeros: one
  // index per output column, so 0 + g = g (a -0.0 gradient becomes +0.0).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    Tensor g = in[0], idx = in[1];
    if (!keepdim_ && !input_sizes_.empty()) {
      g = views::unsqueeze(g, dim_);
      idx = views::unsqueeze(idx, dim_);
    }
    return {device::scatter_add_zeros(k, input_sizes_, dim_, idx, g)};
  }

 private:
  Shape input_sizes_;
  int64_t dim_;
  bool keepdim_;
};

// max(dim): the gradient goes to the position of each maximum.
class MaxDim final : public prim::Primitive {
 public:
  MaxDim(int64_t dim, bool keepdim) : dim_(dim), keepdim_(keepdim) {}
  const char* name() const override { return "MaxBackward0"; }
  const char* op() const override { return "max"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    std::vector<bool> mask(in[0].ndim(), false);
    if (!mask.empty()) mask[wrap_dim(dim_, in[0].ndim())] = true;
    Shape sizes = kernels::reduced_sizes(in[0].sizes(), mask, keepdim_);
    return {{sizes, in[0].dtype()}, {sizes, TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    auto [values, indices] = kernels::max_dim(in[0], dim_, keepdim_);
    return {values, indices};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    auto [values, indices] = device::max_dim(k, in[0], dim_, keepdim_);
    return {values, indices};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& sizes = ctx.input_meta(0).sizes;
    return {value_selecting_reduction_backward(ctx.grad(0), ctx.output(1), sizes,
                                               wrap_dim(dim_, int64_t(sizes.size())), keepdim_)};
  }

 private:
  int64_t dim_;
  bool keepdim_;
};

// The backward of max() and min() as a primitive: not differentiable again.
class EvenlyDistributeBackward final : public prim::Primitive {
 public:
  const char* name() const override { return "EvenlyDistributeBackward0"; }
  const char* op() const override { return "evenly_distribute_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{in[1].sizes(), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::max_all_backward(in[0], in[1], in[2])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::evenly_distribute_backward(k, in[0], in[1], in[2])};
  }
};

// max(): the gradient split evenly among all maximal elements.
class MaxAll final : public prim::Primitive {
 public:
  const char* name() const override { return "MaxBackward1"; }
  const char* op() const override { return "max"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{{}, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override {
    const Tensor& a = in[0];
    TSR_CHECK(a.numel() > 0, TSR_ERR_SHAPE_MISMATCH,
              "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
    // One flat row in C order (the order the first NaN is picked in); a
    // contiguous input is viewed as it is rather than copied first.
    Tensor dense = kernels::contiguous_or_self(a);
    Tensor flat = make_view(dense, {a.numel()}, {1}, dense.storage_offset());
    return {kernels::max_dim(flat, 0, false).first};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::extreme_all(k, in[0], true)}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), bit(0)}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {evenly_distribute_backward(ctx.grad(0), ctx.input(0), ctx.output(0))};
  }
};

}  // namespace

Tensor sum(const Tensor& a, const Shape& dims, bool keepdim) {
  return run1<Reduce>({a}, false, dims.empty() && !keepdim, kernels::reduction_mask(a, dims), keepdim);
}

Tensor mean(const Tensor& a, const Shape& dims, bool keepdim) {
  return run1<Reduce>({a}, true, dims.empty() && !keepdim, kernels::reduction_mask(a, dims), keepdim);
}

Tensor sum_to_size(const Tensor& g, const Shape& sizes) {
  return g.sizes() == sizes ? g : run1<SumToSize>({g}, sizes);
}

std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim) {
  Tensors out = autograd::run(std::make_shared<MaxDim>(dim, keepdim), {a});
  return {out[0], out[1]};
}

Tensor max(const Tensor& a) { return run1<MaxAll>({a}); }

Tensor value_selecting_reduction_backward(const Tensor& grad, const Tensor& indices, const Shape& input_sizes,
                                          int64_t dim, bool keepdim) {
  return run1<ValueSelectingBackward>({grad, indices}, input_sizes, dim, keepdim);
}
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  return run1<EvenlyDistributeBackward>({grad, input, result});
}

Tensor argmax(const Tensor& a, int64_t dim, bool keepdim) {
  if (a.device().type != TSR_DEVICE_CPU) return device::max_dim(device::kernels_for(a.device()), a, dim, keepdim).second;
  return kernels::max_dim(a, dim, keepdim).second;
}

}  // namespace tsr::ops
