// The CPU as a device backend. Memory comes from mmap; work on the CPU is
// synchronous (every op has finished when its call returns), so streams are
// just numbers, every stream is always idle and an event completes when it
// is recorded: the allocator's stream rules hold trivially and cost a
// branch. Registered with the caching allocator at load time.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

#include "alloc/caching_allocator.h"
#include "core/error.h"

namespace tsr::cpu {
namespace {

// An event is the time it was recorded: on the CPU, the moment all work
// queued before it had finished.
struct CpuEvent {
  bool timing;
  bool recorded = false;
  std::chrono::steady_clock::time_point stamp{};
};

CpuEvent* as_event(EventHandle e) { return static_cast<CpuEvent*>(e); }

// Huge pages where the kernel offers them transparently; the unit in which
// expandable segments grow.
constexpr size_t kPageGranularity = 2 << 20;

class CpuDevice final : public DeviceBackend {
 public:
  tsr_device_type type() const override { return TSR_DEVICE_CPU; }
  int32_t device_count() const override { return 1; }

  void* allocate_segment(int32_t, size_t bytes, std::string* why) noexcept override {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) return p;
    *why = std::generic_category().message(errno);
    return nullptr;
  }
  void release_segment(int32_t, void* ptr, size_t bytes) noexcept override { munmap(ptr, bytes); }

  DeviceMemoryInfo memory_info(int32_t) override {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    return {size_t(sysconf(_SC_AVPHYS_PAGES)) * page, size_t(sysconf(_SC_PHYS_PAGES)) * page};
  }

  // Expandable segments: address space reserved PROT_NONE and without swap
  // accounting, pages mapped over it in place (MAP_FIXED) and unmapped by
  // mapping PROT_NONE again, which returns their memory but keeps the range.
  size_t page_granularity(int32_t) const override { return kPageGranularity; }
  void* reserve_address_space(int32_t, size_t bytes) noexcept override {
    void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
  void release_address_space(int32_t, void* ptr, size_t bytes) noexcept override {
    munmap(ptr, bytes);
  }
  bool map_pages(int32_t, void* ptr, size_t bytes, std::string* why) noexcept override {
    void* p = mmap(ptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                   -1, 0);
    if (p != MAP_FAILED) return true;
    *why = std::generic_category().message(errno);
    return false;
  }
  void unmap_pages(int32_t, void* ptr, size_t bytes) noexcept override {
    mmap(ptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  }

  int64_t create_stream(int32_t) override { return next_stream_.fetch_add(1); }
  void destroy_stream(Stream) noexcept override {}
  void synchronize_stream(Stream) override {}
  bool query_stream(Stream) override { return true; }
  void synchronize_device(int32_t) override {}
  // Work on the CPU is synchronous: the copy is done when it returns.
  void copy_bytes(void* dst, const void* src, size_t bytes, CopyKind, Stream) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }

  EventHandle create_event(int32_t, bool timing) override { return new CpuEvent{timing}; }
  void destroy_event(EventHandle e) noexcept override { delete as_event(e); }
  void record_event(EventHandle e, Stream) override {
    CpuEvent* ev = as_event(e);
    ev->recorded = true;
    if (ev->timing) ev->stamp = std::chrono::steady_clock::now();
  }
  bool query_event(EventHandle) override { return true; }
  void synchronize_event(EventHandle) override {}
  double elapsed_ms(EventHandle start, EventHandle end) override {
    const CpuEvent* a = as_event(start);
    const CpuEvent* b = as_event(end);
    TSR_CHECK(a->timing && b->timing, TSR_ERR_INVALID_ARGUMENT,
              "elapsed_time: both events must be created with timing enabled");
    TSR_CHECK(a->recorded && b->recorded, TSR_ERR_INVALID_ARGUMENT,
              "elapsed_time: both events must be recorded first");
    return std::chrono::duration<double, std::milli>(b->stamp - a->stamp).count();
  }

 private:
  std::atomic<int64_t> next_stream_{1};  // 0 is the default stream
};

// Registered before main (and before dlopen of libtessera.so returns).
// Never destroyed: storages freed by other static destructors at exit
// still reach the allocator, which uses this backend.
const bool registered = [] {
  alloc::register_caching_backend(new CpuDevice());
  return true;
}();

}  // namespace
}  // namespace tsr::cpu
