// sum, mean, max, argmax with autograd.
#include <cmath>

#include "autograd/node.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/views.h"
#include "kernels/elementwise.h"
#include "kernels/reduce.h"
#include "ops/grad_util.h"
#include "ops/math.h"

namespace tsr::ops {

namespace {

// The gradient of a keepdim=false reduction with the reduced dims put back
// as size 1, so it broadcasts against the input.
Tensor unsqueeze_reduced(const Tensor& g, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) r = views::unsqueeze(r, int64_t(d));
  return r;
}

// sum and mean: the gradient broadcast back over the reduced dims (times
// 1/count for mean), materialised densely.
struct ReduceBackward final : autograd::Node {
  ReduceBackward(const char* n, const Tensor& in, std::vector<bool> mask, bool keepdim, double scale)
      : name_(n), in_(in), mask(std::move(mask)), keepdim(keepdim), scale(scale) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor grad = views::expand(unsqueeze_reduced(g[0], mask, keepdim), in_.sizes);
    Tensor out = scale == 1.0 ? kernels::contiguous_copy(grad, grad.dtype())
                              : kernels::mul_scalar(grad, scale);
    return {out};
  }
  const char* name() const override { return name_; }
  const char* name_;
  InputInfo in_;
  std::vector<bool> mask;
  bool keepdim;
  double scale;
};

// max(dim): the gradient goes to the position of each maximum.
struct MaxDimBackward final : autograd::Node {
  MaxDimBackward(const Tensor& in, int64_t dim, bool keepdim, const Tensor& indices)
      : in_(in), dim(dim), keepdim(keepdim), indices(indices, 1) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor idx = indices.unpack(*this);
    Tensor out = kernels::zeros(in_.sizes, g[0].dtype());
    if (out.numel() == 0) return {out};
    std::vector<bool> mask(in_.sizes.size(), false);
    if (!mask.empty()) mask[dim] = true;
    Tensor gk = unsqueeze_reduced(g[0], mask, keepdim);
    Tensor ik = unsqueeze_reduced(idx, mask, keepdim);
    // Walk every output position: out[..., idx, ...] = g[..., 0, ...].
    Tensor gi = kernels::contiguous_copy(gk, gk.dtype());
    Tensor ii = kernels::contiguous_copy(ik, TSR_INT64);
    const int64_t nd = int64_t(in_.sizes.size());
    const int64_t ostride = nd ? out.strides()[dim] : 0;
    Shape pos(nd, 0);
    dispatch_floating(out.dtype(), "max backward", [&]<typename T>() {
      const T* gp = gi.data<T>();
      const int64_t* ip = ii.data<int64_t>();
      T* op = out.data<T>();
      for (int64_t k = 0; k < gi.numel(); ++k) {
        int64_t off = 0, rem = k;
        for (int64_t d = nd - 1; d >= 0; --d) {
          int64_t size = gi.sizes()[d];
          off += (rem % size) * out.strides()[d];
          rem /= size;
        }
        op[off + ip[k] * ostride] = gp[k];
      }
    });
    return {out};
  }
  void release_saved() override { indices.reset(); }
  const char* name() const override { return "MaxBackward0"; }
  InputInfo in_;
  int64_t dim;
  bool keepdim;
  autograd::SavedVariable indices;
};

// max(): the gradient split evenly among all maximal elements
// (torch's evenly_distribute_backward).
struct MaxAllBackward final : autograd::Node {
  MaxAllBackward(const Tensor& in, const Tensor& result) : input(in), result(result, 0) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor x = kernels::contiguous_copy(input.unpack(*this), g[0].dtype());
    Tensor out = kernels::zeros(x.sizes(), x.dtype());
    dispatch_floating(x.dtype(), "max backward", [&]<typename T>() {
      using C = compute_t<T>;
      const C m = C(*result.unpack(*this).data<T>());
      const C gv = C(*g[0].data<T>());
      const T* xp = x.data<T>();
      T* op = out.data<T>();
      const bool nan = m != m;
      int64_t count = 0;
      for (int64_t i = 0; i < x.numel(); ++i) count += nan ? C(xp[i]) != C(xp[i]) : C(xp[i]) == m;
      for (int64_t i = 0; i < x.numel(); ++i)
        if (nan ? C(xp[i]) != C(xp[i]) : C(xp[i]) == m) op[i] = T(C(gv / C(count)));
    });
    return {out};
  }
  void release_saved() override { input.reset(); result.reset(); }
  const char* name() const override { return "MaxBackward1"; }
  autograd::SavedVariable input, result;
};

}  // namespace

Tensor sum(const Tensor& a, const Shape& dims, bool keepdim) {
  auto mask = kernels::reduction_mask(a, dims);
  Tensor out = kernels::sum(a, mask, keepdim);
  if (autograd::any_requires_grad({&a}))
    // torch: x.sum() is SumBackward0; sum over dims (also all of them with
    // keepdim) is SumBackward1. Same for mean.
    autograd::set_history(std::make_shared<ReduceBackward>(
                              dims.empty() && !keepdim ? "SumBackward0" : "SumBackward1", a,
                              mask, keepdim, 1.0),
                          {&a}, {&out});
  return out;
}

Tensor mean(const Tensor& a, const Shape& dims, bool keepdim) {
  auto mask = kernels::reduction_mask(a, dims);
  Tensor out = kernels::mean(a, mask, keepdim);
  if (autograd::any_requires_grad({&a})) {
    int64_t count = 1;
    for (int64_t i = 0; i < a.ndim(); ++i)
      if (mask[i]) count *= a.sizes()[i];
    autograd::set_history(std::make_shared<ReduceBackward>(
                              dims.empty() && !keepdim ? "MeanBackward0" : "MeanBackward1", a,
                              mask, keepdim, 1.0 / double(count)),
                          {&a}, {&out});
  }
  return out;
}

std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim) {
  auto [values, indices] = kernels::max_dim(a, dim, keepdim);
  if (autograd::any_requires_grad({&a}))
    autograd::set_history(std::make_shared<MaxDimBackward>(a, wrap_dim(dim, a.ndim()), keepdim, indices),
                          {&a}, {&values});
  return {values, indices};
}

Tensor max(const Tensor& a) {
  TSR_CHECK(a.numel() > 0, TSR_ERR_SHAPE_MISMATCH,
            "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument.");
  // One flat row in C order (the order the first NaN is picked in); a
  // contiguous input is viewed as it is rather than copied first.
  Tensor dense = is_contiguous_strides(a.sizes(), a.strides())
                     ? a
                     : kernels::contiguous_copy(a, a.dtype());
  Tensor flat = make_view(dense, {a.numel()}, {1}, dense.storage_offset());
  Tensor out = kernels::max_dim(flat, 0, false).first;
  if (autograd::any_requires_grad({&a}))
    autograd::set_history(std::make_shared<MaxAllBackward>(a, out), {&a}, {&out});
  return out;
}

Tensor argmax(const Tensor& a, int64_t dim, bool keepdim) {
  return kernels::max_dim(a, dim, keepdim).second;
}

}  // namespace tsr::ops
