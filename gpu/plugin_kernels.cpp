#include "plugin_kernels.h"

#if __has_include("kernels/cuda_kernels.h")
#include "kernels/cuda_kernels.h"
#define TSR_CUDA_HAVE_KERNELS 1
#endif

namespace tsr::cuda {

DeviceKernels* plugin_kernels() {
#ifdef TSR_CUDA_HAVE_KERNELS
  return &cuda_kernels();
#else
  // gpu/kernels is not in this tree yet: CUDA tensors can be allocated,
  // copied and synchronized, but primitives have no kernels to call.
  return nullptr;
#endif
}

}  // namespace tsr::cuda
