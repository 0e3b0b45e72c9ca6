#include "device/device_ops.h"

#include <cmath>

#include "core/device_allocator.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/philox.h"
#include "core/views.h"
#include "cpu/kernels/around.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/linear.h"
#include "cpu/kernels/matmul.h"
#include "cpu/kernels/nn.h"
#include "cpu/kernels/reduce.h"
#include "device/kernel_args.h"

namespace tsr::device {

DeviceKernels& kernels_for(Device d) {
  DeviceKernels* k = backend_for(d).kernels();
  TSR_CHECK(k, TSR_ERR_UNSUPPORTED, "device ", device_name(d), " has no kernels");
  return *k;
}

// Storage-only dtypes (uint16/32/64, float8) are copied and filled on a
// device like any other, but no math kernel takes them, as on the CPU
// (dispatch_all's TSR_ERR_UNSUPPORTED naming the dtype).
tsr_dtype compute_dtype(tsr_dtype d) {
  if (is_storage_only(d)) fail_dtype_dispatch(d);
  return d == TSR_FLOAT16 || d == TSR_BFLOAT16 ? TSR_FLOAT32 : d;
}

namespace {

Stream stream_of(const Tensor& t) { return current_stream(t.device()); }

// A fresh tensor with TensorIterator's layout for outputs computed from
// these inputs (kernels::output_strides).
Tensor new_output(const Shape& sizes, const kernels::TensorRefs& inputs, tsr_dtype dtype,
                  Device device) {
  return empty_strided(sizes, kernels::output_strides(sizes, inputs), dtype, device);
}

}  // namespace

void copy_into(DeviceKernels& k, const Tensor& dst, const Tensor& src) {
  const Stream s = stream_of(dst);
  for_each_launch(dst.sizes(), {operand(dst), operand(src)},
                  {dst.strides(), broadcast_strides(src, dst.sizes())},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.copy(shape, ops[0], ops[1], s);
                  });
}

Tensor copy(DeviceKernels& k, const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt) {
  Tensor out = empty_like(t, dtype, fmt);
  copy_into(k, out, t);
  return out;
}

Tensor contiguous(DeviceKernels& k, const Tensor& t, tsr_dtype dtype) {
  if (t.dtype() == dtype && is_contiguous_strides(t.sizes(), t.strides())) return t;
  return copy(k, t, dtype, TSR_CONTIGUOUS_FORMAT);
}

void fill(DeviceKernels& k, const Tensor& dst, double value) {
  const Stream s = stream_of(dst);
  for_each_launch(dst.sizes(), {operand(dst)}, {dst.strides()},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.fill(shape, ops[0], value, s);
                  });
}

Tensor zeros(DeviceKernels& k, const Shape& sizes, tsr_dtype dtype, Device device) {
  Tensor out = empty(sizes, dtype, TSR_CONTIGUOUS_FORMAT, device);
  fill(k, out, 0.0);
  return out;
}

void unary_into(DeviceKernels& k, UnaryKernel op, const Tensor& out, const Tensor& in, double alpha) {
  const Stream s = stream_of(out);
  const tsr_dtype compute = compute_dtype(out.dtype());
  for_each_launch(out.sizes(), {operand(out), operand(in)},
                  {out.strides(), broadcast_strides(in, out.sizes())},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.unary(op, shape, ops[0], ops[1], alpha, compute, s);
                  });
}

Tensor unary(DeviceKernels& k, UnaryKernel op, const Tensor& in, double alpha, tsr_dtype out_dtype) {
  Tensor out = new_output(in.sizes(), {&in}, out_dtype, in.device());
  unary_into(k, op, out, in, alpha);
  return out;
}

void binary_into(DeviceKernels& k, BinaryKernel op, const Tensor& out, const Tensor& a,
                 const Tensor& b, double alpha) {
  const Stream s = stream_of(out);
  const tsr_dtype compute = compute_dtype(out.dtype());
  for_each_launch(out.sizes(), {operand(out), operand(a), operand(b)},
                  {out.strides(), broadcast_strides(a, out.sizes()), broadcast_strides(b, out.sizes())},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.binary(op, shape, ops[0], ops[1], ops[2], alpha, compute, s);
                  });
}

Tensor binary(DeviceKernels& k, BinaryKernel op, const Tensor& a, const Tensor& b, double alpha,
              tsr_dtype out_dtype) {
  const Shape sizes = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = new_output(sizes, {&a, &b}, out_dtype, a.device());
  binary_into(k, op, out, a, b, alpha);
  return out;
}

