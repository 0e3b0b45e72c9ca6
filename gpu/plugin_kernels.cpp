// The real plugin's kernels: gpu/kernels' CudaKernels (launches of the
// shared functors, cuBLAS). The test double's copy of the plugin defines
// plugin_kernels() itself (tests/cuda_double), since it runs no device code.
#include "plugin_kernels.h"

#include "kernels/cuda_kernels.h"

namespace tsr::cuda {

DeviceKernels* plugin_kernels() { return &cuda_kernels(); }

}  // namespace tsr::cuda
