// Scan and product primitives: cumsum (CumsumBackward0), cumprod
// (CumprodBackward0), prod (ProdBackward0 over everything, ProdBackward1
// over a dim). Backward formulas are derivatives.yaml's, including its
// handling of zeros in cumprod and prod, built from ops (cumsum, cumprod,
// prod, where, mul, div) so that double backward works.
#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "core/shape.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/scan.h"
#include "device/any_device.h"
#include "device/reduce_ops.h"
#include "ops/compare.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"
#include "ops/reductions.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using autograd::run1;
using kernels::ScanOp;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"cumsum", "cumprod", "prod"});

// The dim a scan or prod(dim) runs along: wrapped (a 0-dim tensor takes 0
// and -1), torch's "Dimension out of range" otherwise.
int64_t scan_dim(const Tensor& a, int64_t dim) { return wrap_dim(dim, std::max<int64_t>(a.ndim(), 1)); }

// A 0-dim tensor of value v in dtype d on device.
Tensor scalar(double v, tsr_dtype d, Device device) {
  Tensor t = device::zeros_on({}, d, device);
  device::fill_any(t, v);
  return t;
}

Tensor cumsum_impl(const Tensor& a, int64_t dim, tsr_dtype result, bool reverse);

// An inclusive scan along dim_ (already wrapped) in result_ dtype; reverse_
// scans from the end: the backward of cumsum is a reverse cumsum.
class Scan final : public prim::Primitive {
 public:
  Scan(ScanOp op, int64_t dim, tsr_dtype result, bool reverse)
      : op_(op), dim_(dim), result_(result), reverse_(reverse) {}
  const char* name() const override { return op_ == ScanOp::kSum ? "CumsumBackward0" : "CumprodBackward0"; }
  const char* op() const override { return op_ == ScanOp::kSum ? "cumsum" : "cumprod"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_scan_dtype(op_, result_);
    return {{in[0].sizes(), result_}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::scan(in[0], dim_, op_, result_, reverse_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::scan(k, in[0], dim_, op_, result_, reverse_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return op_ == ScanOp::kSum ? prim::SaveSpec{} : prim::SaveSpec{bit(0), bit(0)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const TensorMeta& in = ctx.input_meta(0);
    Tensor g = ctx.grad(0);
    if (g.dtype() != in.dtype) g = to_dtype(g, in.dtype);
    if (op_ == ScanOp::kSum) return {cumsum_impl(g, dim_, in.dtype, !reverse_)};
    return {cumprod_backward(g, ctx.input(0), ctx.output(0))};
  }

 private:
  // derivatives.yaml's cumprod_backward. Before the first zero of a slice:
  // reverse_cumsum(g * out) / x. At the first zero z: reverse_cumsum(g * P)
  // with P the cumprod of x with x_z taken as 1. After it: 0.
  Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& out) const {
    const tsr_dtype d = x.dtype();
    const Device dev = x.device();
    Tensor zero = scalar(0, d, dev), one = scalar(1, d, dev);
    Tensor is_zero = eq(x, zero);
    Tensor zeros_so_far = cumsum_impl(is_zero, dim_, TSR_INT64, false);
    Tensor before = eq(zeros_so_far, scalar(0, TSR_INT64, dev));
    // The first zero: a zero with exactly one zero up to it.
    Tensor is_first = where(is_zero, eq(zeros_so_far, scalar(1, TSR_INT64, dev)), scalar(0, TSR_BOOL, dev));
    Tensor x_safe = where(before, x, one);
    Tensor ga = div(cumsum_impl(mul(g, out), dim_, d, true), x_safe);
    Tensor p = run1<Scan>({where(is_first, one, x)}, ScanOp::kProd, dim_, d, false);
    Tensor gz = cumsum_impl(mul(g, p), dim_, d, true);
    return where(before, ga, where(is_first, gz, zero));
  }

  ScanOp op_;
  int64_t dim_;
  tsr_dtype result_;
  bool reverse_;
};

Tensor cumsum_impl(const Tensor& a, int64_t dim, tsr_dtype result, bool reverse) {
  return run1<Scan>({a}, ScanOp::kSum, dim, result, reverse);
}

// prod over everything (all_) or over dim_ (wrapped).
class Prod final : public prim::Primitive {
 public:
  Prod(bool all, int64_t dim, bool keepdim, tsr_dtype result)
      : all_(all), dim_(dim), keepdim_(keepdim), result_(result) {}
  const char* name() const override { return all_ ? "ProdBackward0" : "ProdBackward1"; }
  const char* op() const override { return "prod"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    kernels::check_prod_dtype(result_);
    if (all_ || in[0].ndim() == 0) return {{{}, result_}};
    Shape s = in[0].sizes();
    if (keepdim_) s[size_t(dim_)] = 1;
    else s.erase(s.begin() + dim_);
    return {{s, result_}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::prod(in[0], all_, dim_, keepdim_, result_)}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::prod(k, in[0], all_, dim_, keepdim_, result_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {bit(0), bit(0)}; }
  // grad * (product of the other elements of the slice): result / x where
  // x != 0; at a zero, the product of the others when it is the slice's
  // only zero, else 0.
  Tensors backward(const BackwardContext& ctx) override {
    const TensorMeta& in = ctx.input_meta(0);
    Tensor x = ctx.input(0);
    Tensor g = ctx.grad(0), r = ctx.output(0);
    if (g.dtype() != in.dtype) g = to_dtype(g, in.dtype);
    if (in.sizes.empty()) return {g};  // the product of one element
    if (r.dtype() != in.dtype) r = to_dtype(r, in.dtype);
    if (!all_ && !keepdim_ && in.sizes.size() > 0) {
      g = unsqueeze(g, dim_);
      r = unsqueeze(r, dim_);
    }
    if (all_) {
      Shape ones(in.sizes.size(), 1);
      g = reshape(g, ones);
      r = reshape(r, ones);
    }
    const tsr_dtype d = in.dtype;
    const Device dev = x.device();
    Tensor zero = scalar(0, d, dev), one = scalar(1, d, dev);
    Tensor is_zero = eq(x, zero);
    Tensor x_nz = where(is_zero, one, x);
    Tensor others_nz = div(r, x_nz);
    Tensor zero_count = sum(is_zero, all_ ? Shape{} : Shape{dim_}, true);
    Tensor only_zero = eq(zero_count, scalar(1, TSR_INT64, dev));
    Tensor prod_nz = all_ ? reshape(run1<Prod>({x_nz}, true, int64_t(0), false, d), Shape(in.sizes.size(), 1))
                          : run1<Prod>({x_nz}, false, dim_, true, d);
    Tensor others_z = where(only_zero, prod_nz, zero);
    Tensor others = where(is_zero, others_z, others_nz);
    return {mul(expand(g, in.sizes), others)};
  }

 private:
  bool all_;
  int64_t dim_;
  bool keepdim_;
  tsr_dtype result_;
};

}  // namespace

Tensor cumsum(const Tensor& a, int64_t dim, std::optional<tsr_dtype> dtype) {
  return cumsum_impl(a, scan_dim(a, dim), kernels::scan_result_dtype(a.dtype(), dtype), false);
}

Tensor cumprod(const Tensor& a, int64_t dim, std::optional<tsr_dtype> dtype) {
  return run1<Scan>({a}, ScanOp::kProd, scan_dim(a, dim), kernels::scan_result_dtype(a.dtype(), dtype), false);
}

Tensor prod(const Tensor& a_arg, std::optional<tsr_dtype> dtype) {
  const Tensor a = autocast::cast_inputs("prod", {a_arg})[0];
  return run1<Prod>({a}, true, int64_t(0), false, kernels::scan_result_dtype(a.dtype(), dtype));
}

Tensor prod_dim(const Tensor& a_arg, int64_t dim, bool keepdim, std::optional<tsr_dtype> dtype) {
  const Tensor a = autocast::cast_inputs("prod", {a_arg})[0];
  return run1<Prod>({a}, false, scan_dim(a, dim), keepdim, kernels::scan_result_dtype(a.dtype(), dtype));
}

}  // namespace tsr::ops
