// The allocator of one device type, as storage sees it (c10::Allocator):
// registered per device type by the layer that provides it (alloc/ for every
// backend), so core/ never names an allocator implementation.
#pragma once

#include <cstddef>

#include "core/device.h"
#include "core/device_backend.h"
#include "core/stream.h"

namespace tsr {

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // nbytes of memory for use on the calling thread's current stream of the
  // allocator's device; nullptr for 0 bytes. Throws tsr::Error
  // (TSR_ERR_OUT_OF_MEMORY with the allocator's message).
  virtual void* allocate(size_t nbytes) = 0;
  // Returns what allocate gave; nullptr is ignored.
  virtual void free(void* ptr) noexcept = 0;
  // The block holding ptr is also used on stream s: its memory is not reused
  // until the work queued on s when it is freed has finished
  // (torch.Tensor.record_stream).
  virtual void record_stream(void* ptr, Stream s) = 0;
};

// Registers a device type: its backend and, per device index, its allocator.
// Called by static initialisers of the backends and by the CUDA plugin
// loader; a second registration of a type replaces the first.
using AllocatorForIndex = DeviceAllocator* (*)(Device d);
// Device types a registry holds: DLPack's run from 1 (kDLCPU) to 17 or so.
constexpr int kMaxDeviceTypes = 32;
void register_device_type(DeviceBackend* backend, AllocatorForIndex allocator);

// A loader for device types whose backend comes from a plugin (CUDA:
// libtessera_cuda.so). find_backend and backend_for call it the first time
// such a type is asked for and nothing is registered; it registers the
// backend (register_device_type) or throws tsr::Error saying why it cannot
// (TSR_ERR_UNSUPPORTED: plugin not found, version mismatch, no driver). It
// is called at most once per process for each type it serves; a failure is
// remembered and every later request fails with the same message.
using DeviceLoader = void (*)(tsr_device_type type);
void register_device_loader(tsr_device_type type, DeviceLoader loader);

// The backend of a device type; nullptr when none is registered (or its
// loader failed).
DeviceBackend* find_backend(tsr_device_type type) noexcept;
// Throws TSR_ERR_UNSUPPORTED naming the device when no backend has type or
// index is not one of its devices.
DeviceBackend& backend_for(Device d);
DeviceAllocator& allocator_for(Device d);

}  // namespace tsr
