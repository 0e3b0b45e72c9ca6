// CudaKernels' scatter / index family: index_dispatch.h's host half with
// the CUDA launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/index_dispatch.h"

namespace tsr::cuda {

void CudaKernels::scatter_reduce(const ScatterReduceArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_scatter_reduce(l, args);
}

void CudaKernels::nonzero_blocks(const NonzeroArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_nonzero_blocks(l, args);
}

}  // namespace tsr::cuda
