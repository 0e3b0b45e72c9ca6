// The CUDA plugin's host code (gpu/), built against the CUDA runtime's test
// double (libtessera_cuda_double.so over libtessera_cudart_double.so): its
// init and init's failures called directly, then the plugin loaded by
// tessera's loader through $TSR_CUDA_PLUGIN: CUDA tensors, memory
// statistics, streams, events, record_stream, OOM, expandable segments and
// pinned host memory. Nothing here runs on a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tessera/version.h>

#include "alloc/allocator_config.h"
#include "alloc/caching_allocator.h"
#include "core/device_allocator.h"
#include "core/device_plugin.h"
#include "core/factory.h"
#include "core/pinned_stream.h"
#include "tsr_cuda_double.h"

// The double's own cudart entry point (not in a header the test includes).
extern "C" int cudaPeekAtLastError(void);

namespace tsr {
namespace {

constexpr Device kCuda0{TSR_DEVICE_CUDA, 0};
constexpr Device kCuda1{TSR_DEVICE_CUDA, 1};
constexpr size_t kMiB = size_t{1} << 20;

bool no_driver_vm() {
  const char* v = std::getenv("TSR_DOUBLE_NO_DRIVER_VM");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

tsr_device_plugin_init_fn plugin_init() {
  static void* lib = dlopen(TSR_CUDA_DOUBLE_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) ADD_FAILURE() << dlerror();
  return lib ? reinterpret_cast<tsr_device_plugin_init_fn>(dlsym(lib, TSR_CUDA_PLUGIN_INIT_SYMBOL))
             : nullptr;
}

struct InitResult {
  int rc;
  std::string why;
  DevicePluginExports out;
};

InitResult init(uint32_t abi = kDevicePluginAbi, uint32_t version = TSR_VERSION_NUMBER,
                size_t why_capacity = 512) {
  InitResult r{};
  std::vector<char> why(why_capacity + 1, '#');
  r.out = DevicePluginExports{77, 77, nullptr, nullptr, nullptr};
  r.rc = plugin_init()(abi, version, &r.out, why.data(), why_capacity);
  r.why = why.data();
  return r;
}

// The backends, as every CUDA request gets them: the loader
// (src/plugin/cuda_loader.cpp) opens the plugin named by $TSR_CUDA_PLUGIN,
// checks it and registers both backends with a caching allocator each.
DevicePluginExports& plugin() {
  static DevicePluginExports exports = [] {
    setenv("TSR_CUDA_PLUGIN", TSR_CUDA_DOUBLE_PLUGIN, 1);
    DevicePluginExports e{kDevicePluginAbi, TSR_VERSION_NUMBER, nullptr, nullptr, nullptr};
    try {
      e.device = &backend_for(kCuda0);
      e.pinned_host = &backend_for(Device{TSR_DEVICE_CUDA_HOST, 0});
    } catch (const Error& err) {
      ADD_FAILURE() << "the loader refused the double's plugin: " << err.what();
    }
    return e;
  }();
  return exports;
}
DeviceBackend& cuda() { return *plugin().device; }
DeviceBackend& pinned() { return *plugin().pinned_host; }

// Sets a device's capacity for one test and restores the default after it.
struct Capacity {
  int device;
  Capacity(int d, size_t bytes) : device(d) { tsr_double_set_capacity(d, bytes); }
  ~Capacity() { tsr_double_set_capacity(device, 256 * kMiB); }
};

template <typename Fn>
void expect_error(Fn fn, tsr_status status, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), status) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// A CUDA stream the test can hold: created through the backend, found in
// the double by its simulated id.
struct HeldStream {
  Stream s;
  int sim_device = -1;
  int64_t sim_id = -1;
  explicit HeldStream(int32_t index) : s{Device{TSR_DEVICE_CUDA, index}, cuda().create_stream(index)} {
    sim_id = tsr_double_last_stream_id(&sim_device);
  }
  ~HeldStream() {
    tsr_double_release(sim_device, sim_id);
    cuda().destroy_stream(s);
  }
  void hold() { tsr_double_hold(sim_device, sim_id); }
  void release() { tsr_double_release(sim_device, sim_id); }
};

// ---- tsr_cuda_plugin_init --------------------------------------------------------

TEST(CudaPluginInit, RefusesAnotherAbiNamingBoth) {
  InitResult r = init(kDevicePluginAbi + 1);
  EXPECT_EQ(r.rc, -1);
  EXPECT_NE(r.why.find("ABI " + std::to_string(kDevicePluginAbi) + " and"), std::string::npos) << r.why;
  EXPECT_NE(r.why.find("has ABI " + std::to_string(kDevicePluginAbi + 1)), std::string::npos) << r.why;
  EXPECT_EQ(r.out.device, nullptr);  // nothing filled in
  EXPECT_EQ(r.out.abi, 77u);
}

TEST(CudaPluginInit, RefusesAnotherVersionNamingBoth) {
  InitResult r = init(kDevicePluginAbi, TSR_VERSION_NUMBER + 1);
  EXPECT_EQ(r.rc, -1);
  EXPECT_NE(r.why.find("version number " + std::to_string(TSR_VERSION_NUMBER + 1)), std::string::npos)
      << r.why;
  EXPECT_NE(r.why.find("version number " + std::to_string(TSR_VERSION_NUMBER) + ","), std::string::npos)
      << r.why;
  EXPECT_EQ(r.out.device, nullptr);
}

TEST(CudaPluginInit, InsufficientDriverReturns35WithTheRuntimeText) {
  tsr_double_fail_device_count(35);
  InitResult r = init();
  tsr_double_fail_device_count(0);
  EXPECT_EQ(r.rc, 35);
  EXPECT_EQ(r.why,
            "CUDA driver not found or too old: cudaGetDeviceCount returned 35 "
            "(cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime "
            "version)");
  EXPECT_EQ(r.out.device, nullptr);
  EXPECT_EQ(cudaPeekAtLastError(), 0);  // the sticky error was read
}

TEST(CudaPluginInit, MessageIsCutToCapacityAndTerminated) {
  tsr_double_fail_device_count(35);
  InitResult r = init(kDevicePluginAbi, TSR_VERSION_NUMBER, 10);
  tsr_double_fail_device_count(0);
  EXPECT_EQ(r.rc, 35);
  EXPECT_EQ(r.why, "CUDA driv");
}

TEST(CudaPluginInit, OtherRuntimeErrorsNamed) {
  tsr_double_fail_device_count(999);
  InitResult r = init();
  tsr_double_fail_device_count(0);
  EXPECT_EQ(r.rc, 999);
  EXPECT_EQ(r.why, "CUDA runtime failed: cudaGetDeviceCount returned 999 (cudaErrorUnknown: unknown error)");
}

TEST(CudaPluginInit, NoDevice) {
  tsr_double_report_device_count(0);
  InitResult r = init();
  tsr_double_report_device_count(-1);
  EXPECT_EQ(r.rc, 100);
  EXPECT_EQ(r.why, "no CUDA device");
  EXPECT_EQ(r.out.device, nullptr);
}

TEST(CudaPluginInit, ReturnsBothBackends) {
  InitResult r = init();
  ASSERT_EQ(r.rc, 0) << r.why;
  EXPECT_EQ(r.out.abi, kDevicePluginAbi);
  EXPECT_EQ(r.out.version_number, static_cast<uint32_t>(TSR_VERSION_NUMBER));
  ASSERT_NE(r.out.device, nullptr);
  ASSERT_NE(r.out.pinned_host, nullptr);
  EXPECT_NE(r.out.collectives, nullptr);  // NCCL, loaded on the first collective
  EXPECT_EQ(r.out.device->type(), TSR_DEVICE_CUDA);
  EXPECT_EQ(r.out.device->device_count(), 2);
  EXPECT_EQ(r.out.pinned_host->type(), TSR_DEVICE_CUDA_HOST);
  EXPECT_EQ(r.out.pinned_host->device_count(), 1);
  EXPECT_EQ(r.out.device->kernels(), nullptr);  // the double's copy runs no device code
  EXPECT_EQ(init().out.device, r.out.device);   // the same objects every time
}

// ---- device memory ---------------------------------------------------------------

TEST(CudaDevice, MemoryInfoIsTheDevicesAndBadIndexIsRefused) {
  const DeviceMemoryInfo info = cuda().memory_info(1);
  EXPECT_EQ(info.total_bytes, 256 * kMiB);
  EXPECT_EQ(info.free_bytes, info.total_bytes - tsr_double_used_bytes(1));
  expect_error([] { cuda().memory_info(2); }, TSR_ERR_INVALID_ARGUMENT,
               "CUDA device index 2 is out of range: 2 device(s)");
  std::string why;
  EXPECT_EQ(cuda().allocate_segment(-1, 512, &why), nullptr);
  EXPECT_EQ(why, "cannot make cuda:-1 current");
}

TEST(CudaDevice, EmptyTensorTakesACachedSegmentFromCudaMalloc) {
  cuda();
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda0);
  a.empty_cache();
  const tsr_double_counters before = tsr_double_get_counters();
  const size_t used_before = tsr_double_used_bytes(0);
  {
    Tensor t = empty({256, 256}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCuda0);
    EXPECT_EQ(a.stats().all.allocated_bytes.current, 256 * 256 * 4);
    EXPECT_EQ(tsr_double_used_bytes(0) - used_before, 2 * kMiB);  // 256 KiB: a small-pool segment
  }
  EXPECT_EQ(a.stats().all.allocated_bytes.current, 0);
  EXPECT_GT(a.stats().all.reserved_bytes.current, 0);  // cached, not returned
  a.empty_cache();
  EXPECT_EQ(a.stats().all.reserved_bytes.current, 0);
  EXPECT_EQ(tsr_double_used_bytes(0), used_before);
  const tsr_double_counters after = tsr_double_get_counters();
  EXPECT_EQ(after.segments_released - before.segments_released,
            after.segments_allocated - before.segments_allocated);
}

TEST(CudaDevice, CopiesRoundTripThroughDeviceMemory) {
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda0);
  void* d = a.allocate(4096);
  void* d2 = a.allocate(4096);
  std::vector<unsigned char> in(4096), out(4096, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  const Stream s{kCuda0, 0};
  cuda().copy_bytes(d, in.data(), 4096, CopyKind::HostToDevice, s);
  cuda().copy_bytes(d2, d, 4096, CopyKind::DeviceToDevice, s);
  cuda().copy_bytes(out.data(), d2, 4096, CopyKind::DeviceToHost, s);
  cuda().synchronize_stream(s);
  EXPECT_EQ(in, out);
  // Host memory named as device memory: the runtime refuses, the backend throws.
  expect_error([&] { cuda().copy_bytes(out.data(), in.data(), 16, CopyKind::DeviceToHost, s); },
               TSR_ERR_INTERNAL, "cudaMemcpyAsync: cudaErrorInvalidValue: invalid argument");
  EXPECT_EQ(cudaPeekAtLastError(), 0);
  a.free(d);
  a.free(d2);
}

TEST(CudaDevice, OutOfMemorySaysWhatCudaMallocSaid) {
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda1);
  a.empty_cache();
  Capacity cap(1, 8 * kMiB);
  expect_error([&] { a.allocate(16 * kMiB); }, TSR_ERR_OUT_OF_MEMORY,
               "cudaMalloc: cudaErrorMemoryAllocation: out of memory");
  EXPECT_EQ(cudaPeekAtLastError(), 0);  // cleared for the next call
  void* p = a.allocate(kMiB);           // a 2 MiB segment fits: works right after
  EXPECT_NE(p, nullptr);
  a.free(p);
  a.empty_cache();
}

