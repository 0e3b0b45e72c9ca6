#include "device/index_ops.h"

#include <algorithm>

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/layout.h"
#include "core/pinned_stream.h"
#include "core/views.h"
#include "cpu/kernels/advanced_index.h"
#include "cpu/kernels/index_walk.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"
#include "device/select_ops.h"
#include "device/transfer.h"

namespace tsr::device {

namespace {

Stream stream_of(const Tensor& t) { return current_stream(t.device()); }

bool is_mask(const Tensor& t) { return t.dtype() == TSR_BOOL || t.dtype() == TSR_UINT8; }

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// A 0-dim tensor of dtype holding value (kernels::fill's conversion).
Tensor scalar_on(DeviceKernels& k, double value, tsr_dtype dtype, Device device) {
  Tensor t = empty({}, dtype, TSR_CONTIGUOUS_FORMAT, device);
  fill(k, t, value);
  return t;
}

// The position (row-major) of the first element of index (int32 or int64)
// outside [0, limit), or -1: checked on the device, 8 bytes read back.
int64_t first_out_of_range(DeviceKernels& k, const Tensor& index, int64_t limit) {
  if (index.numel() == 0) return -1;
  const Tensor idx = contiguous(k, index, index.dtype());
  Tensor first_bad = empty({}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, index.device());
  k.index_bounds(kernel_shape({idx.numel()}), kernel_operand(static_cast<char*>(idx.data_ptr()), idx.dtype(), {1}),
                 limit, static_cast<int64_t*>(first_bad.data_ptr()), stream_of(idx));
  return *readable_on_host(first_bad).data<int64_t>();
}

// Every value of index in [0, limit), or report(host copy of index) throws
// the CPU kernel's error for it.
template <typename Report>
void check_values(DeviceKernels& k, const Tensor& index, int64_t limit, Report&& report) {
  if (first_out_of_range(k, index, limit) < 0) return;
  report(readable_on_host(index));
  fail(TSR_ERR_INTERNAL, "index check: the device found an index out of range that the host did not");
}

// index (int64) with negative values counted from the end of a dim of
// `size`, as a contiguous int64 tensor of index's sizes; a value outside
// [-size, size) calls report(value), which throws the CPU's error.
template <typename Report>
Tensor wrapped_index(DeviceKernels& k, const Tensor& index, int64_t size, Report&& report) {
  const Tensor v = contiguous(k, index, TSR_INT64);
  if (v.numel() == 0) return v;
  // v + size (the device's scalar add is for floats: a 0-dim size instead)
  const Tensor shifted = binary(k, BinaryKernel::Add, v, scalar_on(k, double(size), TSR_INT64, v.device()), 1.0,
                                TSR_INT64);
  const int64_t bad = first_out_of_range(k, shifted, 2 * size);
  if (bad >= 0) {
    report(readable_on_host(v).data<int64_t>()[bad]);
    fail(TSR_ERR_INTERNAL, "index check: the device found an index out of range that the host did not");
  }
  // shifted - size * (v >= 0), the mask computed in int64 (a bool output
  // would compare in bool).
  const Tensor nonneg = unary(k, UnaryKernel::GeScalar, v, 0.0, TSR_INT64);
  return binary(k, BinaryKernel::Add, shifted, nonneg, -double(size), TSR_INT64);
}

// Refuses what no CPU kernel computes (the storage-only dtypes) with the
// CPU's dispatch message, where the CPU's kernel would dispatch. (The
// kernels check too, but a device may run them after the call returned.)
void require_computable(tsr_dtype d) {
  if (is_storage_only(d)) fail_dtype_dispatch(d);
}

// One scatter_reduce launch over `sizes` (the iteration, dim included):
// columns are the other dims, each operand's strides split into the
// columns' and dim's. count: mean's int64 counts, or undefined.
struct ScatterRun {
  ScatterKernel op;
  bool include_self = true;
  double alpha = 1.0;
};
void run_scatter(DeviceKernels& k, const ScatterRun& r, const Tensor& out, const Tensor& src, const Tensor& index,
                 const Tensor& count, const Shape& sizes, size_t dim, const std::vector<Shape>& strides) {
  Shape columns;
  std::vector<Shape> cs(4);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d == dim) continue;
    columns.push_back(sizes[d]);
    for (size_t o = 0; o < 4; ++o) cs[o].push_back(strides[o][d]);
  }
  if (sizes[dim] == 0) return;
  for (int64_t c : columns)
    if (c == 0) return;
  const Iteration it = coalesce(columns, cs);
  TSR_CHECK(it.sizes.size() <= size_t(kMaxKernelDims), TSR_ERR_UNSUPPORTED, "scatter over more than ",
            kMaxKernelDims, " dims on ", device_name(out.device()));
  ScatterReduceArgs a{};
  a.base.columns = kernel_shape(it.sizes);
  a.base.out = kernel_operand(static_cast<char*>(out.data_ptr()), out.dtype(), it.strides[0]);
  a.base.src = kernel_operand(static_cast<char*>(src.data_ptr()), src.dtype(), it.strides[1]);
  a.base.index = kernel_operand(static_cast<char*>(index.data_ptr()), index.dtype(), it.strides[2]);
  a.count = kernel_operand(count.defined() ? static_cast<char*>(count.data_ptr()) : nullptr, TSR_INT64,
                           it.strides[3]);
  a.base.len = sizes[dim];
  a.base.out_dim_stride = strides[0][dim];
  a.base.src_dim_stride = strides[1][dim];
  a.base.index_dim_stride = strides[2][dim];
  a.count_dim_stride = strides[3][dim];
  a.op = r.op;
  a.include_self = r.include_self;
  a.alpha = r.alpha;
  k.scatter_reduce(a, stream_of(out));
}

