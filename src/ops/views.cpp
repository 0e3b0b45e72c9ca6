// View primitives. A view's forward re-strides its input (no copy; the
// output shares the input's storage). Its backward is the adjoint of "pick
// these elements": start from zeros shaped like the input, replay the same
// view on them, and add the incoming gradient through it (overlapping
// views such as expand/unfold accumulate); that scatter is a primitive too,
// whose own backward is the view again. Views that only regroup elements
// (view/reshape/squeeze) reshape the gradient back instead. as_strided
// works on storage geometry, as PyTorch's as_strided_backward does.
#include "primitive/op_names.h"
#include "ops/views.h"

#include <algorithm>
#include <functional>

#include "autograd/as_strided.h"
#include "autograd/run.h"
#include "core/layout.h"
#include "core/views.h"
#include "device/any_device.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "ops/grad_util.h"
#include "ops/layout.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"view", "reshape", "transpose", "t", "permute", "narrow", "slice", "select", "expand", "squeeze", "unsqueeze", "unflatten", "movedim", "as_strided", "unfold", "diagonal", "view_scatter", "as_strided_backward", "split", "split_backward"});


// The geometry of a view, applied to any tensor of the input's sizes.
using Replay = std::function<Tensor(const Tensor&)>;

// zeros(input sizes) with the gradient added through the replayed view.
class ViewScatter final : public prim::Primitive {
 public:
  ViewScatter(Shape input_sizes, Replay replay) : input_sizes_(std::move(input_sizes)), replay_(std::move(replay)) {}
  const char* name() const override { return "ViewScatterBackward0"; }
  const char* op() const override { return "view_scatter"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{input_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return scatter(in); }
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return scatter(in); }
  Tensors backward(const BackwardContext& ctx) override;

 private:
  Tensors scatter(const Tensors& in) const {
    Tensor g = device::zeros_on(input_sizes_, in[0].dtype(), in[0].device());
    device::add_into_any(replay_(g), in[0], 1.0);
    return {g};
  }

  Shape input_sizes_;
  Replay replay_;
};

class View final : public prim::Primitive {
 public:
  View(const char* name, const char* op, Replay replay)
      : name_(name), op_(op), replay_(std::move(replay)) {}
  const char* name() const override { return name_; }
  const char* op() const override { return op_; }
  bool is_view() const override { return true; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {prim::meta_of(replay_(in[0]))}; }
  Tensors eval_cpu(const Tensors& in) override { return {replay_(in[0])}; }
  // Geometry only: the same on every device.
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return {replay_(in[0])}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {run1<ViewScatter>({ctx.grad(0)}, ctx.input_meta(0).sizes, replay_)};
  }

 private:
  const char* name_;
  const char* op_;
  Replay replay_;
};

Tensors ViewScatter::backward(const BackwardContext& ctx) {
  return {run1<View>({ctx.grad(0)}, "ViewBackward0", "view", replay_)};
}

Tensor record(const char* name, const char* op, const Tensor& input, Replay replay) {
  return run1<View>({input}, name, op, std::move(replay));
}

// A view that only regroups elements (view, reshape, squeeze, unsqueeze,
// unflatten): its geometry, computed once by the caller, is kept as values
// (no std::function), and its backward reshapes the gradient back.
class Regroup final : public prim::Primitive {
 public:
  // out: the view of the input the caller computed; the first forward
  // (autograd::run's, on that same input) returns it instead of making it
  // again. Later forwards (a checkpoint replay) make it from their input.
  Regroup(const char* name, const char* op, const Tensor& input, Tensor out)
      : name_(name), op_(op), sizes_(out.sizes()), strides_(out.strides()),
        offset_(out.storage_offset() - input.storage_offset()) {
    // A view is always a tensor of its own (its history is set apart from
    // the input's).
    if (!out.is_same(input)) first_ = std::move(out);
  }
  const char* name() const override { return name_; }
  const char* op() const override { return op_; }
  bool is_view() const override { return true; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{sizes_, in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {view_of(in[0])}; }
  // Geometry only: the same on every device.
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return {view_of(in[0])}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {reshape(ctx.grad(0), ctx.input_meta(0).sizes)};
  }

 private:
  Tensor view_of(const Tensor& x) {
    if (first_.defined()) return std::move(first_);
    return make_view(x, sizes_, strides_, x.storage_offset() + offset_);
  }

  const char* name_;
  const char* op_;
  Shape sizes_, strides_;
  int64_t offset_;
  Tensor first_;
};

// Views that only regroup elements: geometry computed once here (its
// errors come before anything runs), the gradient reshaped back.
Tensor record_regroup(const char* name, const char* op, const Tensor& input, Tensor out) {
  return run1<Regroup>({input}, name, op, input, std::move(out));
}

// torch.split's backward: the pieces' gradients laid side by side along
// dim (zeros where a piece got none); its own backward splits again.
class SplitScatter final : public prim::Primitive {
 public:
  SplitScatter(Shape input_sizes, int64_t dim, Shape pieces)
      : input_sizes_(std::move(input_sizes)), dim_(dim), pieces_(std::move(pieces)) {}
  const char* name() const override { return "CatBackward0"; }
  const char* op() const override { return "split_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{input_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return scatter(in); }
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return scatter(in); }
  Tensors backward(const BackwardContext& ctx) override { return split(ctx.grad(0), pieces_, dim_); }

 private:
  Tensors scatter(const Tensors& in) const {
    Tensor g = device::zeros_on(input_sizes_, in[0].dtype(), in[0].device());
    int64_t start = 0;
    for (size_t i = 0; i < pieces_.size(); ++i) {
      device::add_into_any(views::narrow(g, dim_, start, pieces_[i]), in[i], 1.0);
      start += pieces_[i];
    }
    return {g};
  }