// ---- streams and events ----------------------------------------------------------

TEST(CudaDevice, StreamsQueueWorkAndEventsMarkIt) {
  HeldStream hs(1);
  EXPECT_GT(hs.s.id, 0);
  EXPECT_TRUE(cuda().query_stream(hs.s));
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda1);
  void* d = a.allocate_on(512, hs.s);
  std::vector<unsigned char> in(512, 5);
  hs.hold();
  cuda().copy_bytes(d, in.data(), 512, CopyKind::HostToDevice, hs.s);
  EventHandle e = cuda().create_event(1, /*timing=*/false);
  EXPECT_TRUE(cuda().query_event(e));  // never recorded: complete, as CUDA
  cuda().record_event(e, hs.s);
  EXPECT_FALSE(cuda().query_stream(hs.s));
  EXPECT_FALSE(cuda().query_event(e));
  EXPECT_EQ(cudaPeekAtLastError(), 0);  // cudaErrorNotReady is no error
  hs.release();
  cuda().synchronize_event(e);
  EXPECT_TRUE(cuda().query_event(e));
  cuda().synchronize_stream(hs.s);
  EXPECT_TRUE(cuda().query_stream(hs.s));
  // An event of cuda:1 recorded on a stream of cuda:0: CUDA refuses.
  expect_error([&] { cuda().record_event(e, Stream{kCuda0, 0}); }, TSR_ERR_INTERNAL,
               "cudaEventRecord: cudaErrorInvalidResourceHandle");
  cuda().destroy_event(e);
  a.free(d);
}

