// The host half of DeviceKernels::scan (cumsum / cumprod / prod along a
// line), shared by the CUDA launch (cuda_scan.cu) and the CPU grid emulator
// (gpu/emulator/emulated_kernels.cpp): checks, the accumulator type of the
// CPU's rule, the 32- or 64-bit index math of the line starts, one thread
// per line. Host code only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/kernel_dispatch.h"
#include "kernels/scan_functors.cuh"

namespace tsr::gpu {

// fn(A{}) with scan.cpp's accumulator for op over dtype d: the scans'
// scan_acc_t (double for float32 and float64, float for the 16-bit floats),
// prod's prod_acc_t (the dtype itself, float for the 16-bit floats); int64
// for integers and bool.
template <typename Fn>
void with_scan_acc(ScanKernel op, tsr_dtype d, Fn&& fn) {
  switch (d) {
    case TSR_FLOAT16: case TSR_BFLOAT16: return fn(float{});
    case TSR_FLOAT32: return op == ScanKernel::Prod ? fn(float{}) : fn(double{});
    case TSR_FLOAT64: return fn(double{});
    default: return fn(int64_t{});
  }
}

template <typename Launcher>
void dispatch_scan(Launcher& l, const ScanArgs& a) {
  check_shape(a.lines, "scan");
  check_dtype(a.out.dtype, "scan");
  TSR_CHECK(a.in.dtype == a.out.dtype, TSR_ERR_INVALID_ARGUMENT, "scan: input dtype ", dtype_name(a.in.dtype),
            " differs from the output's ", dtype_name(a.out.dtype));
  TSR_CHECK(!is_storage_only(a.out.dtype), TSR_ERR_UNSUPPORTED, "scan: dtype ", dtype_name(a.out.dtype),
            " is not supported on this device");
  TSR_CHECK(a.op == ScanKernel::CumSum || a.op == ScanKernel::CumProd || a.op == ScanKernel::Prod,
            TSR_ERR_INVALID_ARGUMENT, "scan: invalid op ", int32_t(a.op));
  TSR_CHECK(a.len >= 0, TSR_ERR_INVALID_ARGUMENT, "scan: negative length ", a.len);
  const KernelOperand* const ops[2] = {&a.out, &a.in};
  const char* name = a.op == ScanKernel::CumSum ? "cumsum" : a.op == ScanKernel::CumProd ? "cumprod" : "prod";
  with_scan_acc(a.op, a.out.dtype, [&](auto acc) {
    using A = decltype(acc);
    launch_indexed<2>(l, name, a.lines, ops, [&](auto calc) {
      using Index = std::remove_cvref_t<decltype(calc.sizes[0])>;
      return ScanFn<A, Index>{calc,  a.op,  a.out.data, a.in.data,     a.out.dtype, a.out.dtype == TSR_BOOL,
                              a.len, a.in_stride, a.out_stride, a.reverse};
    });
  });
}

}  // namespace tsr::gpu