namespace {

// The reduced dims of t in C order, size-1 dims dropped, a dim merged into
// the one before it where they step as one: unlike coalesce(), never
// reordered, so element j of a row is the CPU's j-th (its as_rows view).
Iteration inner_in_order(const Tensor& t, const std::vector<bool>& mask) {
  Iteration it{{}, {Shape{}}};
  for (int64_t d = 0; d < t.ndim(); ++d) {
    if (!mask[size_t(d)]) continue;
    const int64_t size = t.sizes()[size_t(d)], stride = t.strides()[size_t(d)];
    if (size == 1) continue;
    if (!it.sizes.empty() && it.strides[0].back() == size * stride) {
      it.sizes.back() *= size;
      it.strides[0].back() = stride;
      continue;
    }
    it.sizes.push_back(size);
    it.strides[0].push_back(stride);
  }
  return it;
}

}  // namespace

void reduce_into(DeviceKernels& k, ReduceKernel op, const Tensor& t, const std::vector<bool>& mask,
                 const Tensor& out, const Tensor& indices, double scale, ReducedOrder order) {
  if (is_storage_only(t.dtype())) fail_dtype_dispatch(t.dtype());
  // out's strides over t's kept dims: with keepdim out has every dim (the
  // reduced ones of size 1), without it only the kept ones, in order.
  Shape outer_sizes, in_outer, out_outer, inner_sizes, in_inner;
  const bool keepdim = out.ndim() == t.ndim();
  int64_t od = 0;
  for (int64_t d = 0; d < t.ndim(); ++d) {
    if (mask[d]) {
      inner_sizes.push_back(t.sizes()[d]);
      in_inner.push_back(t.strides()[d]);
      if (keepdim) ++od;
      continue;
    }
    outer_sizes.push_back(t.sizes()[d]);
    in_outer.push_back(t.strides()[d]);
    out_outer.push_back(out.strides()[od++]);
  }
  // indices is laid out as out (both fresh and contiguous).
  Iteration outer = coalesce(outer_sizes, {out_outer, in_outer});
  Iteration inner = order == ReducedOrder::C ? inner_in_order(t, mask) : coalesce(inner_sizes, {in_inner});
  if (checked_numel(outer.sizes) == 0) return;
  TSR_CHECK(outer.sizes.size() <= size_t(kMaxKernelDims) && inner.sizes.size() <= size_t(kMaxKernelDims),
            TSR_ERR_UNSUPPORTED, "reduction over a layout of more than ", kMaxKernelDims,
            " dims on ", device_name(t.device()));
  ReduceArgs args{};
  args.outer = kernel_shape(outer.sizes);
  args.out = kernel_operand(static_cast<char*>(out.data_ptr()), out.dtype(), outer.strides[0]);
  args.indices = indices.defined()
                     ? kernel_operand(static_cast<char*>(indices.data_ptr()), TSR_INT64, outer.strides[0])
                     : kernel_operand(nullptr, TSR_INT64, {});
  args.inner = kernel_shape(inner.sizes);
  args.in = kernel_operand(static_cast<char*>(t.data_ptr()), t.dtype(), outer.strides[1]);
  for (size_t d = 0; d < inner.sizes.size(); ++d) args.in_inner_strides[d] = inner.strides[0][d];
  args.scale = scale;
  k.reduce(op, args, stream_of(t));
}

Tensor reduce_sum(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim,
                  double scale, tsr_dtype out_dtype) {
  Tensor out = empty(kernels::reduced_sizes(t.sizes(), mask, keepdim), out_dtype,
                     TSR_CONTIGUOUS_FORMAT, t.device());
  reduce_into(k, ReduceKernel::Sum, t, mask, out, Tensor(), scale);
  return out;
}

Tensor sum(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  return reduce_sum(k, t, mask, keepdim, 1.0, kernels::sum_result_dtype(t.dtype()));
}

Tensor mean(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  kernels::check_mean_dtype(t.dtype());
  const int64_t count = kernels::reduced_count(t.sizes(), mask);
  // 0/0 is NaN, as torch's mean of nothing.
  const double scale = count == 0 ? std::nan("") : 1.0 / double(count);
  return reduce_sum(k, t, mask, keepdim, scale, t.dtype());
}

std::pair<Tensor, Tensor> max_dim(DeviceKernels& k, const Tensor& t, int64_t dim, bool keepdim) {
  const std::vector<bool> mask = kernels::max_dim_mask(t, &dim);
  const Shape sizes = kernels::reduced_sizes(t.sizes(), mask, keepdim);
  Tensor values = empty(sizes, t.dtype(), TSR_CONTIGUOUS_FORMAT, t.device());
  Tensor indices = empty(sizes, TSR_INT64, TSR_CONTIGUOUS_FORMAT, t.device());
  reduce_into(k, ReduceKernel::Max, t, mask, values, indices, 1.0);
  return {values, indices};
}

