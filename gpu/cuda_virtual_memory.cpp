#include "cuda_virtual_memory.h"

#include <cuda_runtime_api.h>

#include "core/error.h"

namespace tsr::cuda {
namespace {

// The ABI version the entry points are asked for: CUDA 12.0, whose
// signatures of these calls are those of cudaTypedefs.h's *_v10020.
constexpr unsigned int kDriverApiVersion = 12000;

template <typename Fn>
bool lookup(const char* name, Fn* fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &p, kDriverApiVersion, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess || p == nullptr) {
    (void)cudaGetLastError();
    return false;
  }
  *fn = reinterpret_cast<Fn>(p);
  return true;
}

CUmemAllocationProp device_memory(int index) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = index;
  return prop;
}

std::string driver_error_text(const char* call, CUresult r) {
  return str(call, " returned CUresult ", static_cast<int>(r),
             r == CUDA_ERROR_OUT_OF_MEMORY ? " (CUDA_ERROR_OUT_OF_MEMORY: out of memory)" : "");
}

}  // namespace

VirtualMemory& VirtualMemory::instance() {
  static VirtualMemory vm;
  return vm;
}

VirtualMemory::VirtualMemory() {
  available_ = lookup("cuMemGetAllocationGranularity", &get_granularity_) &&
               lookup("cuMemAddressReserve", &address_reserve_) &&
               lookup("cuMemAddressFree", &address_free_) && lookup("cuMemCreate", &create_) &&
               lookup("cuMemRelease", &release_) && lookup("cuMemMap", &map_) &&
               lookup("cuMemUnmap", &unmap_) && lookup("cuMemSetAccess", &set_access_);
}

size_t VirtualMemory::granularity(int index) const {
  if (!available_) return 0;
  const CUmemAllocationProp prop = device_memory(index);
  size_t g = 0;
  if (get_granularity_(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS) return 0;
  return g;
}

void* VirtualMemory::reserve(size_t bytes, size_t alignment) const noexcept {
  CUdeviceptr p = 0;
  if (!available_ || address_reserve_(&p, bytes, alignment, 0, 0) != CUDA_SUCCESS) return nullptr;
  return reinterpret_cast<void*>(p);
}

void VirtualMemory::release(void* ptr, size_t bytes) const noexcept {
  if (available_) (void)address_free_(reinterpret_cast<CUdeviceptr>(ptr), bytes);
}

// Create, map, grant access, then drop the handle: the mapping keeps the
// memory alive and cuMemUnmap frees it, so no handle table is needed.
bool VirtualMemory::map_page(int index, CUdeviceptr p, size_t page, std::string* why) const noexcept {
  const CUmemAllocationProp prop = device_memory(index);
  CUmemGenericAllocationHandle handle{};
  CUresult r = create_(&handle, page, &prop, 0);
  if (r != CUDA_SUCCESS) {
    *why = driver_error_text("cuMemCreate", r);
    return false;
  }
  r = map_(p, page, 0, handle, 0);
  (void)release_(handle);
  if (r != CUDA_SUCCESS) {
    *why = driver_error_text("cuMemMap", r);
    return false;
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  r = set_access_(p, page, &access, 1);
  if (r != CUDA_SUCCESS) {
    (void)unmap_(p, page);
    *why = driver_error_text("cuMemSetAccess", r);
    return false;
  }
  return true;
}

bool VirtualMemory::map(int index, void* ptr, size_t bytes, size_t page,
                        std::string* why) const noexcept {
  if (!available_ || page == 0) {
    *why = "the CUDA driver has no virtual memory API";
    return false;
  }
  const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(ptr);
  for (size_t off = 0; off < bytes; off += page) {
    if (!map_page(index, base + off, page, why)) {
      unmap(ptr, off, page);
      return false;
    }
  }
  return true;
}

void VirtualMemory::unmap(void* ptr, size_t bytes, size_t page) const noexcept {
  if (!available_ || page == 0) return;
  const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(ptr);
  for (size_t off = 0; off < bytes; off += page) (void)unmap_(base + off, page);
}

}  // namespace tsr::cuda
