// Stand-ins for libtessera_cuda.so, for testing the loader
// (src/plugin/cuda_loader.cpp) on a machine without CUDA. One source, built
// once per FAKE_PLUGIN_MODE into its own shared library (CMakeLists.txt):
//   FAKE_NO_SYMBOL      exports no tsr_cuda_plugin_init (a wrong library)
//   FAKE_WRONG_ABI      succeeds but reports device plugin ABI 999
//   FAKE_WRONG_VERSION  succeeds but reports tessera version number 999999
//   FAKE_NO_DRIVER      fails as the real plugin does where the CUDA driver
//                       is missing: returns 35 with the CUDA runtime's words
//   FAKE_HOST_MEMORY    works: two "CUDA" devices and pinned host memory,
//                       all plain host memory, every call synchronous
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/device_plugin.h"
#include <tessera/version.h>

#define FAKE_NO_SYMBOL 1
#define FAKE_WRONG_ABI 2
#define FAKE_WRONG_VERSION 3
#define FAKE_NO_DRIVER 4
#define FAKE_HOST_MEMORY 5

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// A backend whose "device" memory is host memory: enough for the caching
// allocator, streams and events to run, so the loader's success path
// (registration of both types) can be tested without a GPU.
class HostMemoryBackend final : public tsr::DeviceBackend {
 public:
  HostMemoryBackend(tsr_device_type type, int32_t count) : type_(type), count_(count) {}
  tsr_device_type type() const override { return type_; }
  int32_t device_count() const override { return count_; }
  void* allocate_segment(int32_t, size_t bytes, std::string* why) noexcept override {
    void* p = std::aligned_alloc(512, bytes);
    if (!p) *why = "out of memory";
    return p;
  }
  void release_segment(int32_t, void* ptr, size_t) noexcept override { std::free(ptr); }
  tsr::DeviceMemoryInfo memory_info(int32_t) override { return {size_t(1) << 30, size_t(1) << 30}; }
  int64_t create_stream(int32_t) override { return ++streams_; }
  void destroy_stream(tsr::Stream) noexcept override {}
  void synchronize_stream(tsr::Stream) override {}
  bool query_stream(tsr::Stream) override { return true; }
  void synchronize_device(int32_t) override {}
  tsr::EventHandle create_event(int32_t, bool) override { return new int(0); }
  void destroy_event(tsr::EventHandle e) noexcept override { delete static_cast<int*>(e); }
  void record_event(tsr::EventHandle, tsr::Stream) override {}
  bool query_event(tsr::EventHandle) override { return true; }
  void synchronize_event(tsr::EventHandle) override {}
  double elapsed_ms(tsr::EventHandle, tsr::EventHandle) override { return 0.0; }
  void copy_bytes(void* dst, const void* src, size_t bytes, tsr::CopyKind,
                  tsr::Stream) override {
    std::memcpy(dst, src, bytes);
  }
 private:
  tsr_device_type type_;
  int32_t count_;
  int64_t streams_ = 0;
};

[[maybe_unused]] void write_why(char* why, size_t capacity, const char* text) {
  if (capacity) std::snprintf(why, capacity, "%s", text);
}

}  // namespace

#if FAKE_PLUGIN_MODE == FAKE_NO_SYMBOL
// A library that is not a tessera plugin: its entry point has another name.
FAKE_EXPORT int not_the_plugin_entry_point(void) { return 0; }
#else
FAKE_EXPORT int tsr_cuda_plugin_init(uint32_t host_abi, uint32_t host_version_number,
                                     tsr::DevicePluginExports* out, char* why,
                                     size_t why_capacity) {
  (void)host_abi;
  (void)host_version_number;
#if FAKE_PLUGIN_MODE == FAKE_NO_DRIVER
  (void)out;
  write_why(why, why_capacity,
            "CUDA driver not found or too old: cudaGetDeviceCount returned 35 "
            "(cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA "
            "runtime version)");
  return 35;
#else
  (void)why;
  (void)why_capacity;
  // The objects live until exit, as the real plugin's do.
  static HostMemoryBackend device(TSR_DEVICE_CUDA, 2);
  static HostMemoryBackend pinned(TSR_DEVICE_CUDA_HOST, 1);
  out->abi = tsr::kDevicePluginAbi;
  out->version_number = TSR_VERSION_NUMBER;
  out->device = &device;
  out->pinned_host = &pinned;
#if FAKE_PLUGIN_MODE == FAKE_WRONG_ABI
  out->abi = 999;
#elif FAKE_PLUGIN_MODE == FAKE_WRONG_VERSION
  out->version_number = 999999;
#endif
  return 0;
#endif
}
#endif
