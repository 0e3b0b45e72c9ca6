#include "device/sort_ops.h"

#include <limits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/shape.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"

namespace tsr::device {

namespace {

// Ranks [first, last) of every slice of x along dim into fresh contiguous
// values and indices of `sizes` (x's with dim's size last - first).
std::pair<Tensor, Tensor> select_ranks(DeviceKernels& k, const Tensor& x, int64_t dim0, int64_t first, int64_t last,
                                       bool descending) {
  if (is_storage_only(x.dtype())) fail_dtype_dispatch(x.dtype());
  const int64_t dim = x.ndim() ? wrap_dim(dim0, x.ndim()) : 0;
  Shape sizes = x.sizes();
  if (x.ndim()) sizes[size_t(dim)] = last - first;
  Tensor values = empty(sizes, x.dtype(), TSR_CONTIGUOUS_FORMAT, x.device());
  Tensor indices = empty(sizes, TSR_INT64, TSR_CONTIGUOUS_FORMAT, x.device());
  if (values.numel() == 0) return {values, indices};
  const int64_t n = x.ndim() ? x.sizes()[size_t(dim)] : 1;
  // sort.cpp's check_slice_length.
  TSR_CHECK(n <= int64_t(std::numeric_limits<uint32_t>::max()), TSR_ERR_UNSUPPORTED,
            "sorting a dim of more than 2^32 - 1 elements (", n, ") is not supported");
  // The outer iteration: every dim but dim, with each operand's strides.
  Shape outer, xs, vs, is;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (d == dim) continue;
    outer.push_back(x.sizes()[size_t(d)]);
    xs.push_back(x.strides()[size_t(d)]);
    vs.push_back(values.strides()[size_t(d)]);
    is.push_back(indices.strides()[size_t(d)]);
  }
  TSR_CHECK(int64_t(outer.size()) <= kMaxKernelDims, TSR_ERR_UNSUPPORTED, "sort: more than ", kMaxKernelDims,
            " dims");
  const int64_t slices = checked_numel(outer);
  const Tensor scratch = empty({slices * n}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, x.device());
  SortSlicesArgs a{};
  a.outer = kernel_shape(outer);
  a.in = kernel_operand(static_cast<char*>(x.data_ptr()), x.dtype(), xs);
  a.values = kernel_operand(static_cast<char*>(values.data_ptr()), x.dtype(), vs);
  a.indices = kernel_operand(static_cast<char*>(indices.data_ptr()), TSR_INT64, is);
  a.n = n, a.first = first, a.last = last;
  a.in_dim_stride = x.ndim() ? x.strides()[size_t(dim)] : 0;
  a.values_dim_stride = x.ndim() ? values.strides()[size_t(dim)] : 0;
  a.indices_dim_stride = x.ndim() ? indices.strides()[size_t(dim)] : 0;
  a.descending = descending;
  a.scratch = static_cast<int64_t*>(scratch.data_ptr());
  k.sort_slices(a, current_stream(x.device()));
  return {values, indices};
}

}  // namespace

std::pair<Tensor, Tensor> sort(DeviceKernels& k, const Tensor& x, int64_t dim, bool descending) {
  const int64_t n = x.ndim() ? x.sizes()[size_t(wrap_dim(dim, x.ndim()))] : 1;
  return select_ranks(k, x, dim, 0, n, descending);
}

std::pair<Tensor, Tensor> topk(DeviceKernels& k, const Tensor& x, int64_t count, int64_t dim, bool largest) {
  return select_ranks(k, x, dim, 0, count, largest);
}

std::pair<Tensor, Tensor> kthvalue(DeviceKernels& k, const Tensor& x, int64_t kth, int64_t dim, bool keepdim) {
  auto [values, indices] = select_ranks(k, x, dim, kth - 1, kth, false);  // dim kept as 1
  if (keepdim || x.ndim() == 0) return {values, indices};
  Shape sizes = values.sizes();
  sizes.erase(sizes.begin() + wrap_dim(dim, x.ndim()));
  const Shape strides = contiguous_strides(sizes);
  return {make_view(values, sizes, strides, values.storage_offset()),
          make_view(indices, sizes, strides, indices.storage_offset())};
}

}  // namespace tsr::device