TEST(CudaDevice, UnknownStreamsAreRefused) {
  const int64_t id = cuda().create_stream(0);
  cuda().destroy_stream(Stream{kCuda0, id});
  expect_error([&] { cuda().synchronize_stream(Stream{kCuda0, id}); }, TSR_ERR_INVALID_ARGUMENT,
               "stream " + std::to_string(id) + " is not a live stream of cuda:0");
  HeldStream hs(0);
  expect_error([&] { cuda().query_stream(Stream{kCuda1, hs.s.id}); }, TSR_ERR_INVALID_ARGUMENT,
               "is not a live stream of cuda:1");
  expect_error([&] { cuda().query_stream(Stream{Device{TSR_DEVICE_CPU, 0}, 0}); },
               TSR_ERR_INVALID_ARGUMENT, "not a stream of a CUDA device");
  expect_error([&] { cuda().create_stream(7); }, TSR_ERR_INVALID_ARGUMENT, "out of range");
}

TEST(CudaDevice, ElapsedTimeNeedsTimingEvents) {
  const Stream s{kCuda0, 0};
  EventHandle a = cuda().create_event(0, true), b = cuda().create_event(0, true);
  EventHandle plain = cuda().create_event(0, false);
  cuda().record_event(a, s);
  cuda().record_event(b, s);
  cuda().record_event(plain, s);
  cuda().synchronize_event(b);
  cuda().synchronize_event(plain);
  EXPECT_GE(cuda().elapsed_ms(a, b), 0.0);
  expect_error([&] { cuda().elapsed_ms(a, plain); }, TSR_ERR_INTERNAL,
               "cudaEventElapsedTime: cudaErrorInvalidResourceHandle: invalid resource handle");
  for (EventHandle e : {a, b, plain}) cuda().destroy_event(e);
}

