// The CUDA runtime entry points the plugin's host code calls, with cudart's
// C signatures (from the toolkit's own cuda_runtime_api.h), implemented on
// the simulated device: cudaMalloc'd memory is PROT_NONE simulated device
// memory, streams are its worker threads, events its events. Behaviour
// follows the CUDA runtime documentation where the plugin depends on it:
// sticky errors until cudaGetLastError, cudaErrorNotReady from queries,
// events recordable only on streams of the device they were created on,
// elapsed time only between timing events. Environment: TSR_DOUBLE_DEVICES,
// TSR_DOUBLE_CAPACITY (bytes per device), TSR_DOUBLE_NO_DRIVER_VM=1,
// TSR_DOUBLE_HOST_ACCESS=1 (see sim()).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "double_state.h"
#include "tsr_cuda_double.h"

struct CUstream_st {
  int device;
  int64_t id;
};
struct CUevent_st {
  int device;
  bool timing;
  tsr::EventHandle sim_event;
};

namespace tsr::cuda_double {
namespace {

thread_local int tl_device = 0;
thread_local cudaError_t tl_last_error = cudaSuccess;

size_t env_size(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// What the double keeps beside the simulated device.
struct Registry {
  std::mutex mu;
  std::map<void*, size_t> segments;       // cudaMalloc'd, by pointer
  std::map<uintptr_t, size_t> host_blocks;  // cudaHostAlloc'd, by address
  size_t host_bytes = 0;
  std::set<CUstream_st*> streams;
  std::set<CUevent_st*> events;
  CUstream_st last_stream{0, 0};
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

bool valid_device(int d) { return d >= 0 && d < sim().device_count(); }

// The simulated stream behind a CUDA stream; nullptr, cudaStreamLegacy and
// cudaStreamPerThread are the calling thread's device's default stream.
bool to_sim_stream(cudaStream_t s, Stream* out) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
    *out = sim().stream(tl_device, 0);
    return true;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  if (!r.streams.count(s)) return false;
  *out = sim().stream(s->device, s->id);
  return true;
}

bool known_event(cudaEvent_t e) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  return e != nullptr && r.events.count(e) != 0;
}

// Runs a simulated-device call; a tsr::Error from it (a held stream waited
// on, memory that is not the device's) becomes `err`, its text on stderr.
template <typename Fn>
cudaError_t guarded(cudaError_t err, Fn fn) {
  try {
    fn();
    return cudaSuccess;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda double: %s\n", e.what());
    return fail(err);
  }
}

}  // namespace

simdev::SimulatedDevice& sim() {
  static simdev::SimulatedDevice* device = [] {
    auto* d = new simdev::SimulatedDevice(static_cast<int32_t>(env_size("TSR_DOUBLE_DEVICES", 2)),
                                          env_size("TSR_DOUBLE_CAPACITY", size_t{256} << 20));
    // TSR_DOUBLE_HOST_ACCESS=1: device memory readable from the host
    // (SimulatedDevice::allow_host_access), for long training runs.
    const char* open = std::getenv("TSR_DOUBLE_HOST_ACCESS");
    if (open != nullptr && std::strcmp(open, "1") == 0) d->allow_host_access();
    return d;
  }();
  return *device;
}

int current_device() { return tl_device; }

cudaError_t fail(cudaError_t err) {
  tl_last_error = err;
  return err;
}

Knobs& knobs() {
  static Knobs* k = [] {
    auto* n = new Knobs;
    const char* v = std::getenv("TSR_DOUBLE_NO_DRIVER_VM");
    n->no_driver_vm = v != nullptr && std::strcmp(v, "1") == 0;
    return n;
  }();
  return *k;
}

}  // namespace tsr::cuda_double

using namespace tsr::cuda_double;

extern "C" {

// ---- errors and devices -------------------------------------------------------
cudaError_t cudaGetLastError(void) {
  const cudaError_t e = tl_last_error;
  tl_last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return tl_last_error; }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorUnknown: return "cudaErrorUnknown";
    default: return "cudaErrorDoubleUnnamed";
  }
}

// The runtime's own wording for each.
const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorUnknown: return "unknown error";
    default: return "unnamed error of the CUDA double";
  }
}

cudaError_t cudaGetDeviceCount(int* count) {
  Knobs& k = knobs();
  std::lock_guard<std::mutex> g(k.mu);
  if (k.device_count_error != 0) {
    *count = 0;
    return fail(static_cast<cudaError_t>(k.device_count_error));
  }
  *count = k.reported_device_count >= 0 ? k.reported_device_count : sim().device_count();
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = tl_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (!valid_device(device)) return fail(cudaErrorInvalidDevice);
  tl_device = device;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
  return guarded(cudaErrorUnknown, [] { sim().synchronize_device(tl_device); });
}

