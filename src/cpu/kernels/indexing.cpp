#include "cpu/kernels/indexing.h"

#include "cpu/kernels/empty_cpu.h"

#include "core/views.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/index_walk.h"
#include "cpu/kernels/mask_simd.h"
#include "cpu/kernels/strided_split.h"

namespace tsr::kernels {

tsr_dtype where_result_dtype(const Tensor& cond, const Tensor& a, const Tensor& b) {
  TSR_CHECK(cond.dtype() == TSR_BOOL || cond.dtype() == TSR_UINT8, TSR_ERR_DTYPE_MISMATCH,
            "where expected condition to be a boolean tensor, but got a tensor with dtype ",
            scalar_type_name(cond.dtype()), " (", dtype_name(cond.dtype()), ")");
  return binary_result_dtype(BinaryOp::Mul, a, b);
}

Tensor where(const Tensor& cond0, const Tensor& a0, const Tensor& b0) {
  const tsr_dtype d = where_result_dtype(cond0, a0, b0);
  const Shape shape = broadcast_shapes(broadcast_shapes(cond0.sizes(), a0.sizes()), b0.sizes());
  const Tensor cond = converted(cond0, TSR_BOOL), a = converted(a0, d), b = converted(b0, d);
  Tensor out = new_output(shape, {&cond0, &a0, &b0}, d);
  if (out.numel() == 0) return out;
  auto g = make_geometry<4>(shape, {byte_strides(out), broadcast_byte_strides(cond, shape),
                                    broadcast_byte_strides(a, shape), broadcast_byte_strides(b, shape)});
  const int64_t e = out.element_size();
  dispatch_all(d, [&]<typename T>() {
    parallel_for_each_run<4>(g,
                             {static_cast<char*>(out.data_ptr()), static_cast<char*>(cond.data_ptr()),
                              static_cast<char*>(a.data_ptr()), static_cast<char*>(b.data_ptr())},
                             out.numel(), [&](char** p, const int64_t* s, int64_t n) {
                      // Unit-stride output, each input unit-stride or broadcast: the SIMD
                      // select (mask_simd.h), which moves the same bits.
                      if (s[0] == e && (s[1] == 0 || s[1] == 1) && (s[2] == 0 || s[2] == e) &&
                          (s[3] == 0 || s[3] == e) &&
                          simd::select(int(e), p[0], reinterpret_cast<const bool*>(p[1]), p[2], p[3], n,
                                       s[1] == 0, s[2] == 0, s[3] == 0))
                        return;
                      for (int64_t i = 0; i < n; ++i)
                        *reinterpret_cast<T*>(p[0] + i * s[0]) =
                            *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                : *reinterpret_cast<const T*>(p[3] + i * s[3]);
                    });
  });
  return out;
}

}  // namespace tsr::kernels

// ---- index_select / index_add ------------------------------------------------

namespace tsr::kernels {


Shape index_select_sizes(const Tensor& x, int64_t dim, const Tensor& index) {
  dim = wrap_dim(dim, x.ndim());
  TSR_CHECK(index.ndim() <= 1, TSR_ERR_SHAPE_MISMATCH, "index_select(): Index is supposed to be a vector (got ",
            index.ndim(), "-D index of sizes ", index.sizes(), ")");
  TSR_CHECK(index.dtype() == TSR_INT64 || index.dtype() == TSR_INT32, TSR_ERR_DTYPE_MISMATCH,
            "index_select(): Expected dtype int32 or int64 for index (got ", dtype_name(index.dtype()), ")");
  Shape sizes = x.sizes();
  if (x.ndim()) sizes[size_t(dim)] = index.numel();
  return sizes;
}

void check_index_select_axis(const Tensor& x, int64_t dim, int64_t index_numel) {
  TSR_CHECK(index_numel == 0 || x.ndim() == 0 || size_or_one(x, dim) > 0, TSR_ERR_INDEX_OUT_OF_RANGE,
            "index_select(): self indexing axis dim should be positive (dim ", dim, " of x ", x.sizes(),
            " is empty)");
}

void check_index_select_values(const std::vector<int64_t>& idx, int64_t dim, int64_t n) {
  for (size_t i = 0; i < idx.size(); ++i)
    TSR_CHECK(idx[i] >= 0 && idx[i] < n, TSR_ERR_INDEX_OUT_OF_RANGE, "index out of range in self: index ",
              idx[i], " (at position ", i, ") is out of bounds for dimension ", dim, " with size ", n);
}

Tensor index_select(const Tensor& x, int64_t dim0, const Tensor& index) {
  const Shape sizes = index_select_sizes(x, dim0, index);
  const int64_t dim = wrap_dim(dim0, x.ndim());
  const std::vector<int64_t> idx = index_values(index);
  const int64_t n = size_or_one(x, dim);
  check_index_select_axis(x, dim, int64_t(idx.size()));
  check_index_select_values(idx, dim, n);
  Tensor out = empty_cpu(sizes, x.dtype());
  if (x.ndim() == 0) {
    copy_strided(out, x);
    return out;
  }
  if (out.numel() == 0) return out;
  for (size_t i = 0; i < idx.size(); ++i)
    copy_strided(views::select(out, dim, int64_t(i)), views::select(x, dim, idx[i]));
  return out;
}

Tensor index_add_zeros(const Shape& sizes, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = zeros(sizes, src.dtype());
  const std::vector<int64_t> idx = index_values(index);
  if (sizes.empty()) {  // 0-dim: every index is 0
    for (size_t i = 0; i < idx.size(); ++i) add_into(out, src.ndim() ? views::select(src, 0, int64_t(i)) : src, 1.0);
    return out;
  }
  for (size_t i = 0; i < idx.size(); ++i)
    add_into(views::select(out, dim, idx[i]), views::select(src, dim, int64_t(i)), 1.0);
  return out;
}

// ---- gather / scatter_add ----------------------------------------------------

void check_gather(const Tensor& x, int64_t dim0, const Tensor& index) {
  const int64_t dim = wrap_dim(dim0, x.ndim());
  TSR_CHECK(index.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH, "gather(): Expected dtype int64 for index (got ",
            dtype_name(index.dtype()), ")");
  if (index.numel() == 0) return;
  const int64_t nd = std::max<int64_t>(x.ndim(), 1);
  TSR_CHECK(nd == std::max<int64_t>(index.ndim(), 1), TSR_ERR_SHAPE_MISMATCH,
            "Index tensor must have the same number of dimensions as input tensor (input ", x.sizes(),
            ", index ", index.sizes(), ")");
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) {
      const int64_t is = index.ndim() ? index.sizes()[size_t(d)] : 1, xs = x.ndim() ? x.sizes()[size_t(d)] : 1;
      TSR_CHECK(is <= xs, TSR_ERR_SHAPE_MISMATCH, "Size does not match at dimension ", d, " expected index ",
                index.sizes(), " to be smaller than self ", x.sizes(), " apart from dimension ", dim);
    }
}

