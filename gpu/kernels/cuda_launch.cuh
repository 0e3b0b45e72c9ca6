// The launcher kernel_dispatch.h drives in the CUDA plugin: a functor run
// by a grid-stride __global__ kernel on the stream's cudaStream_t. Include
// only from .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "kernels/thread_ctx.cuh"

namespace tsr::cuda {

template <typename F>
__global__ void grid_stride_kernel(int64_t n, F f) {
  gpu::grid_stride(gpu::ThreadCtx{blockIdx.x, blockDim.x, threadIdx.x, gridDim.x}, n, f);
}

// Throws TSR_ERR_INTERNAL naming the kernel when the last launch failed.
inline void check_launch(const char* name) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    fail(TSR_ERR_INTERNAL, "CUDA kernel ", name, " failed to launch: ", cudaGetErrorName(e), " (",
         cudaGetErrorString(e), ")");
}

struct CudaLauncher {
  cudaStream_t stream;
  static constexpr uint32_t kBlock = 256;
  // Enough blocks to fill the device several times over; the grid-stride
  // loop covers the rest.
  static constexpr int64_t kMaxGrid = 65535;

  template <typename F>
  void launch(const char* name, int64_t n, const F& f) {
    const int64_t blocks = std::min<int64_t>((n + kBlock - 1) / kBlock, kMaxGrid);
    grid_stride_kernel<F><<<unsigned(blocks), kBlock, 0, stream>>>(n, f);
    check_launch(name);
  }
};

// Makes s's device current for the launches of one call and restores the
// caller's device after (a stream only takes kernels on its own device).
class DeviceGuard {
 public:
  explicit DeviceGuard(int index) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != index) check(cudaSetDevice(index), "cudaSetDevice");
  }
  ~DeviceGuard() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) fail(TSR_ERR_INTERNAL, what, " failed: ", cudaGetErrorName(e));
  }

 private:
  int previous_ = 0;
};

}  // namespace tsr::cuda