// ---- device memory ------------------------------------------------------------
cudaError_t cudaMalloc(void** ptr, size_t size) {
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;
  const size_t rounded = (size + 511) / 512 * 512;
  std::string why;
  void* p = sim().allocate_segment(tl_device, rounded, &why);
  if (p == nullptr) return fail(cudaErrorMemoryAllocation);
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.segments[p] = rounded;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  size_t bytes = 0;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    auto it = r.segments.find(ptr);
    if (it == r.segments.end()) return fail(cudaErrorInvalidValue);
    bytes = it->second;
    r.segments.erase(it);
  }
  // cudaFree synchronizes the device before freeing.
  sim().synchronize_device(tl_device);
  sim().release_segment(tl_device, ptr, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  const tsr::DeviceMemoryInfo info = sim().memory_info(tl_device);
  *free_bytes = info.free_bytes;
  *total_bytes = info.total_bytes;
  return cudaSuccess;
}

// ---- pinned host memory -------------------------------------------------------
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) {
  *ptr = nullptr;
  Registry& r = registry();
  const size_t cap = [] {
    std::lock_guard<std::mutex> g(knobs().mu);
    return knobs().host_capacity;
  }();
  std::lock_guard<std::mutex> g(r.mu);
  if (size > cap || r.host_bytes > cap - size) return fail(cudaErrorMemoryAllocation);
  void* p = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
  if (p == nullptr) return fail(cudaErrorMemoryAllocation);
  r.host_blocks[reinterpret_cast<uintptr_t>(p)] = size;
  r.host_bytes += size;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.host_blocks.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == r.host_blocks.end()) return fail(cudaErrorInvalidValue);
  r.host_bytes -= it->second;
  r.host_blocks.erase(it);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  *attr = cudaPointerAttributes{};
  attr->type = cudaMemoryTypeUnregistered;
  attr->device = -2;
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    auto it = r.host_blocks.upper_bound(p);
    if (it != r.host_blocks.begin() && p < std::prev(it)->first + std::prev(it)->second) {
      attr->type = cudaMemoryTypeHost;
      attr->device = 0;
      attr->hostPointer = const_cast<void*>(ptr);
      return cudaSuccess;
    }
  }
  for (int d = 0; d < sim().device_count(); ++d) {
    if (sim().is_device_memory(d, ptr, 1)) {
      attr->type = cudaMemoryTypeDevice;
      attr->device = d;
      attr->devicePointer = const_cast<void*>(ptr);
      break;
    }
  }
  return cudaSuccess;
}

// ---- streams ------------------------------------------------------------------
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  const int64_t id = sim().create_stream(tl_device);
  auto* s = new CUstream_st{tl_device, id};
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.streams.insert(s);
  r.last_stream = *s;
  *stream = s;
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    if (r.streams.erase(stream) == 0) return fail(cudaErrorInvalidResourceHandle);
  }
  sim().destroy_stream(sim().stream(stream->device, stream->id));
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  tsr::Stream s{};
  if (!to_sim_stream(stream, &s)) return fail(cudaErrorInvalidResourceHandle);
  return guarded(cudaErrorUnknown, [&] { sim().synchronize_stream(s); });
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  tsr::Stream s{};
  if (!to_sim_stream(stream, &s)) return fail(cudaErrorInvalidResourceHandle);
  return sim().query_stream(s) ? cudaSuccess : cudaErrorNotReady;
}

