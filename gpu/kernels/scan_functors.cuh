// cumsum / cumprod / prod along one dim (core/device_kernels.h's ScanArgs;
// src/cpu/kernels/scan.cpp's scan_loop and prod_loop): one thread per
// line, combining its elements in order in the CPU's accumulator type, so
// every running value and every product is the CPU's bit for bit. Run on
// a GPU and by the CPU grid emulator alike.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

// A is the accumulator: double, float, or int64_t for integers and bool
// (is_bool: sum is or, product is and, as the CPU's bool accumulator).
template <typename A, typename Index>
struct ScanFn {
  OffsetCalc<2, Index> lines;  // out, in
  ScanKernel op;
  void* out;
  const void* in;
  tsr_dtype dtype;
  bool is_bool;
  int64_t len, in_stride, out_stride;
  bool reverse;

  TSR_HOST_DEVICE A combine(A acc, A x) const {
    const bool sum = op == ScanKernel::CumSum;
    if constexpr (kIsIntCompute<A>) {
      if (is_bool) return sum ? A(acc != 0 || x != 0) : A(acc != 0 && x != 0);
      return sum ? wrap_add(acc, x) : wrap_mul(acc, x);
    } else {
      return sum ? A(acc + x) : A(acc * x);
    }
  }

  TSR_HOST_DEVICE void operator()(int64_t i) const {
    const auto o = lines.get(i);
    const int64_t out_base = int64_t(o.v[0]), in_base = int64_t(o.v[1]);
    A acc = A(op == ScanKernel::CumSum ? 0 : 1);
    for (int64_t step = 0; step < len; ++step) {
      const int64_t j = reverse ? len - 1 - step : step;
      acc = combine(acc, wide_to<A>(load_wide(in, in_base + j * in_stride, dtype)));
      if (op != ScanKernel::Prod) store_wide(out, out_base + j * out_stride, dtype, to_wide<A>(acc));
    }
    if (op == ScanKernel::Prod) store_wide(out, out_base, dtype, to_wide<A>(acc));
  }
};

}  // namespace tsr::gpu
