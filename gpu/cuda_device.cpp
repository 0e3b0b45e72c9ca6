#include "cuda_device.h"

#include "cuda_check.h"
#include "cuda_streams.h"
#include "cuda_stream_table.h"
#include "cuda_virtual_memory.h"
#include "page_locked.h"
#include "plugin_kernels.h"


namespace tsr::cuda {
namespace {

cudaMemcpyKind runtime_kind(CopyKind kind) {
  switch (kind) {
    case CopyKind::HostToDevice: return cudaMemcpyHostToDevice;
    case CopyKind::DeviceToHost: return cudaMemcpyDeviceToHost;
    case CopyKind::DeviceToDevice: return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

// Restores the device a noexcept call switched away from.
struct RestoreDevice {
  int previous = 0;
  ~RestoreDevice() {
    int now = previous;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous) (void)cudaSetDevice(previous);
  }
};

cudaEvent_t native_event(EventHandle e) {
  TSR_CHECK(e != nullptr, TSR_ERR_INVALID_ARGUMENT, "CUDA event: null event handle");
  return static_cast<cudaEvent_t>(e);
}

}  // namespace

CudaDevice::CudaDevice(int32_t device_count) : device_count_(device_count) {
  stream_table().set_device_count(device_count);
  for (int32_t i = 0; i < device_count; ++i)
    granularity_.push_back(VirtualMemory::instance().granularity(i));
}

void CudaDevice::check_index(int32_t index) const {
  TSR_CHECK(index >= 0 && index < device_count_, TSR_ERR_INVALID_ARGUMENT, "CUDA device index ",
            index, " is out of range: ", device_count_, " device(s)");
}

void* CudaDevice::allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept {
  RestoreDevice restore;
  if (index < 0 || index >= device_count_ || !set_device_noexcept(index, &restore.previous)) {
    *why = str("cannot make cuda:", index, " current");
    return nullptr;
  }
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err != cudaSuccess) {
    // cudaErrorMemoryAllocation is sticky until read: clear it so the
    // allocator's retry (after freeing cached blocks) starts clean.
    (void)cudaGetLastError();
    *why = runtime_error_text("cudaMalloc", err);
    return nullptr;
  }
  return p;
}

void CudaDevice::release_segment(int32_t index, void* ptr, size_t) noexcept {
  RestoreDevice restore;
  if (set_device_noexcept(index, &restore.previous)) (void)cudaFree(ptr);
}

DeviceMemoryInfo CudaDevice::memory_info(int32_t index) {
  check_index(index);
  DeviceGuard guard(index);
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return {free_bytes, total_bytes};
}

size_t CudaDevice::page_granularity(int32_t index) const {
  return index >= 0 && index < device_count_ ? granularity_[index] : 0;
}

void* CudaDevice::reserve_address_space(int32_t index, size_t bytes) noexcept {
  const size_t page = page_granularity(index);
  RestoreDevice restore;
  if (page == 0 || !set_device_noexcept(index, &restore.previous)) return nullptr;
  return VirtualMemory::instance().reserve(bytes, page);
}

void CudaDevice::release_address_space(int32_t, void* ptr, size_t bytes) noexcept {
  VirtualMemory::instance().release(ptr, bytes);
}

bool CudaDevice::map_pages(int32_t index, void* ptr, size_t bytes, std::string* why) noexcept {
  const size_t page = page_granularity(index);
  RestoreDevice restore;
  if (page == 0 || !set_device_noexcept(index, &restore.previous)) {
    *why = str("cuda:", index, " has no virtual memory API");
    return false;
  }
  return VirtualMemory::instance().map(index, ptr, bytes, page, why);
}

void CudaDevice::unmap_pages(int32_t index, void* ptr, size_t bytes) noexcept {
  VirtualMemory::instance().unmap(ptr, bytes, page_granularity(index));
}

int64_t CudaDevice::create_stream(int32_t index) {
  check_index(index);
  DeviceGuard guard(index);
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return stream_table().add(index, s);
}

void CudaDevice::destroy_stream(Stream s) noexcept {
  cudaStream_t native = stream_table().remove(s);
  if (native == nullptr) return;
  RestoreDevice restore;
  if (set_device_noexcept(s.device.index, &restore.previous)) (void)cudaStreamDestroy(native);
}

void CudaDevice::synchronize_stream(Stream s) {
  cudaStream_t native = native_stream(s);
  DeviceGuard guard(s.device.index);
  check(cudaStreamSynchronize(native), "cudaStreamSynchronize");
}

bool CudaDevice::query_stream(Stream s) {
  cudaStream_t native = native_stream(s);
  DeviceGuard guard(s.device.index);
  return check_ready(cudaStreamQuery(native), "cudaStreamQuery");
}

void CudaDevice::synchronize_device(int32_t index) {
  check_index(index);
  DeviceGuard guard(index);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

EventHandle CudaDevice::create_event(int32_t index, bool timing) {
  check_index(index);
  DeviceGuard guard(index);
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming),
        "cudaEventCreateWithFlags");
  return e;
}

