// Linear index -> element offset of each operand over a KernelShape (ATen's
// OffsetCalculator): the last dim varies fastest. Index is int64_t in
// general; uint32_t where every linear index and every operand offset fits
// in 31 bits (fits_32bit), whose divisions are several times cheaper on a
// GPU. Offsets are in elements, never negative (the views tessera has give
// non-negative strides).
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"

namespace tsr::gpu {

template <int N, typename Index>
struct OffsetCalc {
  int32_t ndim;
  Index sizes[kMaxKernelDims];
  Index strides[kMaxKernelDims][N];

  struct Offsets {
    Index v[N];
  };

  TSR_HOST_DEVICE Offsets get(int64_t linear) const {
    Offsets out{};
    Index rem = Index(linear);
    for (int32_t d = ndim - 1; d >= 0; --d) {
      const Index size = sizes[d];
      const Index idx = rem % size;
      rem /= size;
      for (int k = 0; k < N; ++k) out.v[k] += idx * strides[d][k];
    }
    return out;
  }
};

// Builds the calculator for operands `ops` over `shape` (size-0 shapes
// never reach a kernel: the caller returns first).
template <int N, typename Index>
OffsetCalc<N, Index> make_offset_calc(const KernelShape& shape, const KernelOperand* const (&ops)[N]) {
  OffsetCalc<N, Index> c{};
  c.ndim = shape.ndim;
  for (int32_t d = 0; d < shape.ndim; ++d) {
    c.sizes[d] = Index(shape.sizes[d]);
    for (int k = 0; k < N; ++k) c.strides[d][k] = Index(ops[k]->strides[d]);
  }
  return c;
}

constexpr int64_t k32BitLimit = int64_t(1) << 31;

// The largest element offset, sum of (size - 1) * stride, of strides over
// shape, or -1 when it reaches 2^31 (checked as it goes: a huge stride could
// overflow int64 itself).
inline int64_t extent_32bit(const KernelShape& shape, const int64_t* strides) {
  int64_t extent = 0;
  for (int32_t d = 0; d < shape.ndim; ++d) {
    const int64_t s = strides[d], span = shape.sizes[d] - 1;
    if (span <= 0) continue;
    if (s < 0 || s >= k32BitLimit || span >= k32BitLimit) return -1;
    extent += span * s;  // < 2^31 * 2^31: no overflow
    if (extent >= k32BitLimit) return -1;
  }
  return extent;
}

inline bool numel_32bit(const KernelShape& shape) {
  int64_t numel = 1;
  for (int32_t d = 0; d < shape.ndim; ++d) {
    if (shape.sizes[d] >= k32BitLimit) return false;
    numel *= shape.sizes[d];  // both factors below 2^31: no overflow
    if (numel >= k32BitLimit) return false;
  }
  return true;
}

// Whether the 32-bit calculator is exact: numel and every operand's largest
// offset below 2^31.
template <int N>
bool fits_32bit(const KernelShape& shape, const KernelOperand* const (&ops)[N]) {
  if (!numel_32bit(shape)) return false;
  for (int k = 0; k < N; ++k)
    if (extent_32bit(shape, ops[k]->strides) < 0) return false;
  return true;
}

}  // namespace tsr::gpu