// out = in[... with dim's coordinate replaced by index[...]] over sizes
// (in's dim stride 0 in in_strides: its offset comes from the index).
void gather_launch(DeviceKernels& k, const Tensor& out, const Tensor& in, const Tensor& index, const Shape& sizes,
                   const Shape& out_strides, const Shape& in_strides, const Shape& index_strides,
                   int64_t in_dim_stride) {
  const Stream s = stream_of(out);
  for_each_launch(sizes, {operand(out), operand(in), operand(index)}, {out_strides, in_strides, index_strides},
                  [&](const KernelShape& ks, const std::vector<KernelOperand>& ops) {
                    k.gather(ks, ops[0], ops[1], ops[2], in_dim_stride, s);
                  });
}

// The true elements of contiguous mask m (bool or uint8) of `sizes`: their
// positions ([n], flat) or coordinates ([n, ndim]), in C order. Counts per
// block come back to the host (a synchronization) to size the output.
constexpr int64_t kNonzeroBlock = 2048;
struct BlockCounts {
  Tensor host;  // [blocks] int64 on the CPU
  int64_t total = 0;
};
BlockCounts count_blocks(DeviceKernels& k, const Tensor& m, NonzeroArgs& a) {
  const int64_t blocks = (m.numel() + kNonzeroBlock - 1) / kNonzeroBlock;
  Tensor counts = empty({blocks}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, m.device());
  a.mask = m.data_ptr();
  a.mask_dtype = m.dtype();
  a.numel = m.numel();
  a.block = kNonzeroBlock;
  a.write = false;
  a.counts = static_cast<int64_t*>(counts.data_ptr());
  k.nonzero_blocks(a, stream_of(m));
  BlockCounts c{readable_on_host(counts), 0};
  for (int64_t b = 0; b < blocks; ++b) c.total += c.host.data<int64_t>()[b];
  return c;
}

