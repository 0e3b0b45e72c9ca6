// The driver's virtual memory calls, handed out by a fake
// cudaGetDriverEntryPointByVersion, on the simulated device's address-space
// reservations: cuMemCreate makes a handle (refused over capacity, where a
// real driver refuses), cuMemMap backs pages with simulated memory, and
// cuMemUnmap frees them once the handle is released, as the driver does.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>
#include <map>
#include <mutex>

#include "double_state.h"

namespace tsr::cuda_double {
namespace {

struct Handle {
  int device;
  size_t bytes;
  int mappings = 0;
  bool released = false;
};

struct Vm {
  std::mutex mu;
  CUmemGenericAllocationHandle next = 1;
  std::map<CUmemGenericAllocationHandle, Handle> handles;
  std::map<CUdeviceptr, CUmemGenericAllocationHandle> mappings;  // by mapped address
  std::map<CUdeviceptr, int> reservations;                        // base -> device
  size_t unmapped_created(int device) {
    size_t n = 0;
    for (auto& [h, v] : handles)
      if (v.device == device && v.mappings == 0) n += v.bytes;
    return n;
  }
};
Vm& vm() {
  static Vm* v = new Vm;
  return *v;
}

void* as_ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

CUresult get_granularity(size_t* g, const CUmemAllocationProp* prop,
                         CUmemAllocationGranularity_flags) {
  if (g == nullptr || prop == nullptr || prop->location.id < 0 ||
      prop->location.id >= sim().device_count())
    return CUDA_ERROR_INVALID_VALUE;
  *g = simdev::kSimPageGranularity;
  return CUDA_SUCCESS;
}

CUresult address_reserve(CUdeviceptr* ptr, size_t size, size_t, CUdeviceptr, unsigned long long) {
  const int device = current_device();
  void* p = sim().reserve_address_space(device, size);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> g(vm().mu);
  vm().reservations[reinterpret_cast<CUdeviceptr>(p)] = device;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult address_free(CUdeviceptr ptr, size_t size) {
  int device = 0;
  {
    std::lock_guard<std::mutex> g(vm().mu);
    auto it = vm().reservations.find(ptr);
    if (it == vm().reservations.end()) return CUDA_ERROR_INVALID_VALUE;
    device = it->second;
    vm().reservations.erase(it);
  }
  sim().release_address_space(device, as_ptr(ptr), size);
  return CUDA_SUCCESS;
}

CUresult create(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                unsigned long long) {
  if (prop == nullptr || prop->location.id < 0 || prop->location.id >= sim().device_count())
    return CUDA_ERROR_INVALID_DEVICE;
  const int device = prop->location.id;
  std::lock_guard<std::mutex> g(vm().mu);
  if (sim().used_bytes(device) + vm().unmapped_created(device) + size > sim().capacity(device))
    return CUDA_ERROR_OUT_OF_MEMORY;
  *handle = vm().next++;
  vm().handles[*handle] = Handle{device, size};
  return CUDA_SUCCESS;
}

CUresult release(CUmemGenericAllocationHandle handle) {
  std::lock_guard<std::mutex> g(vm().mu);
  auto it = vm().handles.find(handle);
  if (it == vm().handles.end() || it->second.released) return CUDA_ERROR_INVALID_VALUE;
  if (it->second.mappings == 0)
    vm().handles.erase(it);
  else
    it->second.released = true;
  return CUDA_SUCCESS;
}

CUresult map(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
             unsigned long long) {
  std::lock_guard<std::mutex> g(vm().mu);
  auto it = vm().handles.find(handle);
  if (it == vm().handles.end() || offset != 0 || size != it->second.bytes)
    return CUDA_ERROR_INVALID_VALUE;
  std::string why;
  if (!sim().map_pages(it->second.device, as_ptr(ptr), size, &why)) return CUDA_ERROR_INVALID_VALUE;
  ++it->second.mappings;
  vm().mappings[ptr] = handle;
  return CUDA_SUCCESS;
}

CUresult unmap(CUdeviceptr ptr, size_t size) {
  std::lock_guard<std::mutex> g(vm().mu);
  auto m = vm().mappings.find(ptr);
  if (m == vm().mappings.end()) return CUDA_ERROR_INVALID_VALUE;
  auto h = vm().handles.find(m->second);
  if (size != h->second.bytes) return CUDA_ERROR_INVALID_VALUE;  // whole mappings only
  sim().unmap_pages(h->second.device, as_ptr(ptr), size);
  vm().mappings.erase(m);
  if (--h->second.mappings == 0 && h->second.released) vm().handles.erase(h);
  return CUDA_SUCCESS;
}

CUresult set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
  std::lock_guard<std::mutex> g(vm().mu);
  if (desc == nullptr || count == 0 || vm().mappings.count(ptr) == 0) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

struct EntryPoint {
  const char* name;
  void* fn;
};
const EntryPoint kEntryPoints[] = {
    {"cuMemGetAllocationGranularity", reinterpret_cast<void*>(&get_granularity)},
    {"cuMemAddressReserve", reinterpret_cast<void*>(&address_reserve)},
    {"cuMemAddressFree", reinterpret_cast<void*>(&address_free)},
    {"cuMemCreate", reinterpret_cast<void*>(&create)},
    {"cuMemRelease", reinterpret_cast<void*>(&release)},
    {"cuMemMap", reinterpret_cast<void*>(&map)},
    {"cuMemUnmap", reinterpret_cast<void*>(&unmap)},
    {"cuMemSetAccess", reinterpret_cast<void*>(&set_access)},
};

}  // namespace

int64_t live_vm_handles() {
  std::lock_guard<std::mutex> g(vm().mu);
  return static_cast<int64_t>(vm().handles.size());
}

}  // namespace tsr::cuda_double

using namespace tsr::cuda_double;

extern "C" cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr,
                                                        unsigned int, unsigned long long,
                                                        cudaDriverEntryPointQueryResult* status) {
  *funcPtr = nullptr;
  bool no_vm = false;
  {
    std::lock_guard<std::mutex> g(knobs().mu);
    no_vm = knobs().no_driver_vm;
  }
  if (status != nullptr) *status = cudaDriverEntryPointSymbolNotFound;
  if (no_vm) return cudaSuccess;
  for (const EntryPoint& e : kEntryPoints) {
    if (std::strcmp(e.name, symbol) == 0) {
      *funcPtr = e.fn;
      if (status != nullptr) *status = cudaDriverEntryPointSuccess;
      return cudaSuccess;
    }
  }
  return cudaSuccess;
}
