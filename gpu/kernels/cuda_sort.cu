// CudaKernels::sort_slices: sort_dispatch.h's host half with the CUDA
// launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/sort_dispatch.h"

namespace tsr::cuda {

void CudaKernels::sort_slices(const SortSlicesArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_sort_slices(l, args);
}

}  // namespace tsr::cuda