void CudaDevice::destroy_event(EventHandle e) noexcept {
  if (e != nullptr) (void)cudaEventDestroy(static_cast<cudaEvent_t>(e));
}

void CudaDevice::record_event(EventHandle e, Stream s) {
  cudaEvent_t native = native_event(e);
  cudaStream_t stream = native_stream(s);
  DeviceGuard guard(s.device.index);
  check(cudaEventRecord(native, stream), "cudaEventRecord");
}

bool CudaDevice::query_event(EventHandle e) {
  return check_ready(cudaEventQuery(native_event(e)), "cudaEventQuery");
}

void CudaDevice::synchronize_event(EventHandle e) {
  check(cudaEventSynchronize(native_event(e)), "cudaEventSynchronize");
}

double CudaDevice::elapsed_ms(EventHandle start, EventHandle end) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, native_event(start), native_event(end)), "cudaEventElapsedTime");
  return ms;
}

void CudaDevice::stream_wait_event(Stream s, EventHandle e) {
  cudaStream_t stream = native_stream(s);
  DeviceGuard guard(s.device.index);
  check(cudaStreamWaitEvent(stream, native_event(e), 0), "cudaStreamWaitEvent");
}

uintptr_t CudaDevice::native_stream_handle(Stream s) {
  return reinterpret_cast<uintptr_t>(native_stream(s));
}

void CudaDevice::external_stream_wait(Stream s, uintptr_t external) {
  // DLPack's stream encoding (the Python array API's __dlpack__): 1 and 2
  // name the two default streams, which are not pointers.
  cudaStream_t theirs = external == 1   ? cudaStreamLegacy
                        : external == 2 ? cudaStreamPerThread
                                        : reinterpret_cast<cudaStream_t>(external);
  cudaStream_t ours = native_stream(s);
  DeviceGuard guard(s.device.index);
  cudaEvent_t ready = nullptr;
  check(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  // Destroying an event whose wait is still queued is allowed: the runtime
  // releases it once the wait is satisfied.
  const cudaError_t recorded = cudaEventRecord(ready, ours);
  const cudaError_t waited =
      recorded == cudaSuccess ? cudaStreamWaitEvent(theirs, ready, 0) : cudaSuccess;
  (void)cudaEventDestroy(ready);
  check(recorded, "cudaEventRecord");
  check(waited, "cudaStreamWaitEvent (the consumer's stream)");
}

void CudaDevice::copy_bytes(void* dst, const void* src, size_t bytes, CopyKind kind, Stream s) {
  cudaStream_t stream = native_stream(s);
  DeviceGuard guard(s.device.index);
  check(cudaMemcpyAsync(dst, src, bytes, runtime_kind(kind), stream), "cudaMemcpyAsync");
}

bool CudaDevice::is_pinned(const void* p) const { return is_page_locked(p); }

DeviceKernels* CudaDevice::kernels() { return plugin_kernels(); }

DnnKernels* CudaDevice::dnn_kernels() { return plugin_dnn_kernels(); }

}  // namespace tsr::cuda
