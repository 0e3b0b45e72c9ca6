// sort, topk and kthvalue (DeviceKernels::sort_slices, issue 32): one
// thread per slice orders its positions by (key, position) with an
// in-place heap sort in scratch memory. (key, position) is a strict total
// order, so any sort gives the CPU's stable one (src/cpu/kernels/sort.cpp:
// a stable sort of the keys); the keys are the CPU's ascending_key.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

// sort.cpp's key_of(v, descending), widened to 64 bits: 32-bit keys (every
// dtype of at most 4 bytes) zero-extended, which keeps their order, and
// inverted in 64 bits, which keeps it too.
TSR_HOST_DEVICE inline uint64_t sort_key(const void* base, int64_t offset, tsr_dtype d, bool descending) {
  uint64_t k = 0;
  switch (d) {
    case TSR_FLOAT64: {
      double f = static_cast<const double*>(base)[offset];
      if (f != f) {
        k = UINT64_MAX;
      } else {
        if (f == 0) f = 0;  // -0 sorts with +0
        uint64_t b;
        std::memcpy(&b, &f, 8);
        const uint64_t sign = uint64_t(1) << 63;
        k = (b & sign) ? ~b : (b | sign);
      }
      break;
    }
    case TSR_FLOAT32:
    case TSR_FLOAT16:
    case TSR_BFLOAT16: {
      float f = float(load_wide(base, offset, d).f);
      if (f != f) {
        k = UINT32_MAX;
      } else {
        if (f == 0) f = 0;
        uint32_t b;
        std::memcpy(&b, &f, 4);
        const uint32_t sign = uint32_t(1) << 31;
        k = (b & sign) ? uint32_t(~b) : (b | sign);
      }
      break;
    }
    case TSR_INT64: k = uint64_t(static_cast<const int64_t*>(base)[offset]) ^ (uint64_t(1) << 63); break;
    case TSR_INT32: k = uint32_t(static_cast<const int32_t*>(base)[offset]) ^ (uint32_t(1) << 31); break;
    case TSR_INT16: k = uint32_t(uint16_t(static_cast<const int16_t*>(base)[offset])) ^ (uint32_t(1) << 15); break;
    case TSR_INT8: k = uint32_t(uint8_t(static_cast<const int8_t*>(base)[offset])) ^ (uint32_t(1) << 7); break;
    case TSR_UINT8: k = static_cast<const uint8_t*>(base)[offset]; break;
    case TSR_BOOL: k = static_cast<const uint8_t*>(base)[offset] != 0; break;
    default: break;  // refused on the host
  }
  return descending ? ~k : k;
}

// Slice s (of `calc`'s outer iteration): in, values, indices in calc's order.
template <typename Index>
struct SortSliceFn {
  OffsetCalc<3, Index> calc;
  const void* in;
  tsr_dtype dtype;
  void* values;
  int64_t* indices;
  int64_t n, first, last;
  int64_t in_dim_stride, values_dim_stride, indices_dim_stride;
  bool descending;
  int64_t* scratch;

  TSR_HOST_DEVICE uint64_t key(int64_t base, int64_t j) const {
    return sort_key(in, base + j * in_dim_stride, dtype, descending);
  }
  // Position a before position b: by key, ties by position.
  TSR_HOST_DEVICE bool before(int64_t base, int64_t a, int64_t b) const {
    const uint64_t ka = key(base, a), kb = key(base, b);
    return ka < kb || (ka == kb && a < b);
  }
  // Moves p[root] down the max-heap p[0, size).
  TSR_HOST_DEVICE void sift_down(int64_t base, int64_t* p, int64_t root, int64_t size) const {
    while (true) {
      int64_t child = 2 * root + 1;
      if (child >= size) return;
      if (child + 1 < size && before(base, p[child], p[child + 1])) ++child;
      if (!before(base, p[root], p[child])) return;
      const int64_t t = p[root];
      p[root] = p[child];
      p[child] = t;
      root = child;
    }
  }

  TSR_HOST_DEVICE void operator()(int64_t s) const {
    const auto off = calc.get(s);
    const int64_t base = int64_t(off.v[0]);
    int64_t* p = scratch + s * n;
    for (int64_t j = 0; j < n; ++j) p[j] = j;
    for (int64_t r = n / 2 - 1; r >= 0; --r) sift_down(base, p, r, n);
    for (int64_t end = n - 1; end > 0; --end) {
      const int64_t t = p[0];
      p[0] = p[end];
      p[end] = t;
      sift_down(base, p, 0, end);
    }
    for (int64_t r = first; r < last; ++r) {
      const int64_t j = p[r];
      store_wide(values, int64_t(off.v[1]) + (r - first) * values_dim_stride, dtype,
                 load_wide(in, base + j * in_dim_stride, dtype));
      indices[int64_t(off.v[2]) + (r - first) * indices_dim_stride] = j;
    }
  }
};

}  // namespace tsr::gpu
