// CudaKernels::loss_map: loss_dispatch.h's host half with the CUDA launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/loss_dispatch.h"

namespace tsr::cuda {

void CudaKernels::loss_map(LossKernel op, const LossMapArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_loss_map(l, op, args);
}

}  // namespace tsr::cuda
