// CudaKernels::scan: scan_dispatch.h's host half with the CUDA launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/scan_dispatch.h"

namespace tsr::cuda {

void CudaKernels::scan(const ScanArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_scan(l, args);
}

}  // namespace tsr::cuda