TEST(CudaDevice, RecordStreamKeepsABlockUntilTheOtherStreamIsDone) {
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda0);
  HeldStream side(0);
  void* p = a.allocate_on(4096, Stream{kCuda0, 0});
  std::vector<unsigned char> in(4096, 1);
  side.hold();
  cuda().copy_bytes(p, in.data(), 4096, CopyKind::HostToDevice, side.s);
  a.record_stream(p, side.s);
  a.free(p);
  void* q = a.allocate_on(4096, Stream{kCuda0, 0});
  EXPECT_NE(q, p);  // the side stream may still use p
  side.release();
  cuda().synchronize_stream(side.s);
  void* r = a.allocate_on(4096, Stream{kCuda0, 0});
  EXPECT_EQ(r, p);  // its event completed: reused
  a.free(q);
  a.free(r);
}

// ---- expandable segments (driver virtual memory) ----------------------------------

TEST(CudaDevice, GranularityFollowsTheDriver) {
  EXPECT_EQ(cuda().page_granularity(0), no_driver_vm() ? 0 : 2 * kMiB);
  EXPECT_EQ(cuda().page_granularity(5), 0u);
  if (no_driver_vm()) {
    std::string why;
    EXPECT_EQ(cuda().reserve_address_space(0, 2 * kMiB), nullptr);
    EXPECT_FALSE(cuda().map_pages(0, reinterpret_cast<void*>(0x200000), 2 * kMiB, &why));
    EXPECT_EQ(why, "cuda:0 has no virtual memory API");
  }
}

