// Pooling primitives: max_pool2d with indices (MaxPool2DWithIndicesBackward0),
// avg_pool2d (AvgPool2DBackward0) and adaptive_avg_pool2d
// (AdaptiveAvgPool2DBackward0), torch 1.13's grad_fn names. Each backward is
// one more primitive (torch's *BackwardBackward0 names) on the gradient,
// linear in it, whose own backward is the forward pooling (or, for max
// pooling, a gather at the saved indices).
#include "autograd/run.h"
#include "device/cnn.h"
#include "device/max_pool.h"
#include "cpu/kernels/cnn.h"
#include "ops/cnn.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using kernels::Pair;
using kernels::Pool2dArgs;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

// Unbatched [C, H, W] input (torch's pooling takes it as it is, with the
// same grad_fn) runs as [1, C, H, W] views: the kernels see 4-D tensors.
Shape batched_sizes(const Shape& s) {
  if (s.size() != 3) return s;
  Shape b{1};
  b.insert(b.end(), s.begin(), s.end());
  return b;
}
Tensor batched_dense(const Tensor& t, tsr_memory_format fmt) { return kernels::dense_in(kernels::as_batched(t), fmt); }
Tensor like_input(const Tensor& result, bool unbatched) { return unbatched ? kernels::unbatched(result) : result; }

const bool registered = prim::register_op_names({"max_pool2d_with_indices", "max_pool2d_with_indices_backward",
                                                 "avg_pool2d", "avg_pool2d_backward", "adaptive_avg_pool2d",
                                                 "adaptive_avg_pool2d_backward"});

// inputs {grad_out, indices}: the gradient scattered to the maxima. Its own
// backward (linear in grad_out) gathers the incoming gradient at the same
// indices: torch's max_pool_double_backward.
class MaxPoolBackward final : public prim::Primitive {
 public:
  MaxPoolBackward(Pool2dArgs a, Shape x_sizes, tsr_memory_format fmt)
      : a_(a), x_sizes_(std::move(x_sizes)), fmt_(fmt) {}
  const char* name() const override { return "MaxPool2DWithIndicesBackwardBackward0"; }
  const char* op() const override { return "max_pool2d_with_indices_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{x_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override {
    return {like_input(kernels::max_pool2d_backward(batched_dense(in[0], fmt_), batched_dense(in[1], fmt_),
                                                    batched_sizes(x_sizes_), fmt_),
                       x_sizes_.size() == 3)};
  }
  // Each input element sums the gradients that chose it (src/device/max_pool.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {like_input(device::max_pool2d_backward(k, kernels::as_batched(in[0]), kernels::as_batched(in[1]),
                                                   batched_sizes(x_sizes_), a_, fmt_),
                       x_sizes_.size() == 3)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(1), 0}; }
  Tensors backward(const BackwardContext& ctx) override {
    if (!ctx.needs_input_grad(0)) return {Tensor(), Tensor()};
    Tensor idx = ctx.input(1);
    const int64_t h = idx.ndim() - 2;  // the plane's dims: h, h + 1
    Tensor gathered = gather(flatten(ctx.grad(0), h, h + 1), h, flatten(idx, h, h + 1));
    return {reshape(gathered, idx.sizes()), Tensor()};
  }

 private:
  Pool2dArgs a_;
  Shape x_sizes_;
  tsr_memory_format fmt_;
};

class MaxPool final : public prim::Primitive {
 public:
  MaxPool(Pool2dArgs a, tsr_memory_format fmt) : a_(a), fmt_(fmt) {}
  const char* name() const override { return "MaxPool2DWithIndicesBackward0"; }
  const char* op() const override { return "max_pool2d_with_indices"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    Shape s = kernels::pool2d_output_sizes("max_pool2d", in[0], a_);
    return {{s, in[0].dtype()}, {s, TSR_INT64}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    auto [y, i] = kernels::max_pool2d(batched_dense(in[0], fmt_), a_, fmt_);
    const bool unb = in[0].ndim() == 3;
    return {like_input(y, unb), like_input(i, unb)};
  }
  // The CPU's window scan, one output per thread (src/device/max_pool.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    auto [y, i] = device::max_pool2d(k, kernels::as_batched(in[0]), a_, fmt_);
    const bool unb = in[0].ndim() == 3;
    return {like_input(y, unb), like_input(i, unb)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  Tensors backward(const BackwardContext& ctx) override {
    return {autograd::run1<MaxPoolBackward>({ctx.grad(0), ctx.output(1)}, a_, ctx.input_meta(0).sizes, fmt_)};
  }

 private:
  Pool2dArgs a_;
  tsr_memory_format fmt_;
};

class AvgPoolBackward final : public prim::Primitive {
 public:
  AvgPoolBackward(Pool2dArgs a, Shape x_sizes, tsr_memory_format fmt) : a_(a), x_sizes_(std::move(x_sizes)), fmt_(fmt) {}
  const char* name() const override { return "AvgPool2DBackwardBackward0"; }
  const char* op() const override { return "avg_pool2d_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{x_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override {
    return {like_input(kernels::avg_pool2d_backward(batched_dense(in[0], fmt_), batched_sizes(x_sizes_), a_, fmt_),
                       x_sizes_.size() == 3)};
  }
  // cuDNN's pooling backward (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {like_input(device::avg_pool2d_backward(k, kernels::as_batched(in[0]), batched_sizes(x_sizes_), a_, fmt_),
                       x_sizes_.size() == 3)};
  }
  // Linear in grad_out, its adjoint the pooling itself.
  Tensors backward(const BackwardContext& ctx) override {
    if (!ctx.needs_input_grad(0)) return {Tensor()};
    return {avg_pool2d(ctx.grad(0), a_)};
  }

 private:
  Pool2dArgs a_;
  Shape x_sizes_;
  tsr_memory_format fmt_;
};

