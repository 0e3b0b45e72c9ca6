#include "device/select_ops.h"

#include <cmath>

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/activation.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/index_walk.h"
#include "cpu/kernels/indexing.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/normalization.h"
#include "cpu/kernels/pointwise.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"
#include "device/transfer.h"

namespace tsr::device {

namespace {

Stream stream_of(const Tensor& t) { return current_stream(t.device()); }

Tensor new_output(const Shape& sizes, const kernels::TensorRefs& inputs, tsr_dtype dtype, Device device) {
  return empty_strided(sizes, kernels::output_strides(sizes, inputs), dtype, device);
}

// unary_into / binary_into with the op's own dtype as `compute` (16-bit
// floats included, which compute in float): operands are rounded to it as
// the CPU's converted() does, and a scalar bound becomes one of its
// elements (as_element), as these CPU kernels do.
void unary_as(DeviceKernels& k, UnaryKernel op, const Tensor& out, const Tensor& in, double alpha,
              tsr_dtype compute) {
  const Stream s = stream_of(out);
  for_each_launch(out.sizes(), {operand(out), operand(in)}, {out.strides(), broadcast_strides(in, out.sizes())},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.unary(op, shape, ops[0], ops[1], alpha, compute, s);
                  });
}

void binary_as(DeviceKernels& k, BinaryKernel op, const Tensor& out, const Tensor& a, const Tensor& b,
               tsr_dtype compute) {
  const Stream s = stream_of(out);
  for_each_launch(out.sizes(), {operand(out), operand(a), operand(b)},
                  {out.strides(), broadcast_strides(a, out.sizes()), broadcast_strides(b, out.sizes())},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.binary(op, shape, ops[0], ops[1], ops[2], 1.0, compute, s);
                  });
}

// Refuses what no CPU kernel computes (the storage-only dtypes) with the
// CPU's dispatch message.
void require_computable(tsr_dtype d) {
  if (is_storage_only(d)) fail_dtype_dispatch(d);
}

// Every value of index within [0, limit), checked on the device: the first
// bad element's position comes back (8 bytes, synchronously); when there is
// one, report(host copy of index) throws the CPU's error for it.
template <typename Report>
void check_indices(DeviceKernels& k, const Tensor& index, int64_t limit, Report&& report) {
  if (index.numel() == 0) return;
  Tensor first_bad = empty({}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, index.device());
  // "First" means row-major order: a strided index is read through a
  // contiguous copy.
  Tensor idx = index;
  if (!is_contiguous_strides(index.sizes(), index.strides())) idx = contiguous(k, index, index.dtype());
  const Shape flat{idx.numel()};
  k.index_bounds(kernel_shape(flat), kernel_operand(static_cast<char*>(idx.data_ptr()), idx.dtype(), {1}), limit,
                 static_cast<int64_t*>(first_bad.data_ptr()), stream_of(idx));
  const Tensor host = readable_on_host(first_bad);
  if (*host.data<int64_t>() >= 0) {
    report(readable_on_host(idx));
    fail(TSR_ERR_INTERNAL, "index check: the device found an index out of range that the host did not");
  }
}

}  // namespace

// ---- where ----------------------------------------------------------------

Tensor where(DeviceKernels& k, const Tensor& cond, const Tensor& a, const Tensor& b) {
  const tsr_dtype d = kernels::where_result_dtype(cond, a, b);
  require_computable(d);
  const Shape shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  Tensor out = new_output(shape, {&cond, &a, &b}, d, a.device());
  const Stream s = stream_of(out);
  for_each_launch(shape, {operand(out), operand(cond), operand(a), operand(b)},
                  {out.strides(), broadcast_strides(cond, shape), broadcast_strides(a, shape),
                   broadcast_strides(b, shape)},
                  [&](const KernelShape& ks, const std::vector<KernelOperand>& ops) {
                    k.where(ks, ops[0], ops[1], ops[2], ops[3], s);
                  });
  return out;
}

// ---- index_select, gather, embedding ------------------------------------

namespace {

// out[i] = x[i with dim's coordinate replaced by index[i]] over `sizes`:
// x's strides with dim's zeroed (its offset comes from the index).
void gather_into(DeviceKernels& k, const Tensor& out, const Tensor& x, int64_t dim, const Tensor& index,
                 const Shape& sizes, const Shape& out_strides, Shape x_strides, const Shape& index_strides) {
  const int64_t dim_stride = x.ndim() ? x.strides()[size_t(dim)] : 0;
  if (x.ndim()) x_strides[size_t(dim)] = 0;
  const Stream s = stream_of(out);
  for_each_launch(sizes, {operand(out), operand(x), operand(index)}, {out_strides, x_strides, index_strides},
                  [&](const KernelShape& ks, const std::vector<KernelOperand>& ops) {
                    k.gather(ks, ops[0], ops[1], ops[2], dim_stride, s);
                  });
}

}  // namespace

