// The DeviceBackend of TSR_DEVICE_CUDA over the CUDA runtime: cudaMalloc'd
// segments, driver virtual memory for expandable segments, CUDA streams and
// events, cudaMemcpyAsync copies and the plugin's kernels. Every call that
// names a device index runs with that device current (DeviceGuard).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/device_backend.h"

namespace tsr::cuda {

class CudaDevice final : public DeviceBackend {
 public:
  // device_count: what cudaGetDeviceCount reported (> 0).
  explicit CudaDevice(int32_t device_count);

  tsr_device_type type() const override { return TSR_DEVICE_CUDA; }
  int32_t device_count() const override { return device_count_; }

  void* allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept override;
  void release_segment(int32_t index, void* ptr, size_t bytes) noexcept override;
  DeviceMemoryInfo memory_info(int32_t index) override;

  size_t page_granularity(int32_t index) const override;
  void* reserve_address_space(int32_t index, size_t bytes) noexcept override;
  void release_address_space(int32_t index, void* ptr, size_t bytes) noexcept override;
  bool map_pages(int32_t index, void* ptr, size_t bytes, std::string* why) noexcept override;
  void unmap_pages(int32_t index, void* ptr, size_t bytes) noexcept override;

  // Created streams are cudaStreamNonBlocking (they do not wait for the
  // legacy default stream, as torch.cuda.Stream()).
  int64_t create_stream(int32_t index) override;
  void destroy_stream(Stream s) noexcept override;
  void synchronize_stream(Stream s) override;
  bool query_stream(Stream s) override;
  void synchronize_device(int32_t index) override;

  // The handle is the cudaEvent_t itself.
  EventHandle create_event(int32_t index, bool timing) override;
  void destroy_event(EventHandle e) noexcept override;
  void record_event(EventHandle e, Stream s) override;
  bool query_event(EventHandle e) override;
  void synchronize_event(EventHandle e) override;
  double elapsed_ms(EventHandle start, EventHandle end) override;
  void stream_wait_event(Stream s, EventHandle e) override;

  // The cudaStream_t (0 for the legacy default stream, tessera's id 0).
  uintptr_t native_stream_handle(Stream s) override;
  // An event recorded on s and waited for by `external` (cudaStreamLegacy
  // for 1, cudaStreamPerThread for 2, else the handle).
  void external_stream_wait(Stream s, uintptr_t external) override;

  void copy_bytes(void* dst, const void* src, size_t bytes, CopyKind kind, Stream s) override;
  // cudaHostAlloc'd (or cudaHostRegister'ed) memory.
  bool is_pinned(const void* p) const override;
  DeviceKernels* kernels() override;
  DnnKernels* dnn_kernels() override;

 private:
  // Throws TSR_ERR_INVALID_ARGUMENT unless 0 <= index < device_count.
  void check_index(int32_t index) const;

  const int32_t device_count_;
  std::vector<size_t> granularity_;  // per device; 0: no expandable segments
};

}  // namespace tsr::cuda