TEST(CudaDevice, ExpandableSegmentsMapAndUnmapPages) {
  alloc::set_allocator_config("expandable_segments:True");
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda1);
  a.empty_cache();
  const tsr_double_counters before = tsr_double_get_counters();
  void* p = a.allocate(3 * kMiB);
  std::vector<unsigned char> in(3 * kMiB, 9), out(3 * kMiB, 0);
  cuda().copy_bytes(p, in.data(), in.size(), CopyKind::HostToDevice, Stream{kCuda1, 0});
  cuda().copy_bytes(out.data(), p, out.size(), CopyKind::DeviceToHost, Stream{kCuda1, 0});
  cuda().synchronize_stream(Stream{kCuda1, 0});
  EXPECT_EQ(in, out);
  const tsr_double_counters mapped = tsr_double_get_counters();
  if (no_driver_vm()) {
    EXPECT_EQ(mapped.pages_mapped, before.pages_mapped);  // plain cudaMalloc instead
    EXPECT_EQ(mapped.segments_allocated - before.segments_allocated, 1);
  } else {
    EXPECT_EQ(mapped.reservations - before.reservations, 1);
    // Every byte the allocator reserved is mapped 2 MiB page by 2 MiB page.
    EXPECT_GT(mapped.pages_mapped, before.pages_mapped);
    EXPECT_EQ((mapped.pages_mapped - before.pages_mapped) * static_cast<int64_t>(2 * kMiB),
              a.stats().all.reserved_bytes.current);
    EXPECT_EQ(mapped.segments_allocated, before.segments_allocated);
  }
  a.free(p);
  a.empty_cache();
  const tsr_double_counters after = tsr_double_get_counters();
  EXPECT_EQ(after.pages_unmapped - before.pages_unmapped, mapped.pages_mapped - before.pages_mapped);
  EXPECT_EQ(after.live_vm_handles, 0);  // unmapping freed every handle's memory
  alloc::set_allocator_config("");
}

TEST(CudaDevice, ExpandableSegmentOverCapacityIsOutOfMemory) {
  if (no_driver_vm()) GTEST_SKIP() << "no virtual memory: covered by OutOfMemorySaysWhatCudaMallocSaid";
  alloc::set_allocator_config("expandable_segments:True");
  alloc::CachingAllocator& a = alloc::caching_allocator(kCuda1);
  a.empty_cache();
  {
    Capacity cap(1, 4 * kMiB);
    expect_error([&] { a.allocate(6 * kMiB); }, TSR_ERR_OUT_OF_MEMORY,
                 "cuMemCreate returned CUresult 2 (CUDA_ERROR_OUT_OF_MEMORY: out of memory)");
    EXPECT_EQ(tsr_double_get_counters().live_vm_handles, 0);
  }
  a.empty_cache();
  alloc::set_allocator_config("");
}

// ---- pinned host memory --------------------------------------------------------------

TEST(CudaHostDevice, PinnedBlocksAreHostMemoryTheRuntimeKnows) {
  pinned();
  alloc::CachingAllocator& a = alloc::caching_allocator(kPinnedHost);
  auto* p = static_cast<unsigned char*>(a.allocate(1000));
  std::memset(p, 3, 1000);  // host memory: the test may touch it
  EXPECT_TRUE(pinned().is_pinned(p));
  EXPECT_TRUE(cuda().is_pinned(p + 999));
  std::vector<unsigned char> ordinary(16);
  EXPECT_FALSE(cuda().is_pinned(ordinary.data()));
  EXPECT_FALSE(pinned().is_pinned(nullptr));
  // A pinned buffer as the source of an asynchronous host-to-device copy.
  void* d = alloc::caching_allocator(kCuda0).allocate(1000);
  std::vector<unsigned char> back(1000);
  cuda().copy_bytes(d, p, 1000, CopyKind::HostToDevice, Stream{kCuda0, 0});
  cuda().copy_bytes(back.data(), d, 1000, CopyKind::DeviceToHost, Stream{kCuda0, 0});
  cuda().synchronize_stream(Stream{kCuda0, 0});
  EXPECT_EQ(back, std::vector<unsigned char>(1000, 3));
  alloc::caching_allocator(kCuda0).free(d);
  const DeviceMemoryInfo info = pinned().memory_info(0);
  EXPECT_GT(info.total_bytes, 0u);
  EXPECT_LE(info.free_bytes, info.total_bytes);
  expect_error([] { pinned().memory_info(1); }, TSR_ERR_INVALID_ARGUMENT,
               "cuda_host has one device (index 0), not 1");
  a.free(p);
}