Tensor sum_to_size(DeviceKernels& k, const Tensor& t, const Shape& sizes) {
  const int64_t lead = t.ndim() - int64_t(sizes.size());
  Tensor kept = reduce_sum(k, t, kernels::sum_to_size_mask(t.sizes(), sizes), true, 1.0, t.dtype());
  // The leading dims are 1 now: drop them (a view of the fresh result).
  Shape strides(kept.strides().begin() + lead, kept.strides().end());
  return make_view(kept, sizes, strides, kept.storage_offset());
}

Tensor softmax(DeviceKernels& k, const Tensor& t0, int64_t dim, bool log) {
  dispatch_floating(t0.dtype(), log ? "log_softmax" : "softmax", []<typename T>() {});
  dim = wrap_dim(dim, t0.ndim());
  Tensor t = contiguous(k, t0, t0.dtype());
  Tensor out = empty(t.sizes(), t.dtype(), TSR_CONTIGUOUS_FORMAT, t.device());
  if (t.numel() == 0) return out;
  const kernels::Around a = kernels::around(t.sizes(), dim);
  k.softmax(log, out.data_ptr(), t.data_ptr(), t.dtype(), a.outer, a.len, a.inner, stream_of(t));
  return out;
}

Tensor log_softmax_backward(DeviceKernels& k, const Tensor& grad, const Tensor& output, int64_t dim) {
  dim = wrap_dim(dim, output.ndim());
  Tensor g = contiguous(k, grad, output.dtype());
  Tensor y = contiguous(k, output, output.dtype());
  Tensor out = empty(output.sizes(), output.dtype(), TSR_CONTIGUOUS_FORMAT, output.device());
  if (out.numel() == 0) return out;
  const kernels::Around a = kernels::around(y.sizes(), dim);
  k.log_softmax_backward(out.data_ptr(), g.data_ptr(), y.data_ptr(), y.dtype(), a.outer, a.len,
                         a.inner, stream_of(out));
  return out;
}

Tensor nll_loss(DeviceKernels& k, const Tensor& logp0, const Tensor& target0) {
  kernels::check_nll_args(logp0, target0);
  dispatch_floating(logp0.dtype(), "cross_entropy", []<typename T>() {});
  Tensor logp = contiguous(k, logp0, logp0.dtype());
  Tensor target = contiguous(k, target0, TSR_INT64);
  Tensor out = empty({}, logp.dtype(), TSR_CONTIGUOUS_FORMAT, logp.device());
  k.nll_loss(out.data_ptr(), logp.data_ptr(), target.data<int64_t>(), logp.dtype(), logp.sizes()[0],
             logp.sizes()[1], stream_of(out));
  return out;
}

Tensor nll_loss_backward(DeviceKernels& k, const Tensor& grad, const Shape& logp_sizes,
                         const Tensor& target0) {
  Tensor target = contiguous(k, target0, TSR_INT64);
  Tensor out = empty(logp_sizes, grad.dtype(), TSR_CONTIGUOUS_FORMAT, grad.device());
  if (out.numel() == 0) return out;
  k.nll_loss_backward(out.data_ptr(), grad.data_ptr(), target.data<int64_t>(), grad.dtype(),
                      logp_sizes[0], logp_sizes[1], stream_of(out));
  return out;
}

Tensor bernoulli_noise(DeviceKernels& k, const Shape& sizes, tsr_dtype dtype, Device device,
                       double p, uint64_t seed, uint64_t start) {
  Tensor noise = empty(sizes, dtype, TSR_CONTIGUOUS_FORMAT, device);
  if (noise.numel() == 0) return noise;
  const philox::DropoutMask mask = philox::dropout_mask(p);
  k.bernoulli_noise(noise.data_ptr(), dtype, noise.numel(), seed, start, mask.threshold, mask.scale,
                    current_stream(device));
  return noise;
}