Tensor true_elements(DeviceKernels& k, const Tensor& m, const Shape& sizes, bool flat) {
  const int64_t nd = int64_t(sizes.size());
  if (m.numel() == 0) return empty(flat ? Shape{0} : Shape{0, nd}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, m.device());
  TSR_CHECK(flat || nd <= kMaxKernelDims, TSR_ERR_UNSUPPORTED, "nonzero of more than ", kMaxKernelDims,
            " dims on ", device_name(m.device()));
  NonzeroArgs a{};
  a.shape = kernel_shape(flat ? Shape{} : sizes);
  a.flat = flat;
  const BlockCounts c = count_blocks(k, m, a);
  Tensor out = empty(flat ? Shape{c.total} : Shape{c.total, nd}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, m.device());
  if (c.total == 0 || (!flat && nd == 0)) return out;
  // Each block's first row: the counts before it.
  const int64_t blocks = c.host.numel();
  Tensor starts_host = empty({blocks}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  int64_t at = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    starts_host.data<int64_t>()[b] = at;
    at += c.host.data<int64_t>()[b];
  }
  const Tensor starts = to_device(starts_host, m.device(), false);
  a.write = true;
  a.starts = static_cast<const int64_t*>(starts.data_ptr());
  a.out = static_cast<int64_t*>(out.data_ptr());
  k.nonzero_blocks(a, stream_of(m));
  return out;
}

// self[...] = src[...] (or op) along dim at index's positions, index 1-D
// (or 0-dim) along dim, src of self's sizes but index.numel() along dim (or
// 0-dim, or a 0-dim value): index_add_ / index_copy_ / index_fill_.
void update_along(DeviceKernels& k, const ScatterRun& r, const Tensor& self, int64_t dim, const Tensor& index,
                  const Tensor& src) {
  const int64_t n = index.numel();
  if (n == 0 || self.numel() == 0) return;
  // index_add_'s add_into computes; index_copy_ and index_fill_ only move
  // elements (any dtype, as the CPU's copy and fill).
  if (r.op != ScatterKernel::Assign) require_computable(self.dtype());
  const int64_t index_stride = index.ndim() ? index.strides()[0] : 0;
  if (self.ndim() == 0) {  // every index is 0: src's elements go to the one element, in order
    const int64_t src_stride = src.ndim() ? src.strides()[0] : 0;
    run_scatter(k, r, self, src, index, Tensor(), {n}, 0, {{0}, {src_stride}, {index_stride}, {0}});
    return;
  }
  Shape iter = self.sizes();
  iter[size_t(dim)] = n;
  Shape index_strides(iter.size(), 0);
  index_strides[size_t(dim)] = index_stride;
  run_scatter(k, r, self, src, index, Tensor(), iter, size_t(dim),
              {self.strides(), broadcast_strides(src, iter), index_strides, Shape(iter.size(), 0)});
}

// ---- advanced indexing: kernels::plan_index on a device --------------------

// Where an advanced index reads or writes (kernels::IndexPlan): src
// (self or its transposeToFront view), its indexed dims [first, first +
// count), the broadcast index shape, and lin: per index position (C order)
// the element offset in src of the indexed dims (int64 [numel(index_shape)]
// on the device; [1] of 0 when no dim is indexed).
struct DevicePlan {
  Tensor src;
  int64_t first = 0, count = 0;
  Shape index_shape;
  Tensor lin;
  Shape result_sizes;
};

