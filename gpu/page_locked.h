// Whether host memory is page-locked memory the CUDA runtime knows
// (cudaHostAlloc'd or cudaHostRegister'ed), which copies use asynchronously.
#pragma once

#include <cuda_runtime_api.h>

namespace tsr::cuda {

inline bool is_page_locked(const void* p) noexcept {
  if (p == nullptr) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // older runtimes fail for unregistered memory
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace tsr::cuda
