// The driver's virtual memory API (cuMemAddressReserve, cuMemCreate,
// cuMemMap, ...), which expandable segments need and the runtime API does
// not offer. The entry points come from cudaGetDriverEntryPointByVersion, as
// PyTorch's c10/cuda/driver_api.cpp gets them, so the plugin never links
// libcuda.so and loads where the driver lacks them (no expandable segments).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace tsr::cuda {

class VirtualMemory {
 public:
  // Looks the entry points up once; missing ones leave the API unavailable.
  static VirtualMemory& instance();

  bool available() const { return available_; }
  // The minimum mapping granularity of device `index` (2 MiB on current
  // GPUs); 0 when the API is unavailable or the driver refuses.
  size_t granularity(int index) const;
  // nullptr when the driver refuses.
  void* reserve(size_t bytes, size_t alignment) const noexcept;
  void release(void* ptr, size_t bytes) const noexcept;
  // Maps [ptr, ptr + bytes) one granularity page at a time (so any page can
  // be unmapped alone later) with read/write access for device `index`;
  // on failure unmaps what it mapped and says why.
  bool map(int index, void* ptr, size_t bytes, size_t page, std::string* why) const noexcept;
  void unmap(void* ptr, size_t bytes, size_t page) const noexcept;

 private:
  VirtualMemory();
  bool map_page(int index, CUdeviceptr p, size_t page, std::string* why) const noexcept;

  bool available_ = false;
  CUresult (*get_granularity_)(size_t*, const CUmemAllocationProp*,
                               CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*address_reserve_)(CUdeviceptr*, size_t, size_t, CUdeviceptr,
                               unsigned long long) = nullptr;
  CUresult (*address_free_)(CUdeviceptr, size_t) = nullptr;
  CUresult (*create_)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                      unsigned long long) = nullptr;
  CUresult (*release_)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*map_)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                   unsigned long long) = nullptr;
  CUresult (*unmap_)(CUdeviceptr, size_t) = nullptr;
  CUresult (*set_access_)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
};

}  // namespace tsr::cuda