// kernels::plan_index's checks, in its order and with its messages, and
// (when want_lin) the offsets, each index checked on the device.
DevicePlan plan_index(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& given, bool want_lin) {
  const kernels::IndexGeometry g = kernels::index_geometry(self, given, [&k](const Tensor& mask) {
    return true_elements(k, contiguous(k, mask, mask.dtype()), mask.sizes(), false);
  });
  DevicePlan plan;
  plan.src = g.src;
  plan.first = g.first;
  plan.count = g.count;
  plan.index_shape = g.index_shape;
  plan.result_sizes = g.result_sizes;
  if (!want_lin) return plan;
  if (g.dims.empty()) {
    plan.lin = zeros(k, {1}, TSR_INT64, self.device());
    return plan;
  }
  const int64_t nb = numel_of(g.index_shape);
  plan.lin = zeros(k, {nb}, TSR_INT64, self.device());
  if (nb > 0)
    for (int64_t d : g.dims) {
      const int64_t size = self.sizes()[size_t(d)], stride = self.strides()[size_t(d)];
      const Tensor w = wrapped_index(k, views::expand_or_self(g.idx[size_t(d)], g.index_shape), size,
                                     [&](int64_t i) { kernels::check_index_fill_value(i, d, size); });
      binary_into(k, BinaryKernel::Add, plan.lin, plan.lin, make_view(w, {nb}, {1}, w.storage_offset()),
                  double(stride));
    }
  return plan;
}

// The iteration of an indexing op: src's dims before the indexed ones, the
// index positions as one dim (reached through lin, unit stride), src's dims
// after; with src's strides over it (0 for the index dim).
struct IndexIteration {
  Shape sizes, src_strides, lin_strides;
  size_t dim;  // the index positions' dim
};
IndexIteration index_iteration(const DevicePlan& p) {
  const Shape& ss = p.src.sizes();
  const Shape& st = p.src.strides();
  const size_t a = size_t(p.first), b = size_t(p.first + p.count);
  IndexIteration it;
  for (size_t i = 0; i < a; ++i) {
    it.sizes.push_back(ss[i]);
    it.src_strides.push_back(st[i]);
  }
  it.dim = a;
  it.sizes.push_back(numel_of(p.index_shape));
  it.src_strides.push_back(0);
  for (size_t i = b; i < ss.size(); ++i) {
    it.sizes.push_back(ss[i]);
    it.src_strides.push_back(st[i]);
  }
  it.lin_strides.assign(it.sizes.size(), 0);
  it.lin_strides[a] = 1;
  return it;
}

}  // namespace

// ---- masked_fill, masked_select, nonzero, flip ----------------------------

namespace {
// self = mask ? value : self, value a 0-dim tensor of self's dtype.
void where_into(DeviceKernels& k, const Tensor& self, const Tensor& mask, const Tensor& value) {
  if (self.numel() == 0) return;
  const Stream s = stream_of(self);
  for_each_launch(self.sizes(), {operand(self), operand(mask), operand(value), operand(self)},
                  {self.strides(), broadcast_strides(mask, self.sizes()), Shape(self.sizes().size(), 0),
                   self.strides()},
                  [&](const KernelShape& ks, const std::vector<KernelOperand>& ops) {
                    k.where(ks, ops[0], ops[1], ops[2], ops[3], s);
                  });
}
}  // namespace

void masked_fill_into(DeviceKernels& k, const Tensor& self, const Tensor& mask, double value) {
  if (self.numel() == 0) return;
  // The value as the CPU's masked_fill converts it (T(compute_t<T>(v)),
  // which wraps where fill's convert saturates): converted on the host,
  // then filled as that exact element.
  Tensor host = empty({}, self.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu);
  Tensor yes = empty({}, TSR_BOOL, TSR_CONTIGUOUS_FORMAT, kCpu);
  *yes.data<bool>() = true;
  kernels::masked_fill_into(host, yes, value);
  where_into(k, self, mask, scalar_on(k, kernels::scalar_value(host), self.dtype(), self.device()));
}

void masked_fill_into(DeviceKernels& k, const Tensor& self, const Tensor& mask, const Tensor& value) {
  if (self.numel() == 0) return;
  // torch reads a CUDA value tensor with item() (a synchronization) too.
  masked_fill_into(k, self, mask, kernels::scalar_value(readable_on_host(value)));
}

int64_t count_true(DeviceKernels& k, const Tensor& mask, const Shape& shape) {
  const Tensor m = contiguous(k, views::expand_or_self(mask, shape), is_mask(mask) ? mask.dtype() : TSR_BOOL);
  if (m.numel() == 0) return 0;
  NonzeroArgs a{};
  a.shape = kernel_shape({});
  a.flat = true;
  return count_blocks(k, m, a).total;
}

