// Selection and indexing primitives: where (WhereBackward0), index_select
// (IndexSelectBackward0), gather (GatherBackward0), embedding
// (EmbeddingBackward0). Backward: where again, index_add and scatter_add
// into zeros, themselves primitives whose backward is index_select /
// gather, so create_graph works. Indices are checked (all of them, before
// anything is written): TSR_ERR_INDEX_OUT_OF_RANGE.
#include "primitive/op_names.h"
#include "autograd/run.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/indexing.h"
#include "device/any_device.h"
#include "device/select_ops.h"
#include "ops/cpu_scalar.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"
#include "ops/views.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"where", "index_select", "gather", "embedding", "index_add", "scatter_add"});


class Where final : public prim::Primitive {
 public:
  const char* name() const override { return "WhereBackward0"; }
  const char* op() const override { return "where"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    const tsr_dtype d = kernels::where_result_dtype(in[0], in[1], in[2]);
    return {{broadcast_shapes(broadcast_shapes(in[0].sizes(), in[1].sizes()), in[2].sizes()), d}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::where(in[0], in[1], in[2])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::where(k, in[0], in[1], in[2])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), 0}; }
  // where(cond, g, 0) for a, where(cond, 0, g) for b.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor cond = ctx.input(0);
    Tensor zero = device::zeros_on({}, g.dtype(), g.device());
    Tensor ga, gb;
    if (ctx.needs_input_grad(1)) ga = to_input(where(cond, g, zero), ctx.input_meta(1));
    if (ctx.needs_input_grad(2)) gb = to_input(where(cond, zero, g), ctx.input_meta(2));
    return {Tensor(), ga, gb};
  }
};

// zeros(sizes).index_add_(dim, index, src): index_select's backward, a
// primitive so that its own backward (index_select of the gradient) is
// recorded under create_graph.
class IndexAdd final : public prim::Primitive {
 public:
  IndexAdd(Shape sizes, int64_t dim) : sizes_(std::move(sizes)), dim_(dim) {}
  const char* name() const override { return "IndexAddBackward0"; }
  const char* op() const override { return "index_add"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::index_add_zeros(sizes_, dim_, in[1], in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::index_add_zeros(k, sizes_, dim_, in[1], in[0])};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {index_select(ctx.grad(0), dim_, ctx.input(1)), Tensor()};
  }

 private:
  Shape sizes_;
  int64_t dim_;
};

class IndexSelect final : public prim::Primitive {
 public:
  explicit IndexSelect(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "IndexSelectBackward0"; }
  const char* op() const override { return "index_select"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::index_select_sizes(in[0], dim_, in[1]), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::index_select(in[0], dim_, in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::index_select(k, in[0], dim_, in[1])};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& sizes = ctx.input_meta(0).sizes;
    return {run1<IndexAdd>({ctx.grad(0), ctx.input(1)}, sizes, sizes.empty() ? 0 : wrap_dim(dim_, int64_t(sizes.size()))),
            Tensor()};
  }

 private:
  int64_t dim_;
};

// zeros(sizes).scatter_add_(dim, index, src): gather's backward; its own
// backward is gather.
class ScatterAdd final : public prim::Primitive {
 public:
  ScatterAdd(Shape sizes, int64_t dim) : sizes_(std::move(sizes)), dim_(dim) {}
  const char* name() const override { return "ScatterAddBackward0"; }
  const char* op() const override { return "scatter_add"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::scatter_add_zeros(sizes_, dim_, in[1], in[0])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::scatter_add_zeros(k, sizes_, dim_, in[1], in[0])};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {gather(ctx.grad(0), dim_, ctx.input(1)), Tensor()};
  }

 private:
  Shape sizes_;
  int64_t dim_;
};

class Gather final : public prim::Primitive {
 public:
  explicit Gather(int64_t dim) : dim_(dim) {}
  const char* name() const override { return "GatherBackward0"; }
  const char* op() const override { return "gather"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_gather(in[0], dim_, in[1]);
    return {{in[1].sizes(), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::gather(in[0], dim_, in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::gather(k, in[0], dim_, in[1])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& sizes = ctx.input_meta(0).sizes;
    return {run1<ScatterAdd>({ctx.grad(0), ctx.input(1)}, sizes, wrap_dim(dim_, int64_t(sizes.size()))), Tensor()};
  }

 private:
  int64_t dim_;
};

// embedding: rows of weight picked by indices; backward adds each row of
// the gradient into its weight row (embedding_dense_backward, an index_add
// over the flattened indices).
class Embedding final : public prim::Primitive {
 public:
  const char* name() const override { return "EmbeddingBackward0"; }
  const char* op() const override { return "embedding"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::embedding_sizes(in[0], in[1]), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::embedding(in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::embedding(k, in[0], in[1])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& wsizes = ctx.input_meta(0).sizes;
    Tensor indices = ctx.input(1);
    Tensor flat = reshape(indices, {indices.numel()});
    Tensor rows = reshape(ctx.grad(0), {indices.numel(), wsizes[1]});
    return {run1<IndexAdd>({rows, flat}, wsizes, int64_t(0)), Tensor()};
  }
};

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  return run1<IndexSelect>({x, index}, dim);
}
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) { return run1<Gather>({x, index}, dim); }
Tensor embedding(const Tensor& weight, const Tensor& indices) { return run1<Embedding>({weight, indices}); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return run1<Where>({cpu_scalar_to_device_of(cond, {&a, &b}), cpu_scalar_to_device_of(a, {&cond, &b}),
                      cpu_scalar_to_device_of(b, {&cond, &a})});
}

}  // namespace tsr::ops
