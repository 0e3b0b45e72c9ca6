// The DeviceBackend of TSR_DEVICE_CUDA_HOST (one device, index 0): pinned
// host memory from cudaHostAlloc, the staging memory of asynchronous
// host<->CUDA copies (PyTorch's CachingHostAllocator, here under the common
// caching allocator). Its streams and events are CUDA streams and events:
// stream ids encode a CUDA stream (core/pinned_stream.h), so a freed block
// stays cached until the copies queued on those CUDA streams are done.
#pragma once

#include "core/device_backend.h"
#include "cuda_device.h"

namespace tsr::cuda {

class CudaHostDevice final : public DeviceBackend {
 public:
  // cuda: the CUDA backend whose streams this device's stream ids name.
  explicit CudaHostDevice(CudaDevice& cuda) : cuda_(cuda) {}

  tsr_device_type type() const override { return TSR_DEVICE_CUDA_HOST; }
  int32_t device_count() const override { return 1; }

  // cudaHostAlloc(cudaHostAllocDefault) / cudaFreeHost.
  void* allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept override;
  void release_segment(int32_t index, void* ptr, size_t bytes) noexcept override;
  // The host's physical memory: available and total pages.
  DeviceMemoryInfo memory_info(int32_t index) override;

  // A new non-blocking stream of cuda:0.
  int64_t create_stream(int32_t index) override;
  void destroy_stream(Stream s) noexcept override;
  void synchronize_stream(Stream s) override;
  bool query_stream(Stream s) override;
  // Every CUDA device: a pinned block may be in use by any of them.
  void synchronize_device(int32_t index) override;

  // A CUDA event is device-bound, and which CUDA device records it is only
  // known at record time: the handle is a HostEvent whose cudaEvent_t is
  // (re)created on the recording stream's device.
  EventHandle create_event(int32_t index, bool timing) override;
  void destroy_event(EventHandle e) noexcept override;
  void record_event(EventHandle e, Stream s) override;
  bool query_event(EventHandle e) override;
  void synchronize_event(EventHandle e) override;
  double elapsed_ms(EventHandle start, EventHandle end) override;

  // Both buffers are host memory whatever `kind` says: a host-to-host
  // cudaMemcpyAsync queued on the CUDA stream s stands for, so it runs in
  // order with the copies already queued there that read or write these
  // buffers.
  void copy_bytes(void* dst, const void* src, size_t bytes, CopyKind kind, Stream s) override;
  bool is_pinned(const void* p) const override;

 private:
  void check_host_index(int32_t index) const;
  // The CUDA stream s stands for; throws TSR_ERR_INVALID_ARGUMENT for a
  // stream of another device.
  Stream cuda_stream(Stream s) const;

  CudaDevice& cuda_;
};

}  // namespace tsr::cuda
