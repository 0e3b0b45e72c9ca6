// var / std / var_mean / std_mean primitives (VarBackward0, StdBackward0,
// VarMeanBackward0, StdMeanBackward0) and logsumexp (LogsumexpBackward0). Backward as derivatives.yaml:
// var_backward = 2 / (N - correction) * grad * (x - mean(x)); std's grad is
// grad / (2 std), 0 where std is 0; the mean output adds grad / N. Written
// with ops so double backward works.
#include "autograd/run.h"
#include "cpu/kernels/any_all.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/statistics.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "device/reduce_ops.h"
#include "ops/compare.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"
#include "ops/reductions.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"var", "std", "var_mean", "std_mean", "logsumexp"});

class VarStd final : public prim::Primitive {
 public:
  VarStd(bool take_sqrt, bool with_mean, std::vector<bool> mask, int64_t correction, bool keepdim)
      : sqrt_(take_sqrt), with_mean_(with_mean), mask_(std::move(mask)), correction_(correction),
        keepdim_(keepdim) {}
  const char* name() const override {
    if (with_mean_) return sqrt_ ? "StdMeanBackward0" : "VarMeanBackward0";
    return sqrt_ ? "StdBackward0" : "VarBackward0";
  }
  const char* op() const override {
    if (with_mean_) return sqrt_ ? "std_mean" : "var_mean";
    return sqrt_ ? "std" : "var";
  }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_var_dtype(in[0].dtype(), with_mean_ ? op() : "std and var");
    TensorMeta m{kernels::reduced_sizes(in[0].sizes(), mask_, keepdim_), in[0].dtype()};
    if (with_mean_) return {m, m};
    return {m};
  }
  Tensors eval_cpu(const Tensors& in) override {
    auto [v, m] = kernels::var_mean(in[0], mask_, correction_, keepdim_, sqrt_);
    if (with_mean_) return {v, m};
    return {v};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    auto [v, m] = device::var_mean(k, in[0], mask_, correction_, keepdim_, sqrt_);
    if (with_mean_) return {v, m};
    return {v};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return {bit(0), sqrt_ ? bit(0) : 0u};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const TensorMeta& in = ctx.input_meta(0);
    Tensor x = ctx.input(0);
    const int64_t n = kernels::reduced_count(in.sizes, mask_);
    Tensor g = kept(ctx.grad(0));
    if (sqrt_) {
      Tensor r = kept(ctx.output(0));
      Tensor zero = device::zeros_on({}, r.dtype(), r.device());
      g = where(eq(r, zero), zero, div(g, mul_scalar(r, 2.0)));
    }
    Shape dims;
    for (size_t d = 0; d < mask_.size(); ++d)
      if (mask_[d]) dims.push_back(int64_t(d));
    Tensor centered = sub(x, mean(x, dims, true));
    Tensor gx = mul(mul_scalar(g, 2.0 / double(n - correction_)), centered);
    if (with_mean_) gx = add(gx, expand(mul_scalar(kept(ctx.grad(1)), 1.0 / double(n)), in.sizes));
    return {gx};
  }

 private:
  // A result with the reduced dims back as size 1 (broadcasts against x).
  Tensor kept(const Tensor& g) const {
    if (keepdim_) return g;
    Tensor r = g;
    for (size_t d = 0; d < mask_.size(); ++d)
      if (mask_[d]) r = unsqueeze(r, int64_t(d));
    return r;
  }

  bool sqrt_, with_mean_;
  std::vector<bool> mask_;
  int64_t correction_;
  bool keepdim_;
};

// A result with the dims in mask back as size 1 (broadcasts against x).
Tensor unsqueeze_mask(const Tensor& g, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) r = unsqueeze(r, int64_t(d));
  return r;
}

// logsumexp; backward grad * exp(x - result) (derivatives.yaml's
// logsumexp_backward).
class LogSumExp final : public prim::Primitive {
 public:
  LogSumExp(std::vector<bool> mask, bool keepdim) : mask_(std::move(mask)), keepdim_(keepdim) {}
  const char* name() const override { return "LogsumexpBackward0"; }
  const char* op() const override { return "logsumexp"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::reduced_sizes(in[0].sizes(), mask_, keepdim_), kernels::logsumexp_result_dtype(in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::logsumexp(in[0], mask_, keepdim_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::logsumexp(k, in[0], mask_, keepdim_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), bit(0)}; }
  Tensors backward(const BackwardContext& ctx) override {
    Tensor r = unsqueeze_mask(ctx.output(0), mask_, keepdim_);
    Tensor g = unsqueeze_mask(ctx.grad(0), mask_, keepdim_);
    return {mul(g, exp(sub(ctx.input(0), r)))};
  }

 private:
  std::vector<bool> mask_;
  bool keepdim_;
};

Tensors run_var(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim, bool take_sqrt,
                bool with_mean) {
  kernels::check_var_dtype(a.dtype(), with_mean ? (take_sqrt ? "std_mean" : "var_mean") : "std and var");
  return autograd::run(
      std::make_shared<VarStd>(take_sqrt, with_mean, kernels::reduction_mask(a, dims), correction, keepdim), {a});
}

}  // namespace

Tensor var(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim) {
  return run_var(a, dims, correction, keepdim, false, false)[0];
}
Tensor std_(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim) {
  return run_var(a, dims, correction, keepdim, true, false)[0];
}
std::pair<Tensor, Tensor> var_mean(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim) {
  Tensors r = run_var(a, dims, correction, keepdim, false, true);
  return {r[0], r[1]};
}
std::pair<Tensor, Tensor> std_mean(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim) {
  Tensors r = run_var(a, dims, correction, keepdim, true, true);
  return {r[0], r[1]};
}

Tensor logsumexp(const Tensor& a, const Shape& dims, bool keepdim) {
  return autograd::run1<LogSumExp>({a}, kernels::reduction_mask(a, dims), keepdim);
}

Tensor any_all(const Tensor& a, bool all_dims, int64_t dim, bool keepdim, bool is_all) {
  const std::vector<bool> mask = kernels::reduction_mask(a, all_dims ? Shape{} : Shape{dim});
  if (a.device().type != TSR_DEVICE_CPU)
    return device::any_all(device::kernels_for(a.device()), a, mask, keepdim, is_all);
  return kernels::any_all(a, mask, keepdim, is_all);
}

}  // namespace tsr::ops
