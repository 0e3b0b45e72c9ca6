// GradScaler's fused check and unscale over the gradients of one launch
// (core/device_kernels.h's UnscaleArgs): element i belongs to the first
// gradient whose running end exceeds i. Every thread that meets a
// non-finite value writes the same 1.0f to found_inf, so the race is
// benign (torch's kernel writes found_inf the same way).
#pragma once

#include "core/device_kernels.h"
#include "kernels/dtype_access.cuh"

namespace tsr::gpu {

struct UnscaleFn {
  UnscaleArgs args;

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    int32_t lo = 0, hi = args.count - 1;  // the first t with i < ends[t]
    while (lo < hi) {
      const int32_t mid = (lo + hi) / 2;
      if (i < args.ends[mid]) hi = mid;
      else lo = mid + 1;
    }
    const int64_t j = i - (lo == 0 ? 0 : args.ends[lo - 1]);
    void* data = args.data[lo];
    const tsr_dtype dtype = args.dtypes[lo];
    const double v = load_wide(data, j, dtype).f;
    // v - v is 0 for every finite v and NaN for an infinity or a NaN (no
    // fast-math here), in host and device code alike.
    if (!(v - v == 0.0)) *args.found_inf = 1.0f;
    // torch: val * inv_scale in opmath_t (float; double for float64).
    const double scaled = dtype == TSR_FLOAT64 ? v * double(args.inv_scale) : double(float(v) * args.inv_scale);
    store_wide(data, j, dtype, wide_float(scaled));
  }
};

}  // namespace tsr::gpu
