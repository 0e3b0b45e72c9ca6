// The host half of DeviceKernels' scatter / index family (scatter_reduce,
// nonzero_blocks), shared by the CUDA launches (cuda_index.cu) and the CPU
// grid emulator (gpu/emulator/emulated_kernels.cpp), as select_dispatch.h
// is for where / gather / scatter_add: checks, the 32- or 64-bit index
// math, the functor, the launch. Host code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/index_functors.cuh"
#include "kernels/kernel_dispatch.h"
#include "kernels/select_dispatch.h"

namespace tsr::gpu {

template <typename Launcher>
void dispatch_scatter_reduce(Launcher& l, const ScatterReduceArgs& a) {
  const ScatterAddArgs& b = a.base;
  check_shape(b.columns, "scatter_reduce");
  check_dtype(b.out.dtype, "scatter_reduce");
  TSR_CHECK(b.src.dtype == b.out.dtype, TSR_ERR_INVALID_ARGUMENT, "scatter_reduce: source dtype ",
            dtype_name(b.src.dtype), " differs from the output's ", dtype_name(b.out.dtype));
  TSR_CHECK(a.op == ScatterKernel::Assign || !is_storage_only(b.out.dtype), TSR_ERR_UNSUPPORTED,
            "scatter_reduce: dtype ", dtype_name(b.out.dtype), " is not supported on this device");
  check_index_dtype(b.index.dtype, "scatter_reduce");
  TSR_CHECK(b.len >= 0, TSR_ERR_INVALID_ARGUMENT, "scatter_reduce: negative length ", b.len);
  TSR_CHECK(int32_t(a.op) >= 0 && int32_t(a.op) <= int32_t(ScatterKernel::Amin), TSR_ERR_INVALID_ARGUMENT,
            "scatter_reduce: unknown reduction ", int32_t(a.op));
  const bool mean = a.op == ScatterKernel::Mean;
  TSR_CHECK(!mean || (a.count.data && a.count.dtype == TSR_INT64), TSR_ERR_INVALID_ARGUMENT,
            "scatter_reduce: mean needs an int64 count buffer");
  if (b.len == 0) return;
  KernelOperand count = a.count;
  if (!mean)  // no count: its strides take no part in the offsets
    for (int32_t d = 0; d < b.columns.ndim; ++d) count.strides[d] = 0;
  const KernelOperand* const ops[4] = {&b.out, &b.src, &b.index, &count};
  with_compute_type(b.out.dtype, [&](auto c) {
    using C = decltype(c);
    launch_indexed<4>(l, "scatter_reduce", b.columns, ops, [&](auto calc) {
      using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
      return ScatterReduceFn<C, Index>{calc, a};
    });
  });
}

template <typename Launcher>
void dispatch_nonzero_blocks(Launcher& l, const NonzeroArgs& a) {
  TSR_CHECK(a.mask_dtype == TSR_BOOL || a.mask_dtype == TSR_UINT8, TSR_ERR_INVALID_ARGUMENT,
            "nonzero: mask dtype ", is_valid_dtype(a.mask_dtype) ? dtype_name(a.mask_dtype) : "invalid",
            " is not bool or uint8");
  TSR_CHECK(a.numel >= 0 && a.block > 0, TSR_ERR_INVALID_ARGUMENT, "nonzero: bad numel ", a.numel, " or block ",
            a.block);
  check_shape(a.shape, "nonzero");
  TSR_CHECK(a.write ? (a.starts && a.out) : a.counts != nullptr, TSR_ERR_INVALID_ARGUMENT,
            "nonzero: missing buffers for the ", a.write ? "write" : "count", " pass");
  if (a.numel == 0) return;
  l.launch(a.write ? "nonzero_write" : "nonzero_count", (a.numel + a.block - 1) / a.block, NonzeroBlockFn{a});
}

}  // namespace tsr::gpu
