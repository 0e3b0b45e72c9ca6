// The host half of DeviceKernels' selection and layer_norm methods, shared
// by the CUDA launches (cuda_select.cu) and the CPU grid emulator
// (gpu/emulator/emulated_kernels.cpp), as kernel_dispatch.h is for the
// elementwise and row ops: checks, the 32- or 64-bit index math, the
// functor, the launch. Host code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/kernel_dispatch.h"
#include "kernels/select_functors.cuh"

namespace tsr::gpu {

inline void check_index_dtype(tsr_dtype d, const char* what) {
  TSR_CHECK(d == TSR_INT32 || d == TSR_INT64, TSR_ERR_INVALID_ARGUMENT, what, ": index dtype ",
            is_valid_dtype(d) ? dtype_name(d) : "invalid", " is not int32 or int64");
}

template <typename Launcher>
void dispatch_where(Launcher& l, const KernelShape& shape, const KernelOperand& out, const KernelOperand& cond,
                    const KernelOperand& a, const KernelOperand& b) {
  check_shape(shape, "where");
  for (const KernelOperand* op : {&out, &cond, &a, &b}) check_dtype(op->dtype, "where");
  TSR_CHECK(cond.dtype == TSR_BOOL || cond.dtype == TSR_UINT8, TSR_ERR_INVALID_ARGUMENT,
            "where: condition dtype ", dtype_name(cond.dtype), " is not bool or uint8");
  const KernelOperand* const ops[4] = {&out, &cond, &a, &b};
  launch_indexed<4>(l, "where", shape, ops, [&](auto calc) {
    using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
    return WhereFn<Index>{calc, out.data, out.dtype, cond.data, cond.dtype, a.data, a.dtype, b.data, b.dtype};
  });
}

template <typename Launcher>
void dispatch_gather(Launcher& l, const KernelShape& shape, const KernelOperand& out, const KernelOperand& in,
                     const KernelOperand& index, int64_t in_dim_stride) {
  check_shape(shape, "gather");
  check_dtype(out.dtype, "gather");
  TSR_CHECK(in.dtype == out.dtype, TSR_ERR_INVALID_ARGUMENT, "gather: input dtype ", dtype_name(in.dtype),
            " differs from the output's ", dtype_name(out.dtype));
  check_index_dtype(index.dtype, "gather");
  TSR_CHECK(in_dim_stride >= 0, TSR_ERR_INVALID_ARGUMENT, "gather: negative stride ", in_dim_stride);
  const KernelOperand* const ops[3] = {&out, &in, &index};
  launch_indexed<3>(l, "gather", shape, ops, [&](auto calc) {
    using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
    return GatherFn<Index>{calc, out.data, in.data, out.dtype, index.data, index.dtype, in_dim_stride};
  });
}

template <typename Launcher>
void dispatch_scatter_add(Launcher& l, const ScatterAddArgs& a) {
  check_shape(a.columns, "scatter_add");
  check_dtype(a.out.dtype, "scatter_add");
  TSR_CHECK(a.src.dtype == a.out.dtype, TSR_ERR_INVALID_ARGUMENT, "scatter_add: source dtype ",
            dtype_name(a.src.dtype), " differs from the output's ", dtype_name(a.out.dtype));
  TSR_CHECK(!is_storage_only(a.out.dtype), TSR_ERR_UNSUPPORTED, "scatter_add: dtype ", dtype_name(a.out.dtype),
            " is not supported on this device");
  check_index_dtype(a.index.dtype, "scatter_add");
  TSR_CHECK(a.len >= 0, TSR_ERR_INVALID_ARGUMENT, "scatter_add: negative length ", a.len);
  if (a.len == 0) return;
  const KernelOperand* const ops[3] = {&a.out, &a.src, &a.index};
  with_compute_type(a.out.dtype, [&](auto c) {
    using C = decltype(c);
    launch_indexed<3>(l, "scatter_add", a.columns, ops, [&](auto calc) {
      using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
      return ScatterAddFn<C, Index>{calc,  a.out.data,       a.src.data,         a.out.dtype,
                                    a.index.data,          a.index.dtype,    a.len,
                                    a.out_dim_stride,      a.src_dim_stride, a.index_dim_stride};
    });
  });
}

template <typename Launcher>
void dispatch_index_bounds(Launcher& l, const KernelShape& shape, const KernelOperand& index, int64_t limit,
                           int64_t* first_bad) {
  check_shape(shape, "index_bounds");
  check_index_dtype(index.dtype, "index_bounds");
  const int64_t n = shape.numel();
  const KernelOperand* const ops[1] = {&index};
  // One row of n elements, its elements gathered through the offsets.
  auto run = [&](auto calc) {
    using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
    const IndexBoundsFn<Index> f{calc, index.data, index.dtype, n, limit, first_bad};
    launch_rows(l, RowNames{"index_bounds", "index_bounds_block", "index_bounds_columns"}, 1, n, true, false, f);
  };
  if (fits_32bit<1>(shape, ops)) run(make_offset_calc<1, uint32_t>(shape, ops));
  else run(make_offset_calc<1, int64_t>(shape, ops));
}

template <typename Launcher>
void dispatch_layer_norm(Launcher& l, void* out, const void* x, const void* weight, const void* bias,
                         tsr_dtype dtype, int64_t rows, int64_t cols, double eps) {
  check_floating(dtype, "layer_norm");
  check_rows(rows, cols, 0, "layer_norm");
  if (rows * cols == 0) return;
  with_float_storage(dtype, [&](auto c, auto storage) {
    using C = decltype(c);
    launch_rows(l, RowNames{"layer_norm", "layer_norm_block", "layer_norm_columns"}, rows, cols, true, false,
                LayerNormFn<C, decltype(storage)::value>{out, x, weight, bias, cols, eps});
  });
}

}  // namespace tsr::gpu
