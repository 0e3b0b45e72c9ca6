// Which backends have caching allocators: register_caching_backend gives a
// device type one CachingAllocator per device index, registered with core
// as that type's allocator.
#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "alloc/caching_allocator.h"
#include "core/error.h"

namespace tsr::alloc {
namespace {

struct Allocators {
  std::mutex mutex;  // guards making an allocator
  // Made on first use, never destroyed: storages released by static
  // destructors at exit still come back, and the cached segments stay
  // reachable, so leak checkers do not report them.
  std::vector<std::atomic<CachingAllocator*>> per_index;
};

std::array<std::atomic<Allocators*>, kMaxDeviceTypes>& table() {
  static std::array<std::atomic<Allocators*>, kMaxDeviceTypes> t{};
  return t;
}

DeviceAllocator* allocator_of(Device d) {
  Allocators* a = table()[size_t(d.type)].load(std::memory_order_acquire);
  std::atomic<CachingAllocator*>& slot = a->per_index[size_t(d.index)];
  if (CachingAllocator* c = slot.load(std::memory_order_acquire)) return c;
  std::lock_guard<std::mutex> lock(a->mutex);
  CachingAllocator* c = slot.load(std::memory_order_relaxed);
  if (!c) {
    c = new CachingAllocator(*find_backend(d.type), d.index);
    slot.store(c, std::memory_order_release);
  }
  return c;
}

}  // namespace

void register_caching_backend(DeviceBackend* backend) {
  const int type = int(backend->type());
  TSR_CHECK(type >= 0 && type < kMaxDeviceTypes, TSR_ERR_INTERNAL, "device type ", type,
            " out of range");
  auto* a = new Allocators{{}, std::vector<std::atomic<CachingAllocator*>>(
                                  size_t(std::max(backend->device_count(), 0)))};
  table()[size_t(type)].store(a, std::memory_order_release);
  register_device_type(backend, &allocator_of);
}

CachingAllocator& caching_allocator(Device d) {
  // Every allocator core knows came from register_caching_backend.
  return static_cast<CachingAllocator&>(allocator_for(d));
}

}  // namespace tsr::alloc