  Shape input_sizes_;
  int64_t dim_;
  Shape pieces_;
};

// torch.split / chunk: one primitive, all pieces its outputs (SplitBackward0).
class Split final : public prim::Primitive {
 public:
  Split(int64_t dim, Shape pieces) : dim_(dim), pieces_(std::move(pieces)) {}
  const char* name() const override { return "SplitBackward0"; }
  const char* op() const override { return "split"; }
  bool is_view() const override { return true; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    std::vector<TensorMeta> metas;
    for (int64_t p : pieces_) {
      Shape sizes = in[0].sizes();
      sizes[dim_] = p;
      metas.push_back({sizes, in[0].dtype()});
    }
    return metas;
  }
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return eval_cpu(in); }
  // Views only: the same on every device.
  Tensors eval_cpu(const Tensors& in) override {
    Tensors out;
    int64_t start = 0;
    for (int64_t p : pieces_) {
      out.push_back(views::narrow(in[0], dim_, start, p));
      start += p;
    }
    return out;
  }
  Tensors backward(const BackwardContext& ctx) override {
    Tensors grads;
    for (size_t i = 0; i < pieces_.size(); ++i) grads.push_back(ctx.grad(i));
    return {autograd::run(std::make_shared<SplitScatter>(ctx.input_meta(0).sizes, dim_, pieces_), grads)[0]};
  }

 private:
  int64_t dim_;
  Shape pieces_;
};

}  // namespace

std::vector<Tensor> split(const Tensor& t, const Shape& pieces, int64_t dim) {
  dim = wrap_dim(dim, t.ndim());
  return autograd::run(std::make_shared<Split>(dim, pieces), {t});
}

Tensor view(const Tensor& t, const Shape& sizes) {
  return record_regroup("ViewBackward0", "view", t, views::view(t, sizes));
}

// grad_fn names are torch 1.13's for reshape: _reshape_alias when viewable
// (ReshapeAliasBackward0), else clone + _unsafe_view (UnsafeViewBackward0).
Tensor reshape(const Tensor& t, const Shape& sizes) {
  Shape shape = views::infer_size(sizes, t.numel());
  if (auto strides = views::compute_stride(t.sizes(), t.strides(), shape))
    return record_regroup("ReshapeAliasBackward0", "reshape", t,
                          make_view(t, shape, *strides, t.storage_offset()));
  // Needs a copy: clone (differentiable) into contiguous memory, then view.
  Tensor c = clone(t, TSR_CONTIGUOUS_FORMAT);
  return record_regroup("UnsafeViewBackward0", "reshape", c, views::view(c, shape));
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  return record("TransposeBackward0", "transpose", t, [=](const Tensor& x) { return views::transpose(x, d0, d1); });
}
Tensor t(const Tensor& x) {
  return record("TBackward0", "t", x, [](const Tensor& y) { return views::t(y); });
}
Tensor permute(const Tensor& t, const Shape& dims) {
  return record("PermuteBackward0", "permute", t, [=](const Tensor& x) { return views::permute(x, dims); });
}
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  return record("SliceBackward0", "narrow", t,
                [=](const Tensor& x) { return views::narrow(x, dim, start, length); });
}
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  return record("SliceBackward0", "slice", t,
                [=](const Tensor& x) { return views::slice(x, dim, start, end, step); });
}
Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  return record("SelectBackward0", "select", t, [=](const Tensor& x) { return views::select(x, dim, index); });
}
Tensor expand(const Tensor& t, const Shape& sizes) {
  return record("ExpandBackward0", "expand", t, [=](const Tensor& x) { return views::expand(x, sizes); });
}
Tensor squeeze(const Tensor& t) { return record_regroup("SqueezeBackward0", "squeeze", t, views::squeeze(t)); }
Tensor squeeze_dim(const Tensor& t, int64_t dim) {
  return record_regroup("SqueezeBackward1", "squeeze", t, views::squeeze_dim(t, dim));
}
Tensor unsqueeze(const Tensor& t, int64_t dim) {
  return record_regroup("UnsqueezeBackward0", "unsqueeze", t, views::unsqueeze(t, dim));
}
Tensor flatten(const Tensor& t, int64_t start, int64_t end) {
  // Dims are checked first, also for a 0-dim tensor (which accepts 0 / -1).
  start = wrap_dim(start, t.ndim());
  end = wrap_dim(end, t.ndim());
  TSR_CHECK(start <= end, TSR_ERR_INVALID_ARGUMENT,
            "flatten() has invalid args: start_dim cannot come after end_dim");
  if (t.ndim() == 0) return reshape(t, {1});
  if (start == end) return t;  // PyTorch returns self
  return reshape(t, views::flatten_shape(t, start, end));
}
Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes) {
  return record_regroup("ViewBackward0", "unflatten", t, views::unflatten(t, dim, sizes));
}
Tensor movedim(const Tensor& t, const Shape& src, const Shape& dst) {
  if (t.ndim() == 0) return record_regroup("PermuteBackward0", "movedim", t, views::movedim(t, src, dst));
  return permute(t, views::movedim_perm(t.ndim(), src, dst));
}
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  return autograd::run(autograd::make_as_strided(autograd::geometry_of(t), {sizes, strides, offset}), {t})[0];
}
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  return record("UnfoldBackward0", "unfold", t, [=](const Tensor& x) { return views::unfold(x, dim, size, step); });
}
Tensor diagonal(const Tensor& t, int64_t offset, int64_t d1, int64_t d2) {
  return record("DiagonalBackward0", "diagonal", t,
                [=](const Tensor& x) { return views::diagonal(x, offset, d1, d2); });
}

}  // namespace tsr::ops
