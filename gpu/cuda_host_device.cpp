#include "cuda_host_device.h"

#include <unistd.h>

#include "cuda_check.h"
#include "cuda_streams.h"
#include "page_locked.h"
#include "core/pinned_stream.h"

namespace tsr::cuda {
namespace {

struct HostEvent {
  bool timing;
  int device = -1;             // the CUDA device `native` belongs to
  cudaEvent_t native = nullptr;  // nullptr until first recorded
};

HostEvent& host_event(EventHandle e) {
  TSR_CHECK(e != nullptr, TSR_ERR_INVALID_ARGUMENT, "pinned host event: null event handle");
  return *static_cast<HostEvent*>(e);
}

}  // namespace

void CudaHostDevice::check_host_index(int32_t index) const {
  TSR_CHECK(index == 0, TSR_ERR_INVALID_ARGUMENT, "cuda_host has one device (index 0), not ",
            index);
}

Stream CudaHostDevice::cuda_stream(Stream s) const {
  TSR_CHECK(s.device == kPinnedHost, TSR_ERR_INVALID_ARGUMENT,
            "not a stream of cuda_host:0: device type ", static_cast<int>(s.device.type),
            " index ", s.device.index);
  const Stream c = device_stream_of(s, TSR_DEVICE_CUDA);
  (void)native_stream(c);  // throws for a stream that is not live
  return c;
}

void* CudaHostDevice::allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept {
  if (index != 0) {
    *why = str("cuda_host has one device (index 0), not ", index);
    return nullptr;
  }
  void* p = nullptr;
  const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    *why = runtime_error_text("cudaHostAlloc", err);
    return nullptr;
  }
  return p;
}

void CudaHostDevice::release_segment(int32_t, void* ptr, size_t) noexcept {
  (void)cudaFreeHost(ptr);
}

DeviceMemoryInfo CudaHostDevice::memory_info(int32_t index) {
  check_host_index(index);
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return {static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) * page,
          static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * page};
}

int64_t CudaHostDevice::create_stream(int32_t index) {
  check_host_index(index);
  return pinned_stream(Stream{Device{TSR_DEVICE_CUDA, 0}, cuda_.create_stream(0)}).id;
}

void CudaHostDevice::destroy_stream(Stream s) noexcept {
  if (s.device == kPinnedHost) cuda_.destroy_stream(device_stream_of(s, TSR_DEVICE_CUDA));
}

void CudaHostDevice::synchronize_stream(Stream s) { cuda_.synchronize_stream(cuda_stream(s)); }

bool CudaHostDevice::query_stream(Stream s) { return cuda_.query_stream(cuda_stream(s)); }

void CudaHostDevice::synchronize_device(int32_t index) {
  check_host_index(index);
  for (int32_t i = 0; i < cuda_.device_count(); ++i) cuda_.synchronize_device(i);
}

EventHandle CudaHostDevice::create_event(int32_t index, bool timing) {
  check_host_index(index);
  return new HostEvent{timing};
}

void CudaHostDevice::destroy_event(EventHandle e) noexcept {
  auto* ev = static_cast<HostEvent*>(e);
  if (ev == nullptr) return;
  cuda_.destroy_event(ev->native);
  delete ev;
}

void CudaHostDevice::record_event(EventHandle e, Stream s) {
  HostEvent& ev = host_event(e);
  const Stream c = cuda_stream(s);
  if (ev.native != nullptr && ev.device != c.device.index) {
    cuda_.destroy_event(ev.native);
    ev.native = nullptr;
  }
  if (ev.native == nullptr) {
    ev.native = static_cast<cudaEvent_t>(cuda_.create_event(c.device.index, ev.timing));
    ev.device = c.device.index;
  }
  cuda_.record_event(ev.native, c);
}

bool CudaHostDevice::query_event(EventHandle e) {
  HostEvent& ev = host_event(e);
  return ev.native == nullptr || cuda_.query_event(ev.native);
}

void CudaHostDevice::synchronize_event(EventHandle e) {
  HostEvent& ev = host_event(e);
  if (ev.native != nullptr) cuda_.synchronize_event(ev.native);
}

double CudaHostDevice::elapsed_ms(EventHandle start, EventHandle end) {
  HostEvent& a = host_event(start);
  HostEvent& b = host_event(end);
  TSR_CHECK(a.native != nullptr && b.native != nullptr, TSR_ERR_INVALID_ARGUMENT,
            "elapsed_ms: both events must have been recorded");
  return cuda_.elapsed_ms(a.native, b.native);
}

void CudaHostDevice::copy_bytes(void* dst, const void* src, size_t bytes, CopyKind, Stream s) {
  const Stream c = cuda_stream(s);
  cudaStream_t stream = native_stream(c);
  DeviceGuard guard(c.device.index);
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToHost, stream), "cudaMemcpyAsync");
}

bool CudaHostDevice::is_pinned(const void* p) const { return is_page_locked(p); }

}  // namespace tsr::cuda
