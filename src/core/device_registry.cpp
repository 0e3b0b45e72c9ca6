// The registry of device types (c10's per-device-type allocator and
// DeviceGuardImpl registration): which backend and which allocators serve a
// device type. Filled by static initialisers (the CPU backend) and by the
// CUDA plugin loader; read on every storage allocation, hence the lock-free
// read of a fixed array.
#include <array>
#include <atomic>
#include <mutex>
#include <string>

#include "core/device_allocator.h"
#include "core/error.h"

namespace tsr {

namespace {

struct Registration {
  std::atomic<DeviceBackend*> backend{nullptr};
  std::atomic<AllocatorForIndex> allocator{nullptr};
  std::atomic<DeviceLoader> loader{nullptr};
  // The loader runs once; its failure message is kept for every later request.
  std::once_flag load_once;
  std::string load_error;
};

std::array<Registration, kMaxDeviceTypes>& registry() {
  static std::array<Registration, kMaxDeviceTypes> table;
  return table;
}

Registration* slot(tsr_device_type type) {
  const int t = int(type);
  return t >= 0 && t < kMaxDeviceTypes ? &registry()[size_t(t)] : nullptr;
}

}  // namespace

void register_device_type(DeviceBackend* backend, AllocatorForIndex allocator) {
  Registration* r = slot(backend->type());
  TSR_CHECK(r, TSR_ERR_INTERNAL, "device type ", int(backend->type()), " out of range");
  r->allocator.store(allocator, std::memory_order_release);
  r->backend.store(backend, std::memory_order_release);
}

void register_device_loader(tsr_device_type type, DeviceLoader loader) {
  Registration* r = slot(type);
  TSR_CHECK(r, TSR_ERR_INTERNAL, "device type ", int(type), " out of range");
  r->loader.store(loader, std::memory_order_release);
}

namespace {

// Runs r's loader the first time (a plugin registers its backends), and
// afterwards gives the failure message, empty when it succeeded or none ran.
const std::string& load_once(Registration& r, tsr_device_type type) {
  const DeviceLoader loader = r.loader.load(std::memory_order_acquire);
  if (loader && !r.backend.load(std::memory_order_acquire)) {
    std::call_once(r.load_once, [&] {
      try {
        loader(type);
      } catch (const std::exception& e) {
        r.load_error = e.what();
      }
    });
  }
  return r.load_error;
}

}  // namespace

DeviceBackend* find_backend(tsr_device_type type) noexcept {
  Registration* r = slot(type);
  if (!r) return nullptr;
  load_once(*r, type);
  return r->backend.load(std::memory_order_acquire);
}

DeviceBackend& backend_for(Device d) {
  DeviceBackend* b = find_backend(d.type);
  if (!b) {
    if (Registration* r = slot(d.type); r && !r->load_error.empty())
      fail(TSR_ERR_UNSUPPORTED, r->load_error);
    if (d.type == TSR_DEVICE_CUDA || d.type == TSR_DEVICE_CUDA_HOST)
      fail(TSR_ERR_UNSUPPORTED, "device type ",
           d.type == TSR_DEVICE_CUDA ? "CUDA (2)" : "CUDA_HOST (3)",
           " is not supported by this build of tessera (no CUDA backend)");
    fail(TSR_ERR_UNSUPPORTED, "device type ", int(d.type), " has no backend in this build");
  }
  const int32_t count = b->device_count();
  if (d.type == TSR_DEVICE_CPU)
    TSR_CHECK(d.index == 0, TSR_ERR_UNSUPPORTED, "CPU device index must be 0, got ", d.index);
  TSR_CHECK(d.index >= 0 && d.index < count, TSR_ERR_UNSUPPORTED, "device index ", d.index,
            " is out of range: this machine has ", count, " ", device_type_name(d.type),
            " device(s)");
  return *b;
}

DeviceAllocator& allocator_for(Device d) {
  backend_for(d);
  return *registry()[size_t(d.type)].allocator.load(std::memory_order_acquire)(d);
}

}  // namespace tsr