Tensor masked_select(DeviceKernels& k, const Tensor& x, const Tensor& mask) {
  const Shape shape = broadcast_shapes(x.sizes(), mask.sizes());
  const Tensor m = contiguous(k, views::expand_or_self(mask, shape), mask.dtype());
  const Tensor pos = true_elements(k, m, shape, true);
  const int64_t n = pos.numel();
  Tensor out = empty({n}, x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  if (n == 0) return out;
  const Tensor xs = contiguous(k, views::expand_or_self(x, shape), x.dtype());
  gather_launch(k, out, xs, pos, {n}, {1}, {0}, {1}, 1);
  return out;
}

Tensor nonzero(DeviceKernels& k, const Tensor& x) {
  return true_elements(k, contiguous(k, x, is_mask(x) ? x.dtype() : TSR_BOOL), x.sizes(), false);
}

Tensor flip(DeviceKernels& k, const Tensor& x, const Shape& dims) {
  Tensor out = empty(x.sizes(), x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  if (x.numel() == 0) return out;
  Shape flipped;
  for (int64_t d : dims)
    if (x.sizes()[size_t(d)] > 1) flipped.push_back(d);
  if (flipped.empty()) {
    copy_into(k, out, x);
    return out;
  }
  // One gather per flipped dim, its index n-1, ..., 0 made on the host: in
  // pinned memory for a CUDA device, so the upload is queued, not waited for.
  const bool pinned = x.device().type == TSR_DEVICE_CUDA;
  Tensor cur = x;
  for (size_t i = 0; i < flipped.size(); ++i) {
    const int64_t d = flipped[i], n = x.sizes()[size_t(d)];
    Tensor rev_host = empty({n}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, pinned ? kPinnedHost : kCpu);
    for (int64_t j = 0; j < n; ++j) rev_host.data<int64_t>()[j] = n - 1 - j;
    const Tensor rev = to_device(rev_host, x.device(), pinned);
    Tensor dst = i + 1 == flipped.size() ? out : empty(x.sizes(), x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
    Shape in_strides = cur.strides(), index_strides(x.sizes().size(), 0);
    in_strides[size_t(d)] = 0;
    index_strides[size_t(d)] = 1;
    gather_launch(k, dst, cur, rev, x.sizes(), dst.strides(), in_strides, index_strides, cur.strides()[size_t(d)]);
    cur = dst;
  }
  return out;
}

// ---- scatter, index_add_, index_copy_, index_fill_ ------------------------

void scatter_into(DeviceKernels& k, const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& src,
                  kernels::ScatterReduce reduce, bool include_self) {
  const int64_t dim = wrap_dim(dim0, self.ndim());
  const int64_t n = kernels::size_or_one(self, dim);
  check_values(k, index, n, [&](const Tensor& host) { kernels::check_gather_indices(host, dim, n); });
  if (index.numel() == 0) return;
  require_computable(self.dtype());  // scatter_into's dispatch_all, assignment included
  const size_t nd = size_t(std::max<int64_t>(index.ndim(), 1));
  const Shape isizes = index.ndim() ? index.sizes() : Shape{1};
  Tensor count;
  Shape count_strides(nd, 0);
  if (reduce == kernels::ScatterReduce::Mean) {
    count = empty(self.ndim() ? self.sizes() : Shape{1}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, self.device());
    fill(k, count, include_self ? 1.0 : 0.0);
    count_strides = count.strides();
  }
  const ScatterRun r{ScatterKernel(int32_t(reduce)), include_self, 1.0};
  run_scatter(k, r, self, src, index, count, isizes, size_t(self.ndim() ? dim : 0),
              {kernels::strides_for(self, nd), kernels::strides_for(src, nd), kernels::strides_for(index, nd),
               count_strides});
}

void index_add_into(DeviceKernels& k, const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& source,
                    double alpha) {
  kernels::check_index_add_args(self, index, source);
  const int64_t dim = kernels::check_index_update(self, dim0, index, source, "index_add_");
  const int64_t size = kernels::size_or_one(self, dim);
  check_values(k, index, size,
               [&](const Tensor& host) { kernels::checked_indices(host, dim, size, "index_add_", true); });
  update_along(k, {ScatterKernel::Sum, true, alpha}, self, dim, index, source);
}

void index_copy_into(DeviceKernels& k, const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& source) {
  kernels::check_index_copy_args(self, index, source);
  const int64_t dim = kernels::check_index_update(self, dim0, index, source, "index_copy_");
  const int64_t size = kernels::size_or_one(self, dim);
  check_values(k, index, size,
               [&](const Tensor& host) { kernels::checked_indices(host, dim, size, "index_copy_", false); });
  update_along(k, {ScatterKernel::Assign, true, 1.0}, self, dim, index, source);
}

void index_fill_into(DeviceKernels& k, const Tensor& self, int64_t dim0, const Tensor& index, double value) {
  const int64_t dim = kernels::check_index_fill_args(self, dim0, index);
  const int64_t size = kernels::size_or_one(self, dim);
  const Tensor wrapped =
      wrapped_index(k, index, size, [&](int64_t i) { kernels::check_index_fill_value(i, dim, size); });
  update_along(k, {ScatterKernel::Assign, true, 1.0}, self, dim, wrapped,
               scalar_on(k, value, self.dtype(), self.device()));
}

// ---- index, index_put_ --------------------------------------------------------

Shape index_result_sizes(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& indices) {
  return plan_index(k, self, indices, false).result_sizes;
}

Tensor index(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& indices) {
  const DevicePlan p = plan_index(k, self, indices, true);
  Tensor out = empty(p.result_sizes, self.dtype(), TSR_CONTIGUOUS_FORMAT, self.device());
  if (out.numel() == 0) return out;
  const IndexIteration it = index_iteration(p);
  gather_launch(k, out, p.src, p.lin, it.sizes, contiguous_strides(it.sizes), it.src_strides, it.lin_strides, 1);
  return out;
}

void index_put_into(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                    bool accumulate) {
  const DevicePlan p = plan_index(k, self, indices, true);
  Shape checked;
  TSR_CHECK(try_broadcast_shapes(values.sizes(), p.result_sizes, &checked) && checked == p.result_sizes,
            TSR_ERR_SHAPE_MISMATCH, "shape mismatch: value tensor of shape ", values.sizes(),
            " cannot be broadcast to indexing result of shape ", p.result_sizes);
  if (numel_of(p.result_sizes) == 0) return;
  require_computable(self.dtype());  // index_put_into's dispatch_all
  // values in the result's shape; its index dims read as one (a copy when
  // several of them do not merge).
  Tensor v = views::expand_or_self(values, p.result_sizes);
  const size_t a = size_t(p.first), nbd = p.index_shape.size();
  if (nbd > 1) v = contiguous(k, v, v.dtype());
  const Shape& vs = v.strides();
  const IndexIteration it = index_iteration(p);
  Shape out_strides = it.src_strides, v_strides;
  out_strides[it.dim] = 1;  // lin counts src's elements
  for (size_t i = 0; i < a; ++i) v_strides.push_back(vs[i]);
  v_strides.push_back(nbd ? vs[a + nbd - 1] : 0);
  for (size_t i = a + nbd; i < vs.size(); ++i) v_strides.push_back(vs[i]);
  const ScatterRun r{accumulate ? ScatterKernel::Sum : ScatterKernel::Assign, true, 1.0};
  run_scatter(k, r, p.src, v, p.lin, Tensor(), it.sizes, it.dim,
              {out_strides, v_strides, it.lin_strides, Shape(it.sizes.size(), 0)});
}

}  // namespace tsr::device
