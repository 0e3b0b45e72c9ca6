// Every view's backward is the adjoint of "pick these elements": start from
// zeros shaped like the input, replay the same view on them, and add the
// incoming gradient through it (overlapping views such as expand/unfold
// accumulate). Views that only regroup elements (view/reshape) take the
// cheaper path of reshaping the gradient back.
#include "ops/views.h"

#include <functional>

#include "autograd/node.h"
#include "core/views.h"
#include "kernels/elementwise.h"
#include "ops/layout.h"

namespace tsr::ops {

namespace {

using Replay = std::function<Tensor(const Tensor&)>;

struct ViewBackward final : autograd::Node {
  ViewBackward(const char* n, const Tensor& input, Replay r)
      : name_(n), input_sizes(input.sizes()), dtype(input.dtype()), replay(std::move(r)) {}
  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    Tensor g = kernels::zeros(input_sizes, dtype);
    kernels::add_into(replay(g), grads[0], 1.0);
    return {g};
  }
  const char* name() const override { return name_; }
  const char* name_;
  Shape input_sizes;
  tsr_dtype dtype;
  Replay replay;
};

struct RegroupBackward final : autograd::Node {
  RegroupBackward(const char* n, const Tensor& input) : name_(n), input_sizes(input.sizes()) {}
  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    return {ops::reshape(grads[0], input_sizes)};
  }
  const char* name() const override { return name_; }
  const char* name_;
  Shape input_sizes;
};

// Applies the geometric view and, when needed, records its backward.
Tensor record(const char* name, const Tensor& input, Replay replay) {
  Tensor out = replay(input);
  if (autograd::any_requires_grad({&input}))
    autograd::set_history(std::make_shared<ViewBackward>(name, input, std::move(replay)), {&input},
                          {&out});
  return out;
}

Tensor record_regroup(const char* name, const Tensor& input, Tensor out) {
  if (autograd::any_requires_grad({&input}))
    autograd::set_history(std::make_shared<RegroupBackward>(name, input), {&input}, {&out});
  return out;
}

}  // namespace

Tensor view(const Tensor& t, const Shape& sizes) {
  return record_regroup("ViewBackward0", t, views::view(t, sizes));
}

// grad_fn names are torch 1.13's for reshape: _reshape_alias when viewable
// (ReshapeAliasBackward0), else clone + _unsafe_view (UnsafeViewBackward0).
Tensor reshape(const Tensor& t, const Shape& sizes) {
  Shape shape = views::infer_size(sizes, t.numel());
  if (auto strides = views::compute_stride(t.sizes(), t.strides(), shape))
    return record_regroup("ReshapeAliasBackward0", t,
                          make_view(t, shape, *strides, t.storage_offset()));
  // Needs a copy: clone (differentiable) into contiguous memory, then view.
  Tensor c = clone(t, TSR_CONTIGUOUS_FORMAT);
  return record_regroup("UnsafeViewBackward0", c, views::view(c, shape));
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  return record("TransposeBackward0", t, [=](const Tensor& x) { return views::transpose(x, d0, d1); });
}
Tensor t(const Tensor& x) {
  return record("TBackward0", x, [](const Tensor& y) { return views::t(y); });
}
Tensor permute(const Tensor& t, const Shape& dims) {
  return record("PermuteBackward0", t, [=](const Tensor& x) { return views::permute(x, dims); });
}
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  return record("SliceBackward0", t, [=](const Tensor& x) { return views::narrow(x, dim, start, length); });
}
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  return record("SliceBackward0", t, [=](const Tensor& x) { return views::slice(x, dim, start, end, step); });
}
Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  return record("SelectBackward0", t, [=](const Tensor& x) { return views::select(x, dim, index); });
}
Tensor expand(const Tensor& t, const Shape& sizes) {
  return record("ExpandBackward0", t, [=](const Tensor& x) { return views::expand(x, sizes); });
}
Tensor squeeze(const Tensor& t) { return record_regroup("SqueezeBackward0", t, views::squeeze(t)); }
Tensor squeeze_dim(const Tensor& t, int64_t dim) {
  return record_regroup("SqueezeBackward1", t, views::squeeze_dim(t, dim));
}
Tensor unsqueeze(const Tensor& t, int64_t dim) {
  return record_regroup("UnsqueezeBackward0", t, views::unsqueeze(t, dim));
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
  return record_regroup("ViewBackward0", t, views::unflatten(t, dim, sizes));
}
Tensor movedim(const Tensor& t, const Shape& src, const Shape& dst) {
  if (t.ndim() == 0) return record_regroup("PermuteBackward0", t, views::movedim(t, src, dst));
  return permute(t, views::movedim_perm(t.ndim(), src, dst));
}
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  // The replay takes the offset relative to the tensor it is applied to, so
  // on the zero gradient (offset 0, contiguous) it picks the same elements:
  // exact when the input is contiguous, as PyTorch's fast path assumes.
  int64_t rel = offset - t.storage_offset();
  if (autograd::any_requires_grad({&t}))
    TSR_CHECK(rel >= 0, TSR_ERR_UNSUPPORTED,
              "as_strided: backward for a storage_offset before the input's own offset is not supported");
  return record("AsStridedBackward0", t, [=](const Tensor& x) {
    return views::as_strided(x, sizes, strides, x.storage_offset() + rel);
  });
}
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  return record("UnfoldBackward0", t, [=](const Tensor& x) { return views::unfold(x, dim, size, step); });
}
Tensor diagonal(const Tensor& t, int64_t offset, int64_t d1, int64_t d2) {
  return record("DiagonalBackward0", t, [=](const Tensor& x) { return views::diagonal(x, offset, d1, d2); });
}

}  // namespace tsr::ops
