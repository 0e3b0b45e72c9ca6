// Sorting and selection: sort (SortBackward0 / SortBackward1), topk (TopkBackward0),
// kthvalue (KthvalueBackward0); argsort is sort's indices. The gradient
// goes back to the positions the indices name: zeros scattered with the
// output's gradient, itself differentiable (scatter's backward is gather).
#include "primitive/op_names.h"
#include "ops/sorting.h"

#include "autograd/run.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/indexing.h"
#include "cpu/kernels/sort.h"
#include "device/select_ops.h"
#include "device/sort_ops.h"
#include "ops/nn_functional.h"
#include "ops/grad_util.h"
#include "ops/indexing_ops.h"
#include "ops/views.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"sort", "topk", "kthvalue"});

// topk and kthvalue have no CPU kernel for bool and float16 in torch 1.13.
void check_selectable(const Tensor& x, const char* kernel) {
  TSR_CHECK(x.dtype() != TSR_BOOL && x.dtype() != TSR_FLOAT16, TSR_ERR_DTYPE_MISMATCH, "\"", kernel,
            "\" not implemented for '", kernels::scalar_type_name(x.dtype()), "'");
}

// x's size along dim (1 for a 0-dim x), dim wrapped.
int64_t dim_size(const Tensor& x, int64_t* dim) {
  *dim = wrap_dim(*dim, x.ndim());
  return x.ndim() ? x.sizes()[size_t(*dim)] : 1;
}

// zeros(sizes).scatter(dim, index, grad) where the indices along dim are
// distinct (a permutation, the top k, the k-th): the same as adding grad
// into zeros, which is what a device has a kernel for (gather's backward).
// Named as torch's ScatterBackward0; its backward is gather, so double
// backward works.
class ScatterIntoZeros final : public prim::Primitive {
 public:
  ScatterIntoZeros(Shape sizes, int64_t dim) : sizes_(std::move(sizes)), dim_(dim) {}
  const char* name() const override { return "ScatterBackward0"; }
  const char* op() const override { return "scatter"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::scatter_add_zeros(sizes_, dim_, in[1], in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::scatter_add_zeros(k, sizes_, dim_, in[1], in[0])};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override { return {gather(ctx.grad(0), dim_, ctx.input(1)), Tensor()}; }

 private:
  Shape sizes_;
  int64_t dim_;
};

// grad scattered into zeros of the input's sizes at indices along dim.
Tensor scattered_back(const Tensor& grad, const Tensor& indices, const TensorMeta& input, int64_t dim) {
  if (grad.device().type != TSR_DEVICE_CPU)
    return autograd::run1<ScatterIntoZeros>(
        {grad, indices}, input.sizes, input.sizes.empty() ? 0 : wrap_dim(dim, int64_t(input.sizes.size())));
  const Tensor zeros = kernels::zeros(input.sizes, grad.dtype());
  if (input.sizes.empty()) return scatter(zeros, 0, indices, grad, ScatterReduce::Assign);
  return scatter(zeros, wrap_dim(dim, int64_t(input.sizes.size())), indices, grad, ScatterReduce::Assign);
}

class Sort final : public prim::Primitive {
 public:
  Sort(int64_t dim, bool descending, bool stable) : dim_(dim), descending_(descending), stable_(stable) {}
  const char* name() const override { return stable_ ? "SortBackward1" : "SortBackward0"; }
  const char* op() const override { return "sort"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    int64_t d = dim_;
    dim_size(in[0], &d);
    return {{in[0].sizes(), in[0].dtype()}, {in[0].sizes(), TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    auto [values, indices] = kernels::sort(in[0], dim_, descending_);
    return {values, indices};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    auto [values, indices] = device::sort(k, in[0], dim_, descending_);
    return {values, indices};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {scattered_back(ctx.grad(0), ctx.output(1), ctx.input_meta(0), dim_)};
  }

 private:
  int64_t dim_;
  bool descending_, stable_;
};

class Topk final : public prim::Primitive {
 public:
  Topk(int64_t k, int64_t dim, bool largest) : k_(k), dim_(dim), largest_(largest) {}
  const char* name() const override { return "TopkBackward0"; }
  const char* op() const override { return "topk"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    int64_t d = dim_;
    const int64_t n = dim_size(in[0], &d);
    TSR_CHECK(k_ >= 0 && k_ <= n, TSR_ERR_INVALID_ARGUMENT, "selected index k out of range (k ", k_,
              ", dim ", d, " of size ", n, ")");
    check_selectable(in[0], "topk_cpu");
    Shape sizes = in[0].sizes();
    if (!sizes.empty()) sizes[size_t(d)] = k_;
    return {{sizes, in[0].dtype()}, {sizes, TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    output_meta(in);
    auto [values, indices] = kernels::topk(in[0], k_, dim_, largest_);
    return {values, indices};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    output_meta(in);
    auto [values, indices] = device::topk(k, in[0], k_, dim_, largest_);
    return {values, indices};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {scattered_back(ctx.grad(0), ctx.output(1), ctx.input_meta(0), dim_)};
  }

 private:
  int64_t k_, dim_;
  bool largest_;
};

class Kthvalue final : public prim::Primitive {
 public:
  Kthvalue(int64_t k, int64_t dim, bool keepdim) : k_(k), dim_(dim), keepdim_(keepdim) {}
  const char* name() const override { return "KthvalueBackward0"; }
  const char* op() const override { return "kthvalue"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    int64_t d = dim_;
    const int64_t n = dim_size(in[0], &d);
    TSR_CHECK(n > 0, TSR_ERR_INDEX_OUT_OF_RANGE, "kthvalue(): Expected reduction dim ", d,
              " to have non-zero size.");
    TSR_CHECK(k_ >= 1 && k_ <= n, TSR_ERR_INVALID_ARGUMENT, "kthvalue(): selected number k out of range for dimension ",
              d, " (k ", k_, ", size ", n, ")");
    check_selectable(in[0], "kthvalue_cpu");
    Shape sizes = in[0].sizes();
    if (!sizes.empty()) {
      if (keepdim_) sizes[size_t(d)] = 1;
      else sizes.erase(sizes.begin() + d);
    }
    return {{sizes, in[0].dtype()}, {sizes, TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    output_meta(in);
    auto [values, indices] = kernels::kthvalue(in[0], k_, dim_, keepdim_);
    return {values, indices};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    output_meta(in);
    auto [values, indices] = device::kthvalue(k, in[0], k_, dim_, keepdim_);
    return {values, indices};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  Tensors backward(const BackwardContext& ctx) override {
    const TensorMeta& in = ctx.input_meta(0);
    Tensor g = ctx.grad(0), i = ctx.output(1);
    if (!keepdim_ && !in.sizes.empty()) {  // the scatter needs the dim back
      const int64_t d = wrap_dim(dim_, int64_t(in.sizes.size()));
      g = unsqueeze(g, d);
      i = unsqueeze(i, d);
    }
    return {scattered_back(g, i, in, dim_)};
  }

 private:
  int64_t k_, dim_;
  bool keepdim_;
};

std::pair<Tensor, Tensor> pair_of(const Tensors& out) { return {out[0], out[1]}; }

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return pair_of(autograd::run(std::make_shared<Sort>(dim, descending, stable), {x}));
}
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest) {
  return pair_of(autograd::run(std::make_shared<Topk>(k, dim, largest), {x}));
}
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  return pair_of(autograd::run(std::make_shared<Kthvalue>(k, dim, keepdim), {x}));
}

}  // namespace tsr::ops
