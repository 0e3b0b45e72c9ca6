// Advanced indexing: index (IndexBackward0), index_put / index_put_
// (IndexPutBackward0), nonzero, take_along_dim. Inputs: self, then (for
// index_put) values, then one entry per indexed dim, undefined for a full
// slice. Backward formulas: torch 1.13's derivatives.yaml (index_backward:
// the gradient index_put with accumulate into zeros).
#include "primitive/op_names.h"
#include "ops/indexing_ops.h"

#include "autograd/run.h"
#include "core/views.h"
#include "cpu/kernels/advanced_index.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/map.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "device/index_ops.h"
#include "device/transfer.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "ops/writes_self.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"index", "index_put", "index_put_", "nonzero"});

std::vector<Tensor> tail(const Tensors& in, size_t from) {
  return std::vector<Tensor>(in.begin() + from, in.end());
}

// head, then the indices: an index on the CPU moves to the indexed
// tensor's device first (torch: cuda_x[cpu_index] works; an index has no
// gradient).
Tensors with_indices(Tensors head, const std::vector<Tensor>& indices) {
  const Device to = head[0].device();
  for (const Tensor& t : indices)
    head.push_back(t.defined() && t.device().type == TSR_DEVICE_CPU && to.type != TSR_DEVICE_CPU
                       ? device::to_device(t, to, false)
                       : t);
  return head;
}

class Index final : public prim::Primitive {
 public:
  const char* name() const override { return "IndexBackward0"; }
  const char* op() const override { return "index"; }
  std::vector<prim::TensorMeta> output_meta(const Tensors& in) const override {
    if (in[0].device().type != TSR_DEVICE_CPU)  // masks counted and indices checked there
      return {{device::index_result_sizes(device::kernels_for(in[0].device()), in[0], tail(in, 1)),
               in[0].dtype()}};
    return {{kernels::plan_index(in[0], tail(in, 1)).result_sizes, in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::index(kernels::plan_index(in[0], tail(in, 1)))}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::index(k, in[0], tail(in, 1))}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    uint32_t all = 0;
    for (size_t i = 1; i < rg.size(); ++i) all |= bit(i);
    return {all, 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const prim::TensorMeta& self = ctx.input_meta(0);
    std::vector<Tensor> indices;
    for (size_t i = 1; i < n_inputs_; ++i) indices.push_back(ctx.input(i));
    Tensor zeros = device::zeros_on(self.sizes, ctx.grad(0).dtype(), ctx.grad(0).device());
    Tensors grads{index_put(zeros, indices, ctx.grad(0), true)};
    for (size_t i = 1; i < n_inputs_; ++i) grads.push_back(Tensor());
    return grads;
  }
  size_t n_inputs_ = 0;
};

class IndexPut final : public WritesSelf {
 public:
  IndexPut(bool inplace, bool accumulate) : WritesSelf(inplace), accumulate_(accumulate) {}
  const char* name() const override { return "IndexPutBackward0"; }
  const char* op() const override { return inplace_ ? "index_put_" : "index_put"; }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    uint32_t all = 0;
    for (size_t i = 2; i < rg.size(); ++i) all |= bit(i);
    return {all, 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    std::vector<Tensor> indices;
    for (size_t i = 2; i < n_inputs_; ++i) indices.push_back(ctx.input(i));
    Tensor gs, gv;
    if (ctx.needs_input_grad(0))
      gs = accumulate_ ? g : index_put(g, indices, device::zeros_on({}, g.dtype(), g.device()), false);
    if (ctx.needs_input_grad(1)) gv = to_input(index(g, indices), ctx.input_meta(1));
    Tensors grads{gs, gv};
    for (size_t i = 2; i < n_inputs_; ++i) grads.push_back(Tensor());
    return grads;
  }
  size_t n_inputs_ = 0;

