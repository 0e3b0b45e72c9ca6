// What a device backend supplies to the rest of tessera (c10's
// DeviceGuardImplInterface plus the allocator's raw memory calls): device
// memory in segments, streams and events. The caching allocator
// (alloc/caching_allocator.h) builds PyTorch's rules on these calls once for
// every device; a backend only says how its hardware does each one.
// Backends: CPU (cpu/cpu_device.cpp), the simulated device of the tests
// (tests/simdev), CUDA (the gpu/ plugin).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device.h"
#include "core/device_kernels.h"
#include "core/dnn_kernels.h"
#include "core/stream.h"

namespace tsr {

// A backend's event object; only the backend that made it looks inside.
using EventHandle = void*;

// Which sides of a copy are this backend's device memory; host memory is
// ordinary (pageable or pinned) CPU memory.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

struct DeviceMemoryInfo {
  size_t free_bytes;
  size_t total_bytes;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  virtual tsr_device_type type() const = 0;
  virtual int32_t device_count() const = 0;

  // ---- memory, in bytes --------------------------------------------------
  // A segment of `bytes` (a multiple of 512) aligned to at least 512 bytes,
  // or nullptr when the device refuses, with the reason in *why ("out of
  // memory"). Never throws.
  virtual void* allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept = 0;
  virtual void release_segment(int32_t index, void* ptr, size_t bytes) noexcept = 0;
  virtual DeviceMemoryInfo memory_info(int32_t index) = 0;

  // Expandable segments (virtual memory): reserve address space without
  // memory, then map and unmap pages of it. Page granularity in bytes;
  // 0 when the backend has no virtual memory (expandable_segments is then
  // ignored for it, as PyTorch does where the driver lacks the API).
  virtual size_t page_granularity(int32_t index) const { return 0; }
  virtual void* reserve_address_space(int32_t index, size_t bytes) noexcept { return nullptr; }
  virtual void release_address_space(int32_t index, void* ptr, size_t bytes) noexcept {}
  // Backs [ptr, ptr + bytes) (page aligned, inside a reservation) with memory;
  // false with *why when the device refuses.
  virtual bool map_pages(int32_t index, void* ptr, size_t bytes, std::string* why) noexcept {
    *why = "no virtual memory";
    return false;
  }
  virtual void unmap_pages(int32_t index, void* ptr, size_t bytes) noexcept {}

  // ---- streams (id 0 is each device's default stream) --------------------
  virtual int64_t create_stream(int32_t index) = 0;
  virtual void destroy_stream(Stream s) noexcept = 0;
  // Blocks until all work queued on s so far has finished.
  virtual void synchronize_stream(Stream s) = 0;
  // True when all work queued on s so far has finished.
  virtual bool query_stream(Stream s) = 0;
  virtual void synchronize_device(int32_t index) = 0;

  // ---- events --------------------------------------------------------------
  // timing: the event keeps a time stamp for elapsed_ms.
  virtual EventHandle create_event(int32_t index, bool timing) = 0;
  virtual void destroy_event(EventHandle e) noexcept = 0;
  // Marks the point of s's queue that everything queued so far reaches.
  virtual void record_event(EventHandle e, Stream s) = 0;
  // True when the work before the recorded point has finished (or the event
  // was never recorded, as CUDA).
  virtual bool query_event(EventHandle e) = 0;
  virtual void synchronize_event(EventHandle e) = 0;
  // Milliseconds between two completed timing events.
  virtual double elapsed_ms(EventHandle start, EventHandle end) = 0;
  // Makes work queued on s after this call wait until the work before e's
  // newest recording has finished (cudaStreamWaitEvent); the host does not
  // wait. e may belong to another stream of any device of this backend.
  // The default waits on the host instead: the same order, for backends
  // whose streams run work when it is queued (the CPU).
  virtual void stream_wait_event(Stream s, EventHandle e) { synchronize_event(e); }

  // ---- streams of other libraries ---------------------------------------------
  // The handle other libraries know s by (the cudaStream_t as an integer,
  // torch.cuda.Stream.cuda_stream; 0 for CUDA's legacy default stream); 0
  // where streams have no such handle (the CPU).
  virtual uintptr_t native_stream_handle(Stream s) { return 0; }
  // Makes work another library queues on its stream `external` of device
  // s.device (DLPack's stream encoding: 1 the legacy default stream, 2 the
  // per-thread default stream, else the native handle) wait until the work
  // queued on s so far has finished, without blocking the host: the
  // producer's half of DLPack's exchange protocol. The default blocks the
  // host until s is done, which orders any consumer after it.
  virtual void external_stream_wait(Stream s, uintptr_t external) { synchronize_stream(s); }

  // ---- copies and kernels ----------------------------------------------------
  // Queues a copy of `bytes` bytes on s (cudaMemcpyAsync). The caller keeps
  // both buffers alive until s reaches the copy (record_stream, or
  // synchronize_stream for a blocking copy). The CPU backend copies at once.
  virtual void copy_bytes(void* dst, const void* src, size_t bytes, CopyKind kind, Stream s) = 0;
  // Whether host memory at p is page-locked memory this backend's device
  // copies from asynchronously (cudaHostAlloc'd): non_blocking copies from
  // other host memory are synchronous, as in PyTorch.
  virtual bool is_pinned(const void* p) const { return false; }
  // The kernel entry of every primitive on this device; nullptr for the CPU,
  // whose primitives call their CPU kernels directly (Primitive::eval_cpu).
  virtual DeviceKernels* kernels() { return nullptr; }
  // Convolution through a vendor library (cuDNN on CUDA); nullptr: none.
  virtual DnnKernels* dnn_kernels() { return nullptr; }
};

}  // namespace tsr
