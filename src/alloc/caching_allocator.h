// One device's caching allocator: PyTorch's CUDACachingAllocator rules
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator) written once
// over the DeviceBackend interface, so CPU, the simulated test device and
// CUDA share them. Thread-safe: one mutex guards everything.
//
// - Sizes round up to 512 B, or to the roundup_power2_divisions step.
//   Requests <= 1 MiB use the small pool (2 MiB segments); larger ones the
//   large pool (1-10 MiB requests share 20 MiB segments, >= 10 MiB requests
//   get their own segment rounded up to 2 MiB).
// - Free blocks sit in per-pool sets ordered by (stream, size, address); a
//   request takes the best fit among blocks of the calling thread's current
//   stream. Blocks of max_split_size or more are not split and are used only
//   for requests within 20 MiB of their size.
// - A freed block used on other streams (record_stream) is held until an
//   event recorded on each of those streams at free time completes; events
//   are polled at each allocation, never waited on there.
// - When the device refuses a segment: free cached oversize blocks enough
//   for the request, retry; free every cached whole segment (after waiting
//   for outstanding events), retry; then TSR_ERR_OUT_OF_MEMORY.
// - With garbage_collection_threshold and a memory limit, reserved bytes
//   above threshold * limit make the allocator free cached whole segments of
//   above-average age (age: allocations since the block was cached).
// - expandable_segments: each (stream, pool) gets one address-space
//   reservation whose pages are mapped as it grows and unmapped by
//   empty_cache, instead of many fixed segments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "alloc/memory_stats.h"
#include "alloc/snapshot.h"
#include "core/device_allocator.h"

namespace tsr::alloc {

class CachingAllocator final : public DeviceAllocator {
 public:
  // backend must outlive the allocator.
  CachingAllocator(DeviceBackend& backend, int32_t device_index);
  ~CachingAllocator() override;  // returns every segment, used or not, to the backend
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  Device device() const;

  // DeviceAllocator. allocate uses current_stream(device()).
  void* allocate(size_t nbytes) override;
  void free(void* ptr) noexcept override;
  void record_stream(void* ptr, Stream s) override;
  // allocate on an explicit stream of this device.
  void* allocate_on(size_t nbytes, Stream s);

  DeviceStats stats();
  void reset_peak();
  void reset_accumulated();
  // torch.cuda.empty_cache: waits for outstanding events, then returns every
  // cached whole segment (and unmaps free pages of expandable segments).
  void empty_cache();
  // Cap on reserved bytes (PyTorch: set_per_process_memory_fraction, in
  // bytes); 0: none.
  void set_memory_limit(size_t bytes);
  size_t memory_limit();

  // torch.cuda.memory._record_memory_history(enabled, max_entries).
  void record_history(bool enabled, size_t max_entries);
  // torch.cuda.memory._snapshot(); adds a SNAPSHOT trace entry when recording.
  Snapshot snapshot();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The caching allocator of a registered device (CPU, CUDA, ...). Throws
// TSR_ERR_UNSUPPORTED as allocator_for.
CachingAllocator& caching_allocator(Device d);

// Registers a backend with core (register_device_type) with one caching
// allocator per device index, made on first use and never destroyed
// (storages released by static destructors at exit still return here).
void register_caching_backend(DeviceBackend* backend);

}  // namespace tsr::alloc
