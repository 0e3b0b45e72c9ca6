// The simulated device: a DeviceBackend for tests, modelled on PyTorch's
// OpenReg test accelerator (torch_openreg/third_party/openreg). It makes
// every stream, event, OOM and fragmentation path of the caching allocator
// deterministic on a machine without a GPU:
//
// - Device memory is host memory mapped PROT_NONE. Host code that touches
//   it crashes (SIGSEGV), as it would touching GPU memory; only the copy and
//   fill calls below, run by a stream's worker, open the pages they touch
//   for the duration of the copy.
// - Each device has a capacity in bytes; segments and mapped pages count
//   against it, so out-of-memory happens exactly when a test says.
// - Each stream (the default stream 0 of every device and each created one)
//   is a worker thread running a FIFO queue of work items. hold(s) stops
//   the worker before its next item and release(s) lets it go on, so the
//   test decides when work, and the events recorded behind it, complete.
// - Counters (segments, pages, event queries and synchronizes, ...) let a
//   test check what the allocator asked of the device.
//
// Misuse the backend cannot report through its interface (a noexcept call
// with a pointer it never handed out, a work item that throws) is written
// to stderr and kept in violations(), so a test can fail instead of the
// whole binary aborting.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include <sys/mman.h>
#include <vector>

#include "core/device_backend.h"

namespace tsr::simdev {

// DLPack's kDLExtDev: a device type number the public enum does not use.
constexpr tsr_device_type kSimDeviceType = static_cast<tsr_device_type>(12);
// Expandable segments map pages of this size (CUDA's 2 MiB granularity).
constexpr size_t kSimPageGranularity = size_t{2} << 20;

// What the device was asked to do since construction or reset_counters().
struct SimCounters {
  int64_t segments_allocated = 0;
  int64_t segments_released = 0;
  int64_t segment_refusals = 0;  // allocate_segment over capacity
  int64_t reservations = 0;
  int64_t reservations_released = 0;
  int64_t pages_mapped = 0;      // in kSimPageGranularity pages
  int64_t pages_unmapped = 0;
  int64_t map_refusals = 0;      // map_pages over capacity
  int64_t events_created = 0;
  int64_t events_destroyed = 0;
  int64_t events_recorded = 0;
  int64_t event_queries = 0;
  int64_t event_synchronizes = 0;
  int64_t streams_created = 0;
  int64_t streams_destroyed = 0;
  int64_t stream_queries = 0;
  int64_t stream_synchronizes = 0;
  int64_t device_synchronizes = 0;
  int64_t stream_waits = 0;      // stream_wait_event calls
  int64_t copies = 0;            // copy and fill work items run
};

class SimulatedDevice final : public DeviceBackend {
 public:
  // capacity_bytes per device.
  SimulatedDevice(int32_t device_count, size_t capacity_bytes);
  // Lets every queued work item run (holds are dropped), joins the workers
  // and unmaps whatever memory is still allocated.
  ~SimulatedDevice() override;
  SimulatedDevice(const SimulatedDevice&) = delete;
  SimulatedDevice& operator=(const SimulatedDevice&) = delete;

  // Device memory stays readable and writable from the host: no mprotect
  // around every launch and copy (their cost grows with the memory in use:
  // about 0.3 s of system time per Fashion CNN training step), so host
  // reads of device memory are no longer caught. For long training runs
  // only (TSR_DOUBLE_HOST_ACCESS=1 in the CUDA runtime double); call before
  // the first allocation.
  void allow_host_access() { host_access_ = true; }

  Device device(int32_t index) const { return Device{kSimDeviceType, index}; }
  Stream stream(int32_t index, int64_t id) const { return Stream{device(index), id}; }

  // ---- DeviceBackend -------------------------------------------------------
  tsr_device_type type() const override { return kSimDeviceType; }
  int32_t device_count() const override { return device_count_; }

  void* allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept override;
  void release_segment(int32_t index, void* ptr, size_t bytes) noexcept override;
  DeviceMemoryInfo memory_info(int32_t index) override;

  size_t page_granularity(int32_t index) const override { return kSimPageGranularity; }
  void* reserve_address_space(int32_t index, size_t bytes) noexcept override;
  void release_address_space(int32_t index, void* ptr, size_t bytes) noexcept override;
  bool map_pages(int32_t index, void* ptr, size_t bytes, std::string* why) noexcept override;
  void unmap_pages(int32_t index, void* ptr, size_t bytes) noexcept override;

  int64_t create_stream(int32_t index) override;
  // Queued work still runs (a hold is dropped), as cudaStreamDestroy lets
  // it finish; returns once it has.
  void destroy_stream(Stream s) noexcept override;
  // Throws TSR_ERR_INTERNAL when s is held with work left before the point
  // waited for: it would never finish, so that is a bug of the test.
  void synchronize_stream(Stream s) override;
  bool query_stream(Stream s) override;
  void synchronize_device(int32_t index) override;

