// CudaKernels' max pooling: pool_dispatch.h's host half with the CUDA
// launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/pool_dispatch.h"

namespace tsr::cuda {

void CudaKernels::max_pool2d(const MaxPool2dArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_max_pool2d(l, args);
}

void CudaKernels::max_pool2d_backward(const MaxPool2dArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_max_pool2d_backward(l, args);
}

}  // namespace tsr::cuda
