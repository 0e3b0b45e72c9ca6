// The caching allocator over the real CUDA plugin on a real GPU: tessera's
// reserved bytes against the driver's own count (cudaMemGetInfo deltas),
// block reuse from the cache, and empty_cache handing memory back.
// Without a usable GPU it prints why and exits 77 (CTest: skipped).
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include <tessera/version.h>

#include "alloc/caching_allocator.h"
#include "core/device_plugin.h"

namespace {

constexpr int kSkip = 77;
int failures = 0;

#define EXPECT(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                      \
    }                                                                  \
  } while (0)

size_t free_bytes() {
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) ++failures;
  return free_b;
}

}  // namespace

int main() {
  void* lib = dlopen(TSR_CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::printf("skipped: cannot load the CUDA plugin: %s\n", dlerror());
    return kSkip;
  }
  auto init = reinterpret_cast<tsr_device_plugin_init_fn>(dlsym(lib, TSR_CUDA_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) {
    std::printf("FAILED: the plugin lacks %s\n", TSR_CUDA_PLUGIN_INIT_SYMBOL);
    return 1;
  }
  char why[512] = "";
  tsr::DevicePluginExports exports{};
  const int rc = init(tsr::kDevicePluginAbi, TSR_VERSION_NUMBER, &exports, why, sizeof why);
  if (rc != 0) {
    std::printf("skipped: no usable GPU: %s\n", why);
    return kSkip;
  }
  tsr::alloc::register_caching_backend(exports.device);
  const tsr::Device cuda0{TSR_DEVICE_CUDA, 0};
  tsr::alloc::CachingAllocator& a = tsr::alloc::caching_allocator(cuda0);
  if (cudaSetDevice(0) != cudaSuccess) return 1;
  if (cudaFree(nullptr) != cudaSuccess) return 1;  // the context exists before the first delta

  constexpr size_t kMiB = size_t{1} << 20;
  const size_t free0 = free_bytes();
  void* p = a.allocate(64 * kMiB);
  const int64_t reserved = a.stats().all.reserved_bytes.current;
  EXPECT(reserved == static_cast<int64_t>(64 * kMiB));
  // The driver rounds to its own pages; at least what tessera reserved left.
  const size_t taken = free0 - free_bytes();
  EXPECT(taken >= 64 * kMiB && taken < 64 * kMiB + 4 * kMiB);

  a.free(p);
  void* q = a.allocate(64 * kMiB);
  EXPECT(q == p);  // served from the cache
  EXPECT(a.stats().all.num_device_alloc == 1);
  a.free(q);
  a.empty_cache();
  EXPECT(a.stats().all.reserved_bytes.current == 0);
  const size_t back = free_bytes();
  EXPECT(back + 4 * kMiB >= free0);  // the segment went back to the driver

  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