  EventHandle create_event(int32_t index, bool timing) override;
  void destroy_event(EventHandle e) noexcept override;
  void record_event(EventHandle e, Stream s) override;
  bool query_event(EventHandle e) override;
  // Throws TSR_ERR_INTERNAL when the stream the event waits on is held.
  void synchronize_event(EventHandle e) override;
  double elapsed_ms(EventHandle start, EventHandle end) override;
  // Queues on s a work item that waits until e's newest recording at the
  // time of the call has been reached (cudaStreamWaitEvent): s's later work
  // waits, the host does not. A held stream of e holds s too.
  void stream_wait_event(Stream s, EventHandle e) override;
  // The copy calls below, by kind.
  void copy_bytes(void* dst, const void* src, size_t bytes, CopyKind kind, Stream s) override;

  // ---- work on streams (the simulated kernels) ------------------------------
  // Queues fn on s; it runs on s's worker after everything queued before.
  void launch(Stream s, std::function<void()> fn);
  // Asynchronous copies and fill (cudaMemcpyAsync, cudaMemsetAsync): the
  // host buffer must stay valid until the stream gets there. Throw
  // TSR_ERR_INVALID_ARGUMENT when the device range is not allocated memory.
  void copy_host_to_device(void* dst, const void* src, size_t n, Stream s);
  void copy_device_to_host(void* dst, const void* src, size_t n, Stream s);
  void copy_device_to_device(void* dst, const void* src, size_t n, Stream s);
  void fill(void* dst, uint8_t value, size_t n, Stream s);
  // Queues fn on s; while it runs every allocated page of s's device (whole
  // segments, mapped pages of reservations) is open for reading and
  // writing, so an emulated kernel can touch device memory; everything
  // else, and those pages before and after, stays PROT_NONE. A throwing fn
  // is a violation.
  void launch_with_device_access(Stream s, std::function<void()> fn);

  // ---- kernels ---------------------------------------------------------------
  // What kernels() returns (nullptr, the default: no kernels, every op on
  // the device fails with TSR_ERR_UNSUPPORTED). Not owned; must outlive
  // its use.
  void set_kernels(DeviceKernels* kernels) { kernels_ = kernels; }
  DeviceKernels* kernels() override { return kernels_; }

  // ---- test controls --------------------------------------------------------
  // Stops s's worker before its next work item (the one running finishes).
  void hold(Stream s);
  void release(Stream s);
  bool is_held(Stream s);
  // Work items queued on s and not finished.
  uint64_t pending(Stream s);

  void set_capacity(int32_t index, size_t bytes);
  size_t capacity(int32_t index);
  // Bytes of segments plus mapped pages.
  size_t used_bytes(int32_t index);
  // True when [p, p + n) is allocated (segment or mapped pages) on index.
  bool is_device_memory(int32_t index, const void* p, size_t n);

  SimCounters counters();
  void reset_counters();
  // Live objects, for leak checks at the end of a test.
  size_t live_events();
  size_t live_segments(int32_t index);
  std::vector<std::string> violations();

 private:
  struct StreamState;
  struct EventState;
  // A segment, or an address-space reservation with its mapped pages.
  struct Region {
    int32_t index;
    size_t bytes;
    bool reservation;
    std::vector<bool> mapped;  // per kSimPageGranularity page; reservations only
  };
  using StreamKey = std::pair<int32_t, int64_t>;

  void check_index(int32_t index) const;
  std::shared_ptr<StreamState> find_stream_locked(Stream s);
  std::shared_ptr<EventState> find_event_locked(EventHandle e);
  void start_worker_locked(const std::shared_ptr<StreamState>& st);
  void worker_loop(StreamState* st);
  void enqueue_locked(StreamState& st, std::function<void()> fn);
  void wait_stream_locked(std::unique_lock<std::mutex>& lk, const std::shared_ptr<StreamState>& st);

  // The region holding p and its base address; nullptr when none.
  Region* find_region_locked(uintptr_t p, uintptr_t* base);
  Region* pages_locked(int32_t index, uintptr_t p, size_t bytes, bool mapped, size_t* first);
  bool accessible_locked(int32_t index, uintptr_t p, size_t n);
  // Opens (prot) every allocated page of device index; mem_mu_ held.
  void protect_device_locked(int32_t index, int prot);
  int device_memory_prot() const { return host_access_ ? PROT_READ | PROT_WRITE : PROT_NONE; }
  bool host_access_ = false;
  void enqueue_copy(void* dst, const void* src, size_t n, bool dst_dev, bool src_dev, Stream s,
                    int fill_value);
  void run_copy(int32_t index, void* dst, const void* src, size_t n, bool dst_dev, bool src_dev,
                int fill_value);

  template <typename Fn>
  void count(Fn fn) {
    std::lock_guard<std::mutex> g(counters_mu_);
    fn(counters_);
  }
  void violation(std::string what) noexcept;

  const int32_t device_count_;
  DeviceKernels* kernels_ = nullptr;

  // Streams and events; one condition variable for every state change.
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<StreamKey, std::shared_ptr<StreamState>> streams_;
  std::vector<int64_t> next_stream_id_;
  std::unordered_map<EventHandle, std::shared_ptr<EventState>> events_;

  // Memory: held across a whole copy, so two streams opening the same page
  // cannot close it under each other.
  std::mutex mem_mu_;
  std::map<uintptr_t, Region> regions_;  // by base address
  std::vector<size_t> capacity_;
  std::vector<size_t> used_;

  std::mutex counters_mu_;
  SimCounters counters_;
  std::mutex violations_mu_;
  std::vector<std::string> violations_;
};

}  // namespace tsr::simdev