Tensor index_select(DeviceKernels& k, const Tensor& x, int64_t dim0, const Tensor& index) {
  const Shape sizes = kernels::index_select_sizes(x, dim0, index);
  const int64_t dim = wrap_dim(dim0, x.ndim());
  const int64_t n = kernels::size_or_one(x, dim);
  kernels::check_index_select_axis(x, dim, index.numel());
  check_indices(k, index, n, [&](const Tensor& host) {
    kernels::check_index_select_values(kernels::index_values(host), dim, n);
  });
  Tensor out = empty(sizes, x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  if (x.ndim() == 0) {  // as the CPU: the element itself, whatever the (valid) index
    copy_into(k, out, x);
    return out;
  }
  if (out.numel() == 0) return out;
  // The index runs along dim and is broadcast over the other dims.
  Shape index_strides(sizes.size(), 0);
  index_strides[size_t(dim)] = index.ndim() ? index.strides()[0] : 0;
  gather_into(k, out, x, dim, index, sizes, out.strides(), x.strides(), index_strides);
  return out;
}

Tensor gather(DeviceKernels& k, const Tensor& x, int64_t dim0, const Tensor& index) {
  kernels::check_gather(x, dim0, index);
  const int64_t dim = wrap_dim(dim0, x.ndim());
  const int64_t n = kernels::size_or_one(x, dim);
  check_indices(k, index, n, [&](const Tensor& host) { kernels::check_gather_indices(host, dim, n); });
  Tensor out = empty(index.sizes(), x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  if (out.numel() == 0) return out;
  const size_t nd = size_t(std::max<int64_t>(index.ndim(), 1));
  const Shape sizes = index.ndim() ? index.sizes() : Shape{1};
  gather_into(k, out, x, x.ndim() ? dim : 0, index, sizes, kernels::strides_for(out, nd),
              kernels::strides_for(x, nd), kernels::strides_for(index, nd));
  return out;
}

Tensor embedding(DeviceKernels& k, const Tensor& weight, const Tensor& indices) {
  const Shape sizes = kernels::embedding_sizes(weight, indices);
  const int64_t n = indices.numel();
  Tensor flat = make_view(contiguous(k, indices, indices.dtype()), {n}, {1}, 0);
  Tensor rows = index_select(k, weight, 0, flat);  // [n, D], contiguous
  return make_view(rows, sizes, contiguous_strides(sizes), rows.storage_offset());
}

// ---- index_add / scatter_add into zeros ----------------------------------

namespace {

// ScatterAddArgs over `sizes` (the iteration, dim included): columns are
// every dim but dim, each operand's strides split into the columns' and
// dim's.
void scatter_add_into(DeviceKernels& k, const Tensor& out, const Tensor& src, const Tensor& index,
                      const Shape& sizes, int64_t dim, const Shape& out_strides, const Shape& src_strides,
                      const Shape& index_strides) {
  Shape columns;
  std::vector<Shape> strides(3);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (int64_t(d) == dim) continue;
    columns.push_back(sizes[d]);
    strides[0].push_back(out_strides[d]);
    strides[1].push_back(src_strides[d]);
    strides[2].push_back(index_strides[d]);
  }
  for (int64_t c : columns)
    if (c == 0) return;
  Iteration it = coalesce(columns, strides);
  TSR_CHECK(it.sizes.size() <= size_t(kMaxKernelDims), TSR_ERR_UNSUPPORTED, "scatter_add over more than ",
            kMaxKernelDims, " dims on ", device_name(out.device()));
  ScatterAddArgs a{};
  a.columns = kernel_shape(it.sizes);
  a.out = kernel_operand(static_cast<char*>(out.data_ptr()), out.dtype(), it.strides[0]);
  a.src = kernel_operand(static_cast<char*>(src.data_ptr()), src.dtype(), it.strides[1]);
  a.index = kernel_operand(static_cast<char*>(index.data_ptr()), index.dtype(), it.strides[2]);
  a.len = sizes[size_t(dim)];
  a.out_dim_stride = out_strides[size_t(dim)];
  a.src_dim_stride = src_strides[size_t(dim)];
  a.index_dim_stride = index_strides[size_t(dim)];
  k.scatter_add(a, stream_of(out));
}

}  // namespace

Tensor index_add_zeros(DeviceKernels& k, const Shape& sizes, int64_t dim, const Tensor& index, const Tensor& src) {
  require_computable(src.dtype());
  Tensor out = zeros(k, sizes, src.dtype(), src.device());
  const int64_t n = index.numel();
  if (n == 0) return out;
  const int64_t index_stride = index.ndim() ? index.strides()[0] : 0;
  if (sizes.empty()) {  // 0-dim: every index is 0, src's rows (or src itself) add into the one element
    const int64_t src_stride = src.ndim() ? src.strides()[0] : 0;
    scatter_add_into(k, out, src, index, {n}, 0, {0}, {src_stride}, {index_stride});
    return out;
  }
  // src has sizes but n along dim; the index runs along dim only.
  Shape iter = sizes;
  iter[size_t(dim)] = n;
  Shape index_strides(sizes.size(), 0);
  index_strides[size_t(dim)] = index_stride;
  scatter_add_into(k, out, src, index, iter, dim, out.strides(), broadcast_strides(src, iter), index_strides);
  return out;
}

Tensor scatter_add_zeros(DeviceKernels& k, const Shape& sizes, int64_t dim, const Tensor& index,
                         const Tensor& src) {
  require_computable(src.dtype());
  Tensor out = zeros(k, sizes, src.dtype(), src.device());
  if (index.numel() == 0) return out;
  const size_t nd = size_t(std::max<int64_t>(index.ndim(), 1));
  const Shape isizes = index.ndim() ? index.sizes() : Shape{1};
  const int64_t d = out.ndim() ? dim : 0;
  // out's offset along dim comes from the index: its dim stride is the
  // one the kernel scales the index by, and the iteration's dim stride 0.
  Shape out_strides = kernels::strides_for(out, nd);
  scatter_add_into(k, out, src, index, isizes, d, out_strides, kernels::strides_for(src, nd),
                   kernels::strides_for(index, nd));
  return out;
}

// ---- clamp, pow, compare ----------------------------------------------------

Tensor clamp(DeviceKernels& k, const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  TSR_CHECK(lo || hi, TSR_ERR_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
  const tsr_dtype d = kernels::clamp_result_dtype(x.dtype());
  if (lo) check_scalar_fits(*lo, d);
  if (hi) check_scalar_fits(*hi, d);
  if (is_storage_only(d))
    kernels::not_implemented("clamp", lo && hi ? "clamp_scalar_cpu" : lo ? "clamp_min_scalar_cpu" : "clamp_max_scalar_cpu",
                             d);
  Tensor out = new_output(x.sizes(), {&x}, d, x.device());
  if (out.numel() == 0) return out;
  if (lo && hi && (std::isnan(*lo) || std::isnan(*hi))) {  // at::clamp fills NaN
    fill(k, out, std::nan(""));
    return out;
  }
  // max then min, as the CPU's std::min(std::max(v, lo), hi): the second
  // pass reads the first's result, an exact element of d.
  if (lo) unary_as(k, UnaryKernel::ClampMin, out, x, *lo, d);
  if (hi) unary_as(k, UnaryKernel::ClampMax, out, lo ? out : x, *hi, d);
  return out;
}

Tensor clamp_tensor(DeviceKernels& k, const Tensor& x, const std::vector<Tensor>& bounds, bool has_lo,
                    bool has_hi) {
  const tsr_dtype d = kernels::clamp_tensor_result_dtype(x, bounds);
  require_computable(d);
  Shape shape = x.sizes();
  kernels::TensorRefs refs{&x};
  for (const Tensor& b : bounds) {
    shape = broadcast_shapes(shape, b.sizes());
    refs.push_back(&b);
  }
  Tensor out = new_output(shape, refs, d, x.device());
  if (out.numel() == 0) return out;
  // pointwise.cpp's lo != lo ? lo : upper(lower(v, lo), hi) as two passes:
  // a NaN lo makes the first NaN, which the second keeps.
  if (has_lo) binary_as(k, BinaryKernel::Max, out, x, bounds[0], d);
  if (has_hi) binary_as(k, BinaryKernel::Min, out, has_lo ? out : x, bounds.back(), d);
  return out;
}

Tensor pow(DeviceKernels& k, const Tensor& a, const Tensor& b) {
  const tsr_dtype d = kernels::pow_result_dtype(a, b);
  require_computable(d);
  Tensor out = new_output(broadcast_shapes(a.sizes(), b.sizes()), {&a, &b}, d, a.device());
  binary_as(k, BinaryKernel::Pow, out, a, b, d);
  return out;
}

Tensor compare(DeviceKernels& k, kernels::CompareOp op, const Tensor& a, const Tensor& b) {
  // add's promotion is torch.result_type (compare.cpp).
  const tsr_dtype d = kernels::binary_result_dtype(kernels::BinaryOp::Add, a, b);
  require_computable(d);
  Tensor out = new_output(broadcast_shapes(a.sizes(), b.sizes()), {&a, &b}, TSR_BOOL, a.device());
  BinaryKernel kop = BinaryKernel::Ge;
  switch (op) {
    case kernels::CompareOp::Eq: kop = BinaryKernel::Eq; break;
    case kernels::CompareOp::Ne: kop = BinaryKernel::Ne; break;
    case kernels::CompareOp::Lt: kop = BinaryKernel::Lt; break;
    case kernels::CompareOp::Le: kop = BinaryKernel::Le; break;
    case kernels::CompareOp::Gt: kop = BinaryKernel::Gt; break;
    case kernels::CompareOp::Ge: break;
  }
  binary_as(k, kop, out, a, b, d);
  return out;
}

// ---- layer_norm -------------------------------------------------------------

Tensor layer_norm(DeviceKernels& k, const Tensor& x0, const Shape& ns, const Tensor& w0, const Tensor& b0,
                  double eps) {
  kernels::check_layer_norm(x0, ns, w0, b0);
  const Tensor x = contiguous(k, x0, x0.dtype());
  const Tensor w = w0.defined() ? contiguous(k, w0, w0.dtype()) : w0;
  const Tensor b = b0.defined() ? contiguous(k, b0, b0.dtype()) : b0;
  Tensor out = empty(x.sizes(), x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  if (out.numel() == 0) return out;
  int64_t n = 1;
  for (int64_t v : ns) n *= v;
  k.layer_norm(out.data_ptr(), x.data_ptr(), w.defined() ? w.data_ptr() : nullptr,
               b.defined() ? b.data_ptr() : nullptr, x.dtype(), x.numel() / n, n, eps, stream_of(out));
  return out;
}

// ---- masks on any device ----------------------------------------------------

namespace {
bool on_cpu(const Tensor& t) { return t.device().type == TSR_DEVICE_CPU; }

Tensor unary_mask(UnaryKernel op, const Tensor& x, double v) {
  DeviceKernels& k = kernels_for(x.device());
  require_computable(x.dtype());
  Tensor out = new_output(x.sizes(), {&x}, TSR_BOOL, x.device());
  unary_as(k, op, out, x, v, x.dtype());
  return out;
}
}  // namespace

Tensor in_range_mask_any(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  if (on_cpu(x)) return kernels::in_range_mask(x, lo, hi);
  if (!is_floating(x.dtype())) kernels::not_implemented("clamp backward", "clamp backward", x.dtype());
  DeviceKernels& k = kernels_for(x.device());
  if (lo && hi) {
    Tensor m = unary_mask(UnaryKernel::GeScalar, x, *lo);
    binary_as(k, BinaryKernel::Mul, m, m, unary_mask(UnaryKernel::LeScalar, x, *hi), TSR_BOOL);  // and
    return m;
  }
  if (lo) return unary_mask(UnaryKernel::GeScalar, x, *lo);
  if (hi) return unary_mask(UnaryKernel::LeScalar, x, *hi);
  Tensor all = new_output(x.sizes(), {&x}, TSR_BOOL, x.device());
  fill(k, all, 1.0);
  return all;
}

Tensor eq_scalar_mask_any(const Tensor& x, double v) {
  if (on_cpu(x)) return kernels::eq_scalar_mask(x, v);
  return unary_mask(UnaryKernel::EqScalar, x, v);
}

Tensor zero_base_mask_any(const Tensor& x, const Tensor& y) {
  if (on_cpu(x)) return kernels::zero_base_mask(x, y);
  // (x == 0) & (y >= 0), compared in double (activation.cpp).
  DeviceKernels& k = kernels_for(x.device());
  Tensor zx = unary_mask(UnaryKernel::EqScalar, x, 0.0);
  Tensor py = unary_mask(UnaryKernel::GeScalar, y, 0.0);
  Tensor out = new_output(broadcast_shapes(x.sizes(), y.sizes()), {&x, &y}, TSR_BOOL, x.device());
  binary_as(k, BinaryKernel::Mul, out, zx, py, TSR_BOOL);
  return out;
}

}  // namespace tsr::device
