#include "device/reduce_ops.h"

#include <cmath>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/compare.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/extrema.h"
#include "cpu/kernels/minmax.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/statistics.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"
#include "device/select_ops.h"

namespace tsr::device {

namespace {

Stream stream_of(const Tensor& t) { return current_stream(t.device()); }

Tensor fresh(const Shape& sizes, tsr_dtype dtype, Device device) {
  return empty(sizes, dtype, TSR_CONTIGUOUS_FORMAT, device);
}

}  // namespace

Tensor extremum(DeviceKernels& k, const Tensor& a, const Tensor& b, bool max) {
  const tsr_dtype d = kernels::extremum_result_dtype(a, b);
  compute_dtype(d);  // a storage-only dtype: the CPU's dispatch error
  const Shape shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = empty_strided(shape, kernels::output_strides(shape, {&a, &b}), d, a.device());
  // The kernel's Max(p, q) is "q if q is NaN, else p < q ? q : p" (clamp's
  // rule); with p = b, q = a that is the CPU's "a if a is NaN, b if b is,
  // else a > b ? a : b", ties of -0 and +0 going to b as there. Min alike.
  binary_into(k, max ? BinaryKernel::Max : BinaryKernel::Min, out, b, a, 1.0);
  return out;
}

std::pair<Tensor, Tensor> min_dim(DeviceKernels& k, const Tensor& t, int64_t dim, bool keepdim) {
  kernels::check_min_dim(t, &dim, "min");
  std::vector<bool> mask(size_t(t.ndim()), false);
  if (t.ndim() > 0) mask[size_t(dim)] = true;
  const Shape sizes = kernels::reduced_sizes(t.sizes(), mask, keepdim);
  Tensor values = fresh(sizes, t.dtype(), t.device());
  Tensor indices = fresh(sizes, TSR_INT64, t.device());
  reduce_into(k, ReduceKernel::Min, t, mask, values, indices, 1.0, ReducedOrder::C);
  return {values, indices};
}

Tensor extreme_all(DeviceKernels& k, const Tensor& t, bool max) {
  TSR_CHECK(t.numel() > 0, TSR_ERR_SHAPE_MISMATCH, max ? "max" : "min",
            "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument.");
  Tensor out = fresh({}, t.dtype(), t.device());
  reduce_into(k, max ? ReduceKernel::Max : ReduceKernel::Min, t, std::vector<bool>(size_t(t.ndim()), true), out,
              Tensor(), 1.0, ReducedOrder::C);
  return out;
}

Tensor extreme_over(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim, bool max) {
  kernels::check_extreme_over(t, mask, max ? "amax" : "amin");
  Tensor out = fresh(kernels::reduced_sizes(t.sizes(), mask, keepdim), t.dtype(), t.device());
  reduce_into(k, max ? ReduceKernel::Max : ReduceKernel::Min, t, mask, out, Tensor(), 1.0, ReducedOrder::C);
  return out;
}

Tensor evenly_distribute_backward(DeviceKernels& k, const Tensor& grad, const Tensor& input, const Tensor& result) {
  const tsr_dtype d = grad.dtype();
  dispatch_floating(d, "max backward", []<typename T>() {});  // the CPU's refusal
  const Tensor x = contiguous(k, input, d);
  const Tensor m = contiguous(k, result, d);
  // hit = x == m, or x is NaN when m is: (x == m) | ((x != x) & (m != m)),
  // bool | and & as the bool kernels' add and mul.
  const Tensor eq = compare(k, kernels::CompareOp::Eq, x, m);
  const Tensor both_nan = binary(k, BinaryKernel::Mul, compare(k, kernels::CompareOp::Ne, x, x),
                                 compare(k, kernels::CompareOp::Ne, m, m), 1.0, TSR_BOOL);
  const Tensor hit = binary(k, BinaryKernel::Add, eq, both_nan, 1.0, TSR_BOOL);
  // grad / count in the compute type (float for 16-bit floats), as the CPU.
  const Tensor count = sum(k, hit, std::vector<bool>(size_t(hit.ndim()), true), false);
  const Tensor share = binary(k, BinaryKernel::Div, grad, count, 1.0, d);
  return where(k, hit, share, zeros(k, {}, d, grad.device()));
}

namespace {

// One thread per line of t along dim (every other dim a line coordinate),
// out's line starts given by out_strides over those dims.
void scan_lines(DeviceKernels& k, ScanKernel op, const Tensor& src, int64_t dim, const Tensor& out,
                const Shape& out_strides, int64_t out_stride, bool reverse) {
  Shape sizes, in_strides;
  for (int64_t d = 0; d < src.ndim(); ++d) {
    if (d == dim) continue;
    sizes.push_back(src.sizes()[size_t(d)]);
    in_strides.push_back(src.strides()[size_t(d)]);
  }
  const Iteration lines = coalesce(sizes, {out_strides, in_strides});
  if (checked_numel(lines.sizes) == 0) return;
  TSR_CHECK(lines.sizes.size() <= size_t(kMaxKernelDims), TSR_ERR_UNSUPPORTED, "scan over a layout of more than ",
            kMaxKernelDims, " dims on ", device_name(src.device()));
  ScanArgs args{};
  args.op = op;
  args.lines = kernel_shape(lines.sizes);
  args.out = kernel_operand(static_cast<char*>(out.data_ptr()), out.dtype(), lines.strides[0]);
  args.in = kernel_operand(static_cast<char*>(src.data_ptr()), src.dtype(), lines.strides[1]);
  args.len = src.ndim() ? src.sizes()[size_t(dim)] : 1;
  args.in_stride = src.ndim() ? src.strides()[size_t(dim)] : 0;
  args.out_stride = out_stride;
  args.reverse = reverse;
  k.scan(args, stream_of(out));
}

// t in the result dtype (the CPU's dense_input converts first).
Tensor in_dtype(DeviceKernels& k, const Tensor& t, tsr_dtype d) {
  return t.dtype() == d ? t : copy(k, t, d, TSR_PRESERVE_FORMAT);
}

}  // namespace

Tensor scan(DeviceKernels& k, const Tensor& t, int64_t dim, kernels::ScanOp op, tsr_dtype result, bool reverse) {
  kernels::check_scan_dtype(op, result);
  const Tensor src = in_dtype(k, t, result);
  Tensor out = fresh(t.sizes(), result, t.device());
  if (out.numel() == 0) return out;
  Shape out_strides;
  for (int64_t d = 0; d < t.ndim(); ++d)
    if (d != dim) out_strides.push_back(out.strides()[size_t(d)]);
  scan_lines(k, op == kernels::ScanOp::kSum ? ScanKernel::CumSum : ScanKernel::CumProd, src, dim, out, out_strides,
             t.ndim() ? out.strides()[size_t(dim)] : 0, reverse);
  return out;
}

Tensor prod(DeviceKernels& k, const Tensor& t, bool all, int64_t dim, bool keepdim, tsr_dtype result) {
  kernels::check_prod_dtype(result);
  if (all || t.ndim() == 0) {
    // One line: every element in C order (the CPU's contiguous input).
    const Tensor dense = contiguous(k, t, result);
    const Tensor line = make_view(dense, {t.numel()}, {1}, dense.storage_offset());
    Tensor out = fresh({}, result, t.device());
    scan_lines(k, ScanKernel::Prod, line, 0, out, {}, 0, false);
    return out;
  }
  const Tensor src = in_dtype(k, t, result);
  Shape sizes = t.sizes();
  if (keepdim) sizes[size_t(dim)] = 1;
  else sizes.erase(sizes.begin() + dim);
  Tensor out = fresh(sizes, result, t.device());
  Shape out_strides;
  for (int64_t d = 0, od = 0; d < t.ndim(); ++d) {
    if (d == dim) {
      od += keepdim;
      continue;
    }
    out_strides.push_back(out.strides()[size_t(od++)]);
  }
  scan_lines(k, ScanKernel::Prod, src, dim, out, out_strides, 0, false);
  return out;
}

Tensor any_all(DeviceKernels& k, const Tensor& t0, const std::vector<bool>& mask, bool keepdim, bool is_all) {
  const tsr_dtype result = t0.dtype() == TSR_UINT8 ? TSR_UINT8 : TSR_BOOL;
  // The storage-only dtypes are read as the CPU reads every input: as double.
  const Tensor t = is_storage_only(t0.dtype()) ? copy(k, t0, TSR_FLOAT64, TSR_PRESERVE_FORMAT) : t0;
  // any: a sum of (x != 0) stored as bool is "some"; all: none is x == 0.
  const Tensor zero = zeros(k, {}, t.dtype(), t.device());
  const Tensor hits = compare(k, is_all ? kernels::CompareOp::Eq : kernels::CompareOp::Ne, t, zero);
  Tensor some = reduce_sum(k, hits, mask, keepdim, 1.0, TSR_BOOL);
  if (is_all) some = compare(k, kernels::CompareOp::Eq, some, zeros(k, {}, TSR_BOOL, t.device()));
  return some.dtype() == result ? some : copy(k, some, result, TSR_CONTIGUOUS_FORMAT);
}

namespace {

// t in float64 (the CPU's rows_of: every statistic computes in double).
Tensor as_double(DeviceKernels& k, const Tensor& t) {
  return t.dtype() == TSR_FLOAT64 ? t : copy(k, t, TSR_FLOAT64, TSR_PRESERVE_FORMAT);
}

// A keepdim result (contiguous) without its reduced dims unless keepdim,
// converted to dtype (contiguous, as the CPU's contiguous_copy).
Tensor finish(DeviceKernels& k, const Tensor& kept, const std::vector<bool>& mask, bool keepdim, tsr_dtype dtype) {
  Tensor r = kept;
  if (!keepdim) {
    const Shape sizes = kernels::reduced_sizes(kept.sizes(), mask, false);
    r = make_view(kept, sizes, contiguous_strides(sizes), kept.storage_offset());
  }
  return r.dtype() == dtype ? r : copy(k, r, dtype, TSR_CONTIGUOUS_FORMAT);
}

Tensor filled(DeviceKernels& k, const Shape& sizes, tsr_dtype dtype, Device device, double value) {
  Tensor out = fresh(sizes, dtype, device);
  fill(k, out, value);
  return out;
}

}  // namespace

std::pair<Tensor, Tensor> var_mean(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask,
                                   int64_t correction, bool keepdim, bool take_sqrt) {
  kernels::check_var_dtype(t.dtype(), "std and var");
  const int64_t n = kernels::reduced_count(t.sizes(), mask);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = as_double(k, t);
  const Tensor mean = reduce_sum(k, x, mask, true, n > 0 ? 1.0 / double(n) : nan, TSR_FLOAT64);
  const Tensor centered = binary(k, BinaryKernel::Sub, x, mean, 1.0, TSR_FLOAT64);
  const Tensor squares = binary(k, BinaryKernel::Mul, centered, centered, 1.0, TSR_FLOAT64);
  // ss / 0 is inf (NaN for ss = 0), as ss * (1 / 0).
  const double divisor = double(std::max<int64_t>(n - correction, 0));
  Tensor var = reduce_sum(k, squares, mask, true, n > 0 ? 1.0 / divisor : nan, TSR_FLOAT64);
  if (take_sqrt) var = unary(k, UnaryKernel::Sqrt, var, 0.0, TSR_FLOAT64);
  return {finish(k, var, mask, keepdim, t.dtype()), finish(k, mean, mask, keepdim, t.dtype())};
}

Tensor logsumexp(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  const tsr_dtype result = kernels::logsumexp_result_dtype(t.dtype());
  const Shape kept = kernels::reduced_sizes(t.sizes(), mask, true);
  // An empty row: the CPU's shift 0 and log(0).
  if (kernels::reduced_count(t.sizes(), mask) == 0)
    return finish(k, filled(k, kept, TSR_FLOAT64, t.device(), -std::numeric_limits<double>::infinity()), mask,
                  keepdim, result);
  const Tensor x = as_double(k, t);
  // The shift: each row's max, 0 where it is infinite. A row with a NaN
  // gives NaN either way (the CPU skips NaN in its max, then sums exp(NaN)).
  Tensor m = fresh(kept, TSR_FLOAT64, t.device());
  reduce_into(k, ReduceKernel::Max, x, mask, m, Tensor(), 1.0, ReducedOrder::C);
  const Tensor infinite = eq_scalar_mask_any(unary(k, UnaryKernel::Abs, m, 0.0, TSR_FLOAT64),
                                             std::numeric_limits<double>::infinity());
  const Tensor shift = where(k, infinite, zeros(k, {}, TSR_FLOAT64, t.device()), m);
  const Tensor e = unary(k, UnaryKernel::Exp, binary(k, BinaryKernel::Sub, x, shift, 1.0, TSR_FLOAT64), 0.0,
                         TSR_FLOAT64);
  const Tensor s = reduce_sum(k, e, mask, true, 1.0, TSR_FLOAT64);
  const Tensor r = binary(k, BinaryKernel::Add, unary(k, UnaryKernel::Log, s, 0.0, TSR_FLOAT64), shift, 1.0,
                          TSR_FLOAT64);
  return finish(k, r, mask, keepdim, result);
}

Tensor norm(DeviceKernels& k, const Tensor& t, double p, const std::vector<bool>& mask, bool keepdim) {
  const Shape kept = kernels::reduced_sizes(t.sizes(), mask, true);
  const int64_t n = kernels::reduced_count(t.sizes(), mask);
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor a = unary(k, UnaryKernel::Abs, as_double(k, t), 0.0, TSR_FLOAT64);
  Tensor r;
  if (std::isinf(p)) {
    // the largest (smallest) |x|, NaN when there is one; 0 (inf) for none
    if (n == 0) return finish(k, filled(k, kept, TSR_FLOAT64, t.device(), p > 0 ? 0.0 : inf), mask, keepdim, t.dtype());
    r = fresh(kept, TSR_FLOAT64, t.device());
    reduce_into(k, p > 0 ? ReduceKernel::Max : ReduceKernel::Min, a, mask, r, Tensor(), 1.0, ReducedOrder::C);
  } else if (p == 0) {
    r = reduce_sum(k, compare(k, kernels::CompareOp::Ne, a, zeros(k, {}, TSR_FLOAT64, t.device())), mask, true,
                   1.0, TSR_FLOAT64);
  } else if (p == 1) {
    r = reduce_sum(k, a, mask, true, 1.0, TSR_FLOAT64);
  } else if (p == 2) {
    r = unary(k, UnaryKernel::Sqrt, reduce_sum(k, binary(k, BinaryKernel::Mul, a, a, 1.0, TSR_FLOAT64), mask, true,
                                               1.0, TSR_FLOAT64),
              0.0, TSR_FLOAT64);
  } else {
    const Tensor s = reduce_sum(k, unary(k, UnaryKernel::PowScalar, a, p, TSR_FLOAT64), mask, true, 1.0, TSR_FLOAT64);
    r = unary(k, UnaryKernel::PowScalar, s, 1.0 / p, TSR_FLOAT64);
  }
  return finish(k, r, mask, keepdim, t.dtype());
}

}  // namespace tsr::device