namespace {

// A matrix operand of gemm: rows x cols with its two strides, usable as it
// is when one stride is 1 and the other spans the unit-stride side (BLAS's
// leading-dimension rule); a size-1 side's stride is free, so it is set to
// whatever makes the matrix usable.
struct MatrixStrides {
  int64_t row, col;
};
bool usable(MatrixStrides& m, int64_t rows, int64_t cols) {
  if (cols == 1 && m.row >= 1) m.col = 1;
  if (rows == 1 && m.col >= 1 && m.col != 1) m.row = 1;
  if (m.col == 1) return m.row >= std::max<int64_t>(1, cols) || rows == 1;
  if (m.row == 1) return m.col >= std::max<int64_t>(1, rows) || cols == 1;
  return false;
}

// gemm over the batch dims of out: a, b expanded to batch + their matrix
// sizes, out contiguous batch + [m, n]. The batch dims are coalesced; any
// left beyond one are looped over here, one gemm call each.
void batched_gemm(DeviceKernels& k, Tensor a, Tensor b, const Tensor& out, const Shape& batch,
                  double beta) {
  const int64_t nb = int64_t(batch.size());
  const int64_t m = out.sizes()[nb], n = out.sizes()[nb + 1], kk = a.sizes().back();
  MatrixStrides sa{a.strides()[nb], a.strides()[nb + 1]};
  MatrixStrides sb{b.strides()[nb], b.strides()[nb + 1]};
  if (!usable(sa, m, kk)) {
    a = contiguous(k, a, a.dtype());
    sa = {kk, 1};
  }
  if (!usable(sb, kk, n)) {
    b = contiguous(k, b, b.dtype());
    sb = {n, 1};
  }
  Shape ab(a.strides().begin(), a.strides().begin() + nb);
  Shape bb(b.strides().begin(), b.strides().begin() + nb);
  Shape cb(out.strides().begin(), out.strides().begin() + nb);
  GemmArgs g{};
  g.dtype = out.dtype();
  g.m = m, g.n = n, g.k = kk;
  g.a_row_stride = sa.row, g.a_col_stride = sa.col;
  g.b_row_stride = sb.row, g.b_col_stride = sb.col;
  g.c_row_stride = n;
  g.alpha = 1.0, g.beta = beta;
  const Stream s = stream_of(out);
  const int64_t es = element_size(out.dtype());
  // The innermost batch dim goes to the kernel; the rest (after coalescing)
  // are this loop's.
  Iteration it = coalesce(batch, {ab, bb, cb});
  if (checked_numel(it.sizes) == 0) return;
  const size_t loops = it.sizes.empty() ? 0 : it.sizes.size() - 1;
  g.batch = it.sizes.empty() ? 1 : it.sizes.back();
  g.a_batch_stride = it.sizes.empty() ? 0 : it.strides[0].back();
  g.b_batch_stride = it.sizes.empty() ? 0 : it.strides[1].back();
  g.c_batch_stride = it.sizes.empty() ? m * n : it.strides[2].back();
  Shape index(loops, 0);
  while (true) {
    int64_t oa = 0, ob = 0, oc = 0;
    for (size_t d = 0; d < loops; ++d) {
      oa += index[d] * it.strides[0][d];
      ob += index[d] * it.strides[1][d];
      oc += index[d] * it.strides[2][d];
    }
    g.a = static_cast<const char*>(a.data_ptr()) + oa * es;
    g.b = static_cast<const char*>(b.data_ptr()) + ob * es;
    g.c = static_cast<char*>(out.data_ptr()) + oc * es;
    k.gemm(g, s);
    size_t d = loops;
    while (d > 0 && ++index[d - 1] == it.sizes[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

}  // namespace

Tensor matmul(DeviceKernels& k, const Tensor& a, const Tensor& b) {
  const kernels::MatmulOperands mm = kernels::matmul_operands(a, b);
  Tensor out = empty(mm.batched_sizes, a.dtype(), TSR_CONTIGUOUS_FORMAT, a.device());
  if (out.numel() > 0) {
    if (mm.k == 0) fill(k, out, 0.0);
    else batched_gemm(k, mm.a, mm.b, out, mm.batch, 0.0);
  }
  return make_view(out, mm.out_sizes, contiguous_strides(mm.out_sizes), 0);
}

Tensor linear(DeviceKernels& k, const Tensor& x, const Tensor& w, const Tensor& bias) {
  const Shape out_sizes = kernels::linear_sizes(x, w, bias);
  const int64_t K = x.sizes().back(), N = w.sizes()[0];
  const int64_t M = checked_numel(Shape(x.sizes().begin(), x.sizes().end() - 1));
  Tensor out = empty({M, N}, x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  Tensor result = make_view(out, out_sizes, contiguous_strides(out_sizes), 0);
  if (out.numel() == 0) return result;
  if (bias.defined()) copy_into(k, result, bias);
  if (K == 0) {
    if (!bias.defined()) fill(k, out, 0.0);
    return result;
  }
  // x as rows [M, K]: a view when its strides allow (torch's reshape).
  Tensor rows = kernels::rows_view(x);
  if (!rows.defined()) rows = make_view(contiguous(k, x, x.dtype()), {M, K}, {K, 1}, 0);
  // weight^T [K, N]: the same memory read by swapped strides, never copied
  // unless neither stride is 1.
  Tensor wt = make_view(w, {K, N}, {w.strides()[1], w.strides()[0]}, w.storage_offset());
  batched_gemm(k, rows, wt, out, {}, bias.defined() ? 1.0 : 0.0);
  return result;
}

}  // namespace tsr::device