class AvgPool final : public prim::Primitive {
 public:
  AvgPool(Pool2dArgs a, tsr_memory_format fmt) : a_(a), fmt_(fmt) {}
  const char* name() const override { return "AvgPool2DBackward0"; }
  const char* op() const override { return "avg_pool2d"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::pool2d_output_sizes("avg_pool2d", in[0], a_), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {like_input(kernels::avg_pool2d(batched_dense(in[0], fmt_), a_, fmt_), in[0].ndim() == 3)};
  }
  // cuDNN's average pooling (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {like_input(device::avg_pool2d(k, kernels::as_batched(in[0]), a_, fmt_), in[0].ndim() == 3)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    return {autograd::run1<AvgPoolBackward>({ctx.grad(0)}, a_, ctx.input_meta(0).sizes, fmt_)};
  }

 private:
  Pool2dArgs a_;
  tsr_memory_format fmt_;
};

class AdaptiveAvgPoolBackward final : public prim::Primitive {
 public:
  AdaptiveAvgPoolBackward(Shape x_sizes, tsr_memory_format fmt) : x_sizes_(std::move(x_sizes)), fmt_(fmt) {}
  const char* name() const override { return "AdaptiveAvgPool2DBackwardBackward0"; }
  const char* op() const override { return "adaptive_avg_pool2d_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{x_sizes_, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override {
    return {like_input(kernels::adaptive_avg_pool2d_backward(batched_dense(in[0], fmt_), batched_sizes(x_sizes_), fmt_),
                       x_sizes_.size() == 3)};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {like_input(device::adaptive_avg_pool2d_backward(k, kernels::as_batched(in[0]), batched_sizes(x_sizes_), fmt_),
                       x_sizes_.size() == 3)};
  }
  // Linear in grad_out, its adjoint the pooling itself.
  Tensors backward(const BackwardContext& ctx) override {
    if (!ctx.needs_input_grad(0)) return {Tensor()};
    const Shape& gs = ctx.input_meta(0).sizes;
    return {adaptive_avg_pool2d(ctx.grad(0), {gs[gs.size() - 2], gs[gs.size() - 1]})};
  }

 private:
  Shape x_sizes_;
  tsr_memory_format fmt_;
};

// torch 1.13's adaptive_avg_pool2d computes a 1x1 output as
// input.mean({-1, -2}, keepdim) (MeanBackward1), restrided in place to
// channels_last for a channels_last input (AsStridedBackward1); the node
// carries the name torch's graph ends in.
class AdaptiveAvgPool final : public prim::Primitive {
 public:
  AdaptiveAvgPool(Pair out, tsr_memory_format fmt) : out_(out), fmt_(fmt) {}
  const char* name() const override {
    if (out_[0] == 1 && out_[1] == 1) return fmt_ == TSR_CHANNELS_LAST ? "AsStridedBackward1" : "MeanBackward1";
    return "AdaptiveAvgPool2DBackward0";
  }
  const char* op() const override { return "adaptive_avg_pool2d"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::adaptive_pool2d_output_sizes(in[0], out_), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    return {like_input(kernels::adaptive_avg_pool2d(batched_dense(in[0], fmt_), out_, fmt_), in[0].ndim() == 3)};
  }
  // cuDNN's average pooling with uniform windows (src/device/cnn.cpp).
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {like_input(device::adaptive_avg_pool2d(k, kernels::as_batched(in[0]), out_, fmt_), in[0].ndim() == 3)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    return {autograd::run1<AdaptiveAvgPoolBackward>({ctx.grad(0)}, ctx.input_meta(0).sizes, fmt_)};
  }

 private:
  Pair out_;
  tsr_memory_format fmt_;
};

}  // namespace

// The checks run before the format rule (which reads a 4-D input) and
// before any copy.
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a) {
  kernels::pool2d_output_sizes("max_pool2d", x, a);
  Tensors r = autograd::run(std::make_shared<MaxPool>(a, kernels::cnn_format(x)), {x});
  return {r[0], r[1]};
}

Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a) {
  kernels::pool2d_output_sizes("avg_pool2d", x, a);
  return autograd::run1<AvgPool>({x}, a, kernels::cnn_format(x));
}

Tensor adaptive_avg_pool2d(const Tensor& x, const Pair& output_size) {
  kernels::adaptive_pool2d_output_sizes(x, output_size);
  return autograd::run1<AdaptiveAvgPool>({x}, output_size, kernels::cnn_format(x));
}

}  // namespace tsr::ops
