// The host half of DeviceKernels::sort_slices (sort, topk, kthvalue),
// shared by the CUDA launch (cuda_sort.cu) and the CPU grid emulator:
// checks, the 32- or 64-bit index math, the launch of one thread per
// slice. Host code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/kernel_dispatch.h"
#include "kernels/sort_functors.cuh"

namespace tsr::gpu {

template <typename Launcher>
void dispatch_sort_slices(Launcher& l, const SortSlicesArgs& a) {
  check_shape(a.outer, "sort_slices");
  check_dtype(a.in.dtype, "sort_slices");
  TSR_CHECK(!is_storage_only(a.in.dtype), TSR_ERR_UNSUPPORTED, "sort_slices: dtype ", dtype_name(a.in.dtype),
            " is not supported on this device");
  TSR_CHECK(a.values.dtype == a.in.dtype && a.indices.dtype == TSR_INT64, TSR_ERR_INVALID_ARGUMENT,
            "sort_slices: values must be of the input's dtype and indices int64");
  TSR_CHECK(a.n >= 0 && a.first >= 0 && a.first <= a.last && a.last <= a.n, TSR_ERR_INVALID_ARGUMENT,
            "sort_slices: ranks [", a.first, ", ", a.last, ") outside a slice of ", a.n);
  if (a.n == 0 || a.first == a.last) return;
  TSR_CHECK(a.scratch != nullptr, TSR_ERR_INVALID_ARGUMENT, "sort_slices: no scratch memory");
  const KernelOperand* const ops[3] = {&a.in, &a.values, &a.indices};
  launch_indexed<3>(l, "sort_slices", a.outer, ops, [&](auto calc) {
    using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
    return SortSliceFn<Index>{calc,
                              a.in.data,
                              a.in.dtype,
                              a.values.data,
                              static_cast<int64_t*>(a.indices.data),
                              a.n,
                              a.first,
                              a.last,
                              a.in_dim_stride,
                              a.values_dim_stride,
                              a.indices_dim_stride,
                              a.descending,
                              a.scratch};
  });
}

}  // namespace tsr::gpu
