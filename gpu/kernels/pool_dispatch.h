// The host half of DeviceKernels::max_pool2d and its backward, shared by
// the CUDA launches (cuda_pool.cu) and the CPU grid emulator: checks, the
// compute type, the launch. Host code only.
#pragma once

#include "kernels/kernel_dispatch.h"
#include "kernels/pool_functors.cuh"

namespace tsr::gpu {

inline void check_max_pool2d(const MaxPool2dArgs& a, const char* what) {
  check_floating(a.dtype, what);
  TSR_CHECK(a.batch >= 0 && a.channels >= 0 && a.height >= 0 && a.width >= 0 && a.out_height >= 0 &&
                a.out_width >= 0,
            TSR_ERR_INVALID_ARGUMENT, what, ": negative sizes");
  for (int i = 0; i < 2; ++i)
    TSR_CHECK(a.kernel[i] > 0 && a.stride[i] > 0 && a.dilation[i] > 0 && a.padding[i] >= 0,
              TSR_ERR_INVALID_ARGUMENT, what, ": kernel, stride and dilation must be positive, padding not negative");
}

// One thread per output element.
template <typename Launcher>
void dispatch_max_pool2d(Launcher& l, const MaxPool2dArgs& a) {
  check_max_pool2d(a, "max_pool2d");
  const int64_t n = a.batch * a.channels * a.out_height * a.out_width;
  if (n == 0) return;
  if (a.dtype == TSR_FLOAT64) l.launch("max_pool2d", n, MaxPool2dFn<double>{a});
  else l.launch("max_pool2d", n, MaxPool2dFn<float>{a});
}

// One thread per input element: every element of grad_input is written.
template <typename Launcher>
void dispatch_max_pool2d_backward(Launcher& l, const MaxPool2dArgs& a) {
  check_max_pool2d(a, "max_pool2d_backward");
  const int64_t n = a.batch * a.channels * a.height * a.width;
  if (n == 0) return;
  if (a.dtype == TSR_FLOAT64) l.launch("max_pool2d_backward", n, MaxPool2dBackwardFn<double>{a});
  else l.launch("max_pool2d_backward", n, MaxPool2dBackwardFn<float>{a});
}

}  // namespace tsr::gpu