// ---- events -------------------------------------------------------------------
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  const bool timing = (flags & cudaEventDisableTiming) == 0;
  auto* e = new CUevent_st{tl_device, timing, sim().create_event(tl_device, timing)};
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.events.insert(e);
  *event = e;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> g(r.mu);
    if (r.events.erase(event) == 0) return fail(cudaErrorInvalidResourceHandle);
  }
  sim().destroy_event(event->sim_event);
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  tsr::Stream s{};
  if (!known_event(event) || !to_sim_stream(stream, &s)) return fail(cudaErrorInvalidResourceHandle);
  // CUDA: "event and stream must be on the same context/device".
  if (s.device.index != event->device) return fail(cudaErrorInvalidResourceHandle);
  return guarded(cudaErrorUnknown, [&] { sim().record_event(event->sim_event, s); });
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  tsr::Stream s{};
  if (!known_event(event) || !to_sim_stream(stream, &s)) return fail(cudaErrorInvalidResourceHandle);
  return guarded(cudaErrorInvalidValue, [&] { sim().stream_wait_event(s, event->sim_event); });
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!known_event(event)) return fail(cudaErrorInvalidResourceHandle);
  return sim().query_event(event->sim_event) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!known_event(event)) return fail(cudaErrorInvalidResourceHandle);
  return guarded(cudaErrorUnknown, [&] { sim().synchronize_event(event->sim_event); });
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!known_event(start) || !known_event(end) || !start->timing || !end->timing)
    return fail(cudaErrorInvalidResourceHandle);
  double t = 0;
  const cudaError_t err = guarded(cudaErrorNotReady, [&] {
    t = sim().elapsed_ms(start->sim_event, end->sim_event);
  });
  *ms = static_cast<float>(t);
  return err;
}

// ---- copies -------------------------------------------------------------------
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  tsr::Stream s{};
  if (!to_sim_stream(stream, &s)) return fail(cudaErrorInvalidResourceHandle);
  return guarded(cudaErrorInvalidValue, [&] {
    switch (kind) {
      case cudaMemcpyHostToDevice: sim().copy_host_to_device(dst, src, count, s); break;
      case cudaMemcpyDeviceToHost: sim().copy_device_to_host(dst, src, count, s); break;
      case cudaMemcpyDeviceToDevice: sim().copy_device_to_device(dst, src, count, s); break;
      case cudaMemcpyHostToHost:
        sim().launch(s, [dst, src, count] { std::memcpy(dst, src, count); });
        break;
      default: throw std::invalid_argument("the double supports explicit copy kinds only");
    }
  });
}

// ---- controls (tsr_cuda_double.h) -----------------------------------------------
int tsr_double_launch(void* stream, void (*fn)(void*), void* ctx, void (*destroy)(void*)) {
  tsr::Stream s{};
  if (!to_sim_stream(static_cast<cudaStream_t>(stream), &s)) {
    destroy(ctx);
    return fail(cudaErrorInvalidResourceHandle);
  }
  // The context goes with the work item, also when the item never runs.
  std::shared_ptr<void> owned(ctx, destroy);
  return guarded(cudaErrorLaunchFailure, [&] {
    sim().launch_with_device_access(s, [fn, owned] { fn(owned.get()); });
  });
}

void tsr_double_fail_device_count(int error) {
  std::lock_guard<std::mutex> g(knobs().mu);
  knobs().device_count_error = error;
}
void tsr_double_report_device_count(int count) {
  std::lock_guard<std::mutex> g(knobs().mu);
  knobs().reported_device_count = count;
}
int tsr_double_is_device_memory(int device, const void* ptr, size_t bytes) {
  return sim().is_device_memory(device, ptr, bytes) ? 1 : 0;
}
void tsr_double_set_capacity(int device, size_t bytes) { sim().set_capacity(device, bytes); }
size_t tsr_double_used_bytes(int device) { return sim().used_bytes(device); }
void tsr_double_set_host_capacity(size_t bytes) {
  std::lock_guard<std::mutex> g(knobs().mu);
  knobs().host_capacity = bytes;
}
void tsr_double_hold(int device, int64_t stream_id) { sim().hold(sim().stream(device, stream_id)); }
void tsr_double_release(int device, int64_t stream_id) {
  sim().release(sim().stream(device, stream_id));
}
int64_t tsr_double_last_stream_id(int* device) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  *device = r.last_stream.device;
  return r.last_stream.id;
}
tsr_double_counters tsr_double_get_counters(void) {
  const tsr::simdev::SimCounters c = sim().counters();
  tsr_double_counters out{};
  out.segments_allocated = c.segments_allocated;
  out.segments_released = c.segments_released;
  out.segment_refusals = c.segment_refusals;
  out.pages_mapped = c.pages_mapped;
  out.pages_unmapped = c.pages_unmapped;
  out.reservations = c.reservations;
  out.reservations_released = c.reservations_released;
  out.events_created = c.events_created;
  out.events_destroyed = c.events_destroyed;
  out.events_recorded = c.events_recorded;
  out.streams_created = c.streams_created;
  out.streams_destroyed = c.streams_destroyed;
  out.copies = c.copies;
  out.live_vm_handles = live_vm_handles();
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  out.live_host_allocs = static_cast<int64_t>(r.host_blocks.size());
  return out;
}
size_t tsr_double_violations(void) { return sim().violations().size(); }

}  // extern "C"