TEST(CudaHostDevice, BlockUsedByACopyOnCuda1WaitsForThatStream) {
  alloc::CachingAllocator& a = alloc::caching_allocator(kPinnedHost);
  HeldStream side(1);
  void* d = alloc::caching_allocator(kCuda1).allocate_on(4096, side.s);
  void* p = a.allocate(4096);
  side.hold();
  cuda().copy_bytes(d, p, 4096, CopyKind::HostToDevice, side.s);
  // Recorded on cuda:1's stream: the double refuses an event of another
  // device there, so this also checks the event is made on cuda:1.
  a.record_stream(p, pinned_stream(side.s));
  a.free(p);
  void* q = a.allocate(4096);
  EXPECT_NE(q, p);
  side.release();
  pinned().synchronize_stream(pinned_stream(side.s));
  void* r = a.allocate(4096);
  EXPECT_EQ(r, p);
  a.free(q);
  a.free(r);
  alloc::caching_allocator(kCuda1).free(d);
}

TEST(CudaHostDevice, StreamsAndEventsAreCudaOnes) {
  const int64_t id = pinned().create_stream(0);
  const Stream s{kPinnedHost, id};
  const Stream c = device_stream_of(s, TSR_DEVICE_CUDA);
  EXPECT_EQ(c.device, kCuda0);
  EXPECT_EQ(pinned_stream(c), s);
  EXPECT_NE(id, 0) << "a CUDA stream must not look like the host's own stream";
  EXPECT_TRUE(pinned().query_stream(s));
  auto* a = static_cast<unsigned char*>(alloc::caching_allocator(kPinnedHost).allocate(64));
  auto* b = static_cast<unsigned char*>(alloc::caching_allocator(kPinnedHost).allocate(64));
  std::memset(a, 4, 64);
  pinned().copy_bytes(b, a, 64, CopyKind::DeviceToDevice, s);  // host to host on s
  EventHandle t0 = pinned().create_event(0, true), t1 = pinned().create_event(0, true);
  pinned().record_event(t0, s);
  pinned().record_event(t1, s);
  pinned().synchronize_event(t1);
  EXPECT_TRUE(pinned().query_event(t0));
  EXPECT_GE(pinned().elapsed_ms(t0, t1), 0.0);
  EXPECT_EQ(b[63], 4);
  EventHandle unrecorded = pinned().create_event(0, false);
  EXPECT_TRUE(pinned().query_event(unrecorded));
  pinned().synchronize_event(unrecorded);  // nothing to wait for
  expect_error([&] { pinned().elapsed_ms(t0, unrecorded); }, TSR_ERR_INVALID_ARGUMENT,
               "both events must have been recorded");
  expect_error([&] { pinned().record_event(t0, Stream{kCuda0, 0}); }, TSR_ERR_INVALID_ARGUMENT,
               "not a stream of cuda_host:0");
  for (EventHandle e : {t0, t1, unrecorded}) pinned().destroy_event(e);
  pinned().synchronize_device(0);
  pinned().destroy_stream(s);
  expect_error([&] { pinned().query_stream(s); }, TSR_ERR_INVALID_ARGUMENT, "is not a live stream");
  alloc::caching_allocator(kPinnedHost).free(a);
  alloc::caching_allocator(kPinnedHost).free(b);
}

TEST(CudaHostDevice, OutOfPinnedMemorySaysWhatCudaHostAllocSaid) {
  alloc::CachingAllocator& a = alloc::caching_allocator(kPinnedHost);
  a.empty_cache();
  tsr_double_set_host_capacity(1024);
  expect_error([&] { a.allocate(1 * kMiB); }, TSR_ERR_OUT_OF_MEMORY,
               "cudaHostAlloc: cudaErrorMemoryAllocation: out of memory");
  tsr_double_set_host_capacity(SIZE_MAX);
  EXPECT_EQ(cudaPeekAtLastError(), 0);
  std::string why;
  EXPECT_EQ(pinned().allocate_segment(1, 512, &why), nullptr);
  EXPECT_EQ(why, "cuda_host has one device (index 0), not 1");
}

TEST(CudaDouble, NothingMisused) { EXPECT_EQ(tsr_double_violations(), 0u); }

}  // namespace
}  // namespace tsr