Tensor gather(const Tensor& x, int64_t dim0, const Tensor& index) {
  check_gather(x, dim0, index);
  const int64_t dim = wrap_dim(dim0, x.ndim());
  check_gather_indices(index, dim, size_or_one(x, dim));
  Tensor out = empty_cpu(index.sizes(), x.dtype());
  if (out.numel() == 0) return out;
  const size_t nd = size_t(std::max<int64_t>(index.ndim(), 1));
  const Shape sizes = index.ndim() ? index.sizes() : Shape{1};
  const int64_t xdim = x.ndim() ? x.strides()[size_t(dim)] : 0;
  const int64_t* ip = index.data<int64_t>();
  dispatch_all(x.dtype(), [&]<typename T>() {
    const T* xp = x.data<T>();
    T* op = out.data<T>();
    walk<3>(sizes, {strides_for(x, nd, dim), strides_for(index, nd), strides_for(out, nd)},
            [&](const std::array<int64_t, 3>& o) { op[o[2]] = xp[o[0] + ip[o[1]] * xdim]; });
  });
  return out;
}

Tensor scatter_add_zeros(const Shape& sizes, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = zeros(sizes, src.dtype());
  if (index.numel() == 0) return out;
  const size_t nd = size_t(std::max<int64_t>(index.ndim(), 1));
  const Shape isizes = index.ndim() ? index.sizes() : Shape{1};
  const int64_t odim = out.ndim() ? out.strides()[size_t(dim)] : 0;
  const int64_t* ip = index.data<int64_t>();
  dispatch_all(src.dtype(), [&]<typename T>() {
    T* op = out.data<T>();
    const T* sp = src.data<T>();
    walk<3>(isizes, {strides_for(out, nd, dim), strides_for(index, nd), strides_for(src, nd)},
            [&](const std::array<int64_t, 3>& o) {
              T& dst = op[o[0] + ip[o[1]] * odim];
              if constexpr (std::is_same_v<T, bool>) {
                dst = dst || sp[o[2]];
              } else if constexpr (std::is_integral_v<T>) {  // wraps, as torch
                using U = std::make_unsigned_t<T>;
                dst = T(U(U(dst) + U(sp[o[2]])));
              } else {
                dst = T(compute_t<T>(dst) + compute_t<T>(sp[o[2]]));
              }
            });
  });
  return out;
}

// ---- embedding -----------------------------------------------------------------

Shape embedding_sizes(const Tensor& weight, const Tensor& indices) {
  TSR_CHECK(weight.ndim() == 2, TSR_ERR_SHAPE_MISMATCH, "'weight' must be 2-D (got sizes ", weight.sizes(), ")");
  TSR_CHECK(indices.dtype() == TSR_INT64 || indices.dtype() == TSR_INT32, TSR_ERR_DTYPE_MISMATCH,
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            "but got ", scalar_type_name(indices.dtype()), " (", dtype_name(indices.dtype()),
            ") instead (while checking arguments for embedding)");
  Shape sizes = indices.sizes();
  sizes.push_back(weight.sizes()[1]);
  return sizes;
}

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  const Shape sizes = embedding_sizes(weight, indices);
  const int64_t n = indices.numel();
  Tensor flat = make_view(contiguous_copy(indices, indices.dtype()), {n}, {1}, 0);
  Tensor rows = index_select(weight, 0, flat);  // [n, D], contiguous
  return make_view(rows, sizes, contiguous_strides(sizes), rows.storage_offset());
}

}  // namespace tsr::kernels