 private:
  void check(const Tensors& in) const override {
    TSR_CHECK(in[1].dtype() == in[0].dtype(), TSR_ERR_DTYPE_MISMATCH,
              "Index put requires the source and destination dtypes match, got ", kernels::scalar_type_name(in[0].dtype()),
              " for the destination and ", kernels::scalar_type_name(in[1].dtype()), " for the source.");
    kernels::check_index_tensors(in[0], tail(in, 2));
  }
  void write(const Tensor& self, const Tensors& in) override {
    const std::vector<Tensor> indices = tail(in, 2);
    // x[mask] = value with a mask of x's shape: a masked fill, without the
    // mask's coordinates (torch's Python setitem does the same).
    if (!accumulate_ && indices.size() == 1 && indices[0].defined() && indices[0].dtype() == TSR_BOOL &&
        indices[0].sizes() == self.sizes() && in[1].numel() == 1 && in[1].ndim() <= 1 &&
        is_floating(self.dtype())) {
      kernels::masked_fill_into(self, indices[0], kernels::scalar_value(source(self, in[1])));
      return;
    }
    // Indices are read (and checked) before values are written.
    const kernels::IndexPlan plan = kernels::plan_index(self, indices);
    kernels::index_put_into(plan, source(self, in[1]), accumulate_);
  }
  bool writes_on_devices() const override { return true; }
  void write_device(const Tensor& self, const Tensors& in, DeviceKernels& k) override {
    device::index_put_into(k, self, tail(in, 2), source(self, in[1]), accumulate_);
  }
  bool accumulate_;
};

class Nonzero final : public prim::Primitive {
 public:
  const char* name() const override { return "NonzeroBackward0"; }
  const char* op() const override { return "nonzero"; }
  std::vector<prim::TensorMeta> output_meta(const Tensors& in) const override {
    if (in[0].device().type != TSR_DEVICE_CPU)
      return {{{device::count_true(device::kernels_for(in[0].device()), in[0], in[0].sizes()), in[0].ndim()},
               TSR_INT64}};
    return {{{kernels::count_true(in[0], in[0].sizes()), in[0].ndim()}, TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::nonzero(in[0])}; }
  // The count comes back to the host to size the output: a
  // synchronization, as torch's nonzero on CUDA.
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::nonzero(k, in[0])}; }
};

}  // namespace

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  const Tensors in = with_indices({self}, indices);
  if (!autograd::keeps_primitive(in)) {
    Index p;
    p.n_inputs_ = in.size();
    return autograd::run_unkept(p, in)[0];
  }
  auto p = std::make_shared<Index>();
  p->n_inputs_ = in.size();
  return autograd::run(p, in)[0];
}

namespace {
Tensor run_index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                     bool inplace) {
  const Tensors in = with_indices({self, values}, indices);
  if (!autograd::keeps_primitive(in)) {
    IndexPut p(inplace, accumulate);
    p.n_inputs_ = in.size();
    return autograd::run_unkept(p, in)[0];
  }
  auto p = std::make_shared<IndexPut>(inplace, accumulate);
  p->n_inputs_ = in.size();
  return autograd::run(p, in)[0];
}
}  // namespace

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  return run_index_put(self, indices, values, accumulate, false);
}
void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  run_index_put(self, indices, values, accumulate, true);
}

Tensor nonzero(const Tensor& x) { return autograd::run1<Nonzero>({x}); }

Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
  TSR_CHECK(indices.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH,
            "torch.take_along_dim(): dtype of indices should be Long but got ", kernels::scalar_type_name(indices.dtype()));
  if (!dim) return gather(reshape(x, {x.numel()}), 0, reshape(indices, {indices.numel()}));
  TSR_CHECK(x.ndim() == indices.ndim(), TSR_ERR_SHAPE_MISMATCH,
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got ",
            x.ndim(), " dimensions for input, and ", indices.ndim(), " dimensions for indices");
  const int64_t d = wrap_dim(*dim, x.ndim());
  if (x.ndim() == 0) return gather(x, d, indices);
  // Broadcast everything but dim (torch's _take_along_dim_helper).
  Shape xs = x.sizes(), is = indices.sizes();
  xs[size_t(d)] = 1;
  is[size_t(d)] = 1;
  const Shape b = broadcast_shapes(xs, is);
  Shape xb = b, ib = b;
  xb[size_t(d)] = x.sizes()[size_t(d)];
  ib[size_t(d)] = indices.sizes()[size_t(d)];
  return gather(expand(x, xb), d, expand(indices, ib));
}

}  // namespace tsr::ops
