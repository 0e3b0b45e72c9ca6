// Factories and shape ops: linspace, eye (no history), tril / triu
// (TrilBackward0 / TriuBackward0, in place too), flip (FlipBackward0), roll
// (RollBackward0), repeat (RepeatBackward0; tile is repeat). Backward
// formulas: torch 1.13's derivatives.yaml.
#include "primitive/op_names.h"
#include "ops/shape_ops.h"

#include <algorithm>

#include "autograd/run.h"
#include "core/factory.h"
#include "core/views.h"
#include "device/device_ops.h"
#include "device/index_ops.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/shape_ops.h"
#include "ops/math.h"
#include "ops/views.h"
#include "ops/writes_self.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"tril", "triu", "tril_", "triu_", "flip", "roll", "repeat"});

class Triangle final : public WritesSelf {
 public:
  Triangle(bool inplace, int64_t k, bool upper) : WritesSelf(inplace), k_(k), upper_(upper) {}
  const char* name() const override { return upper_ ? "TriuBackward0" : "TrilBackward0"; }
  const char* op() const override {
    return upper_ ? (inplace_ ? "triu_" : "triu") : (inplace_ ? "tril_" : "tril");
  }
  Tensors backward(const BackwardContext& ctx) override { return {triangle(ctx.grad(0), k_, upper_)}; }

 private:
  void check(const Tensors& in) const override {
    TSR_CHECK(in[0].ndim() >= 2, TSR_ERR_INVALID_ARGUMENT, upper_ ? "triu" : "tril",
              ": input tensor must have at least 2 dimensions (got ", in[0].ndim(), ")");
  }
  void write(const Tensor& self, const Tensors&) override { kernels::zero_triangle(self, k_, upper_); }
  int64_t k_;
  bool upper_;
};

// Wrapped, distinct dims (torch's messages).
Shape checked_dims(const Shape& dims, int64_t ndim) {
  Shape out;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    TSR_CHECK(std::find(out.begin(), out.end(), w) == out.end(), TSR_ERR_INVALID_ARGUMENT, "dim ", w,
              " appears multiple times in the list of dims");
    out.push_back(w);
  }
  return out;
}

class Flip final : public prim::Primitive {
 public:
  explicit Flip(Shape dims) : dims_(std::move(dims)) {}
  const char* name() const override { return "FlipBackward0"; }
  const char* op() const override { return "flip"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    checked_dims(dims_, in[0].ndim());
    return {prim::meta_of(in[0])};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {kernels::flip(in[0], checked_dims(dims_, in[0].ndim()))};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::flip(k, in[0], checked_dims(dims_, in[0].ndim()))};
  }
  Tensors backward(const BackwardContext& ctx) override { return {flip(ctx.grad(0), dims_)}; }

 private:
  Shape dims_;
};

// kernels::roll and kernels::repeat on a device: the same slices and
// expanded views, moved by the device's copy kernel.
Tensor roll_on(DeviceKernels& k, const Tensor& x, const Shape& shifts, const Shape& dims) {
  Tensor cur = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], n = cur.sizes()[size_t(d)];
    Tensor next = empty(cur.sizes(), cur.dtype(), TSR_CONTIGUOUS_FORMAT, cur.device());
    if (n == 0 || next.numel() == 0) return next;
    const int64_t sh = ((shifts[i] % n) + n) % n;
    if (sh == 0) {
      device::copy_into(k, next, cur);
    } else {
      device::copy_into(k, views::narrow(next, d, sh, n - sh), views::narrow(cur, d, 0, n - sh));
      device::copy_into(k, views::narrow(next, d, 0, sh), views::narrow(cur, d, n - sh, sh));
    }
    cur = next;
  }
  if (cur.is_same(x)) return device::copy(k, x, x.dtype(), TSR_CONTIGUOUS_FORMAT);  // no dims rolled: a copy
  return cur;
}

Tensor repeat_on(DeviceKernels& k, const Tensor& x, const Shape& repeats) {
  const size_t nd = repeats.size(), lead = nd - size_t(x.ndim());
  Shape xs(nd, 1), xst(nd, 0), out_sizes(nd), pair_sizes, pair_src;
  for (size_t i = 0; i < size_t(x.ndim()); ++i) {
    xs[lead + i] = x.sizes()[i];
    xst[lead + i] = x.strides()[i];
  }
  for (size_t i = 0; i < nd; ++i) {
    out_sizes[i] = repeats[i] * xs[i];
    pair_sizes.push_back(repeats[i]);
    pair_sizes.push_back(xs[i]);
    pair_src.push_back(0);
    pair_src.push_back(xst[i]);
  }
  Tensor out = empty(out_sizes, x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  if (out.numel() == 0) return out;
  device::copy_into(k, make_view(out, pair_sizes, contiguous_strides(pair_sizes), 0),
                    make_view(x, pair_sizes, pair_src, x.storage_offset()));
  return out;
}

class Roll final : public prim::Primitive {
 public:
  Roll(Shape shifts, Shape dims) : shifts_(std::move(shifts)), dims_(std::move(dims)) {}
  const char* name() const override { return "RollBackward0"; }
  const char* op() const override { return "roll"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    check(in[0]);
    return {prim::meta_of(in[0])};
  }
  Tensors eval_cpu(const Tensors& in) override {
    check(in[0]);
    if (dims_.empty()) {  // flattened, rolled, viewed back
      const Tensor flat = kernels::contiguous_or_self(in[0]);
      const Tensor line = make_view(flat, {flat.numel()}, {1}, flat.storage_offset());
      const Tensor r = kernels::roll(line, shifts_, {0});
      return {make_view(r, in[0].sizes(), contiguous_strides(in[0].sizes()), 0)};
    }
    return {kernels::roll(in[0], shifts_, checked_dims(dims_, in[0].ndim()))};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    check(in[0]);
    if (dims_.empty()) {
      const Tensor flat = device::contiguous(k, in[0], in[0].dtype());
      const Tensor line = make_view(flat, {flat.numel()}, {1}, flat.storage_offset());
      const Tensor r = roll_on(k, line, shifts_, {0});
      return {make_view(r, in[0].sizes(), contiguous_strides(in[0].sizes()), 0)};
    }
    return {roll_on(k, in[0], shifts_, checked_dims(dims_, in[0].ndim()))};
  }
  Tensors backward(const BackwardContext& ctx) override {
    Shape back;
    for (int64_t s : shifts_) back.push_back(-s);
    return {roll(ctx.grad(0), back, dims_)};
  }

 private:
  void check(const Tensor& x) const {
    TSR_CHECK(!shifts_.empty(), TSR_ERR_INVALID_ARGUMENT, "`shifts` required");
    if (dims_.empty())
      TSR_CHECK(shifts_.size() == 1, TSR_ERR_INVALID_ARGUMENT, "shifts and dimensions must align. shifts: ",
                shifts_.size(), ", dims:0");
    else
      TSR_CHECK(shifts_.size() == dims_.size(), TSR_ERR_INVALID_ARGUMENT,
                "shifts and dimensions must align. shifts: ", shifts_.size(), ", dims:", dims_.size());
    for (int64_t d : dims_) wrap_dim(d, x.ndim());
  }
  Shape shifts_, dims_;
};

class Repeat final : public prim::Primitive {
 public:
  explicit Repeat(Shape repeats) : repeats_(std::move(repeats)) {}
  const char* name() const override { return "RepeatBackward0"; }
  const char* op() const override { return "repeat"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    TSR_CHECK(int64_t(repeats_.size()) >= in[0].ndim(), TSR_ERR_INVALID_ARGUMENT,
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    const size_t lead = repeats_.size() - size_t(in[0].ndim());
    Shape sizes(repeats_.size());
    for (size_t i = 0; i < repeats_.size(); ++i) {
      TSR_CHECK(repeats_[i] >= 0, TSR_ERR_INVALID_ARGUMENT, "Trying to create tensor with negative dimension ",
                repeats_[i], ": ", repeats_);
      sizes[i] = checked_mul(repeats_[i], i < lead ? 1 : in[0].sizes()[i - lead], "repeat");
    }
    checked_numel(sizes);
    return {{sizes, in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    output_meta(in);
    return {kernels::repeat(in[0], repeats_)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    output_meta(in);
    return {repeat_on(k, in[0], repeats_)};
  }
  // The gradient seen as [r0, s0, r1, s1, ...], summed over the r's.
  Tensors backward(const BackwardContext& ctx) override {
    const Shape& xs = ctx.input_meta(0).sizes;
    const size_t nd = repeats_.size(), lead = nd - xs.size();
    Shape pairs, summed;
    for (size_t i = 0; i < nd; ++i) {
      pairs.push_back(repeats_[i]);
      pairs.push_back(i < lead ? 1 : xs[i - lead]);
      summed.push_back(int64_t(2 * i));
    }
    return {reshape(sum(reshape(ctx.grad(0), pairs), summed, false), xs)};
  }

 private:
  Shape repeats_;
};

}  // namespace

Tensor linspace(double start, double end, int64_t steps, tsr_dtype dtype) {
  TSR_CHECK(steps >= 0, TSR_ERR_INVALID_ARGUMENT, "number of steps must be non-negative");
  check_dtype(dtype);
  return kernels::linspace(start, end, steps, dtype);
}

Tensor eye(int64_t n, int64_t m, tsr_dtype dtype) {
  TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "n must be greater or equal to 0, got ", n);
  TSR_CHECK(m >= 0, TSR_ERR_INVALID_ARGUMENT, "m must be greater or equal to 0, got ", m);
  check_dtype(dtype);
  return kernels::eye(n, m, dtype);
}

Tensor triangle(const Tensor& x, int64_t diagonal, bool upper) { return run1<Triangle>({x}, false, diagonal, upper); }
void triangle_(const Tensor& x, int64_t diagonal, bool upper) { run1<Triangle>({x}, true, diagonal, upper); }
Tensor flip(const Tensor& x, const Shape& dims) { return run1<Flip>({x}, dims); }
Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims) { return run1<Roll>({x}, shifts, dims); }
Tensor repeat(const Tensor& x, const Shape& repeats) { return run1<Repeat>({x}, repeats); }

Tensor tile(const Tensor& x, const Shape& reps) {
  Shape r = reps;
  while (int64_t(r.size()) < x.ndim()) r.insert(r.begin(), 1);
  return repeat(x, r);
}

}  // namespace tsr::ops
