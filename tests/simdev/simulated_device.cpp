#include "simdev/simulated_device.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <thread>

#include "core/error.h"

namespace tsr::simdev {

namespace {

using Clock = std::chrono::steady_clock;

size_t host_page() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}
uintptr_t page_floor(uintptr_t p) { return p & ~(host_page() - 1); }
uintptr_t page_ceil(uintptr_t p) { return page_floor(p + host_page() - 1); }

std::string key_name(int32_t index, int64_t id) { return str("stream ", id, " of device ", index); }

}  // namespace

// A stream: its queue and its worker. Guarded by SimulatedDevice::mu_.
struct SimulatedDevice::StreamState {
  int32_t index;
  int64_t id;
  std::deque<std::function<void()>> queue;
  bool held = false;
  bool stop = false;
  uint64_t enqueued = 0;  // work items queued since creation
  uint64_t finished = 0;  // and run to the end; the queue is FIFO, so item k
                          // has finished iff finished >= k
  std::thread worker;
};

// An event: the newest recording wins, as cudaEventRecord. Guarded by mu_.
struct SimulatedDevice::EventState {
  int32_t index;
  bool timing;
  uint64_t recorded = 0;   // recordings so far; 0: never recorded (complete)
  uint64_t reached = 0;    // highest recording whose marker has run
  StreamKey stream{0, 0};  // stream of the newest recording
  bool stamped = false;    // stamp belongs to the newest recording
  Clock::time_point stamp;
  bool complete() const { return reached >= recorded; }
};

SimulatedDevice::SimulatedDevice(int32_t device_count, size_t capacity_bytes)
    : device_count_(device_count),
      next_stream_id_(device_count, 0),
      capacity_(device_count, capacity_bytes),
      used_(device_count, 0) {
  TSR_CHECK(device_count > 0, TSR_ERR_INVALID_ARGUMENT, "simdev: device_count must be positive, got ",
            device_count);
  std::lock_guard<std::mutex> g(mu_);
  for (int32_t i = 0; i < device_count; ++i) {
    auto st = std::make_shared<StreamState>();
    st->index = i;
    st->id = kDefaultStreamId;
    start_worker_locked(st);
  }
}

SimulatedDevice::~SimulatedDevice() {
  std::vector<std::shared_ptr<StreamState>> all;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [key, st] : streams_) {
      st->stop = true;
      st->held = false;  // queued work runs to the end, so events complete
      all.push_back(st);
    }
    streams_.clear();
    cv_.notify_all();
  }
  for (auto& st : all) st->worker.join();
  // Whatever the allocator did not give back; the memory goes with us.
  for (auto& [base, r] : regions_) {
    size_t len = r.reservation ? r.bytes : page_ceil(r.bytes);
    munmap(reinterpret_cast<void*>(base), len);
  }
}

void SimulatedDevice::violation(std::string what) noexcept {
  std::fprintf(stderr, "simdev: %s\n", what.c_str());
  std::lock_guard<std::mutex> g(violations_mu_);
  violations_.push_back(std::move(what));
}

void SimulatedDevice::check_index(int32_t index) const {
  TSR_CHECK(index >= 0 && index < device_count_, TSR_ERR_INVALID_ARGUMENT, "simdev: device index ",
            index, " out of range (", device_count_, " devices)");
}

// ---- streams -----------------------------------------------------------------

void SimulatedDevice::start_worker_locked(const std::shared_ptr<StreamState>& st) {
  streams_[{st->index, st->id}] = st;
  // The worker keeps its own reference: destroy_stream drops the map's entry
  // before joining.
  st->worker = std::thread([this, keep = st] { worker_loop(keep.get()); });
}

void SimulatedDevice::worker_loop(StreamState* st) {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [&] { return (!st->queue.empty() && !st->held) || (st->stop && st->queue.empty()); });
    if (st->queue.empty()) return;  // stopping, nothing left
    std::function<void()> fn = std::move(st->queue.front());
    st->queue.pop_front();
    lk.unlock();
    try {
      fn();
    } catch (const std::exception& e) {
      violation(str("work item on ", key_name(st->index, st->id), " threw: ", e.what()));
    } catch (...) {
      violation(str("work item on ", key_name(st->index, st->id), " threw"));
    }
    fn = nullptr;  // its captures go before the item counts as finished
    lk.lock();
    ++st->finished;
    cv_.notify_all();
  }
}

std::shared_ptr<SimulatedDevice::StreamState> SimulatedDevice::find_stream_locked(Stream s) {
  TSR_CHECK(s.device.type == kSimDeviceType, TSR_ERR_INVALID_ARGUMENT, "simdev: stream of device ",
            device_name(s.device), " is not a simulated device's");
  check_index(s.device.index);
  auto it = streams_.find({s.device.index, s.id});
  TSR_CHECK(it != streams_.end(), TSR_ERR_INVALID_ARGUMENT, "simdev: no ",
            key_name(s.device.index, s.id));
  return it->second;
}

void SimulatedDevice::enqueue_locked(StreamState& st, std::function<void()> fn) {
  st.queue.push_back(std::move(fn));
  ++st.enqueued;
  cv_.notify_all();
}

int64_t SimulatedDevice::create_stream(int32_t index) {
  check_index(index);
  std::lock_guard<std::mutex> g(mu_);
  auto st = std::make_shared<StreamState>();
  st->index = index;
  st->id = ++next_stream_id_[index];
  start_worker_locked(st);
  count([](SimCounters& c) { ++c.streams_created; });
  return st->id;
}

void SimulatedDevice::destroy_stream(Stream s) noexcept {
  std::shared_ptr<StreamState> st;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = streams_.find({s.device.index, s.id});
    if (s.device.type != kSimDeviceType || it == streams_.end() || s.id == kDefaultStreamId) {
      violation(str("destroy_stream: no created ", key_name(s.device.index, s.id)));
      return;
    }
    st = it->second;
    streams_.erase(it);
    st->stop = true;
    st->held = false;
    cv_.notify_all();
  }
  st->worker.join();
  count([](SimCounters& c) { ++c.streams_destroyed; });
}

// Waits until st has finished what was queued when called; throws rather
// than wait on a held stream, which only the test could release.
void SimulatedDevice::wait_stream_locked(std::unique_lock<std::mutex>& lk,
                                         const std::shared_ptr<StreamState>& st) {
  const uint64_t target = st->enqueued;
  while (st->finished < target) {
    TSR_CHECK(!st->held, TSR_ERR_INTERNAL, "simdev: synchronize on ", key_name(st->index, st->id),
              " while it is held with ", target - st->finished,
              " work items left: it would never finish (release it first)");
    cv_.wait(lk);
  }
}

void SimulatedDevice::synchronize_stream(Stream s) {
  count([](SimCounters& c) { ++c.stream_synchronizes; });
  std::unique_lock<std::mutex> lk(mu_);
  wait_stream_locked(lk, find_stream_locked(s));
}

bool SimulatedDevice::query_stream(Stream s) {
  count([](SimCounters& c) { ++c.stream_queries; });
  std::lock_guard<std::mutex> g(mu_);
  auto st = find_stream_locked(s);
  return st->finished == st->enqueued;
}

void SimulatedDevice::synchronize_device(int32_t index) {
  check_index(index);
  count([](SimCounters& c) { ++c.device_synchronizes; });
  std::unique_lock<std::mutex> lk(mu_);
  std::vector<std::shared_ptr<StreamState>> mine;
  for (auto& [key, st] : streams_)
    if (key.first == index) mine.push_back(st);
  for (auto& st : mine) wait_stream_locked(lk, st);
}

void SimulatedDevice::launch(Stream s, std::function<void()> fn) {
  std::lock_guard<std::mutex> g(mu_);
  enqueue_locked(*find_stream_locked(s), std::move(fn));
}

void SimulatedDevice::hold(Stream s) {
  std::lock_guard<std::mutex> g(mu_);
  find_stream_locked(s)->held = true;
  cv_.notify_all();  // a synchronize waiting on s now throws
}

void SimulatedDevice::release(Stream s) {
  std::lock_guard<std::mutex> g(mu_);
  find_stream_locked(s)->held = false;
  cv_.notify_all();
}

bool SimulatedDevice::is_held(Stream s) {
  std::lock_guard<std::mutex> g(mu_);
  return find_stream_locked(s)->held;
}

uint64_t SimulatedDevice::pending(Stream s) {
  std::lock_guard<std::mutex> g(mu_);
  auto st = find_stream_locked(s);
  return st->enqueued - st->finished;
}

// ---- events ------------------------------------------------------------------

std::shared_ptr<SimulatedDevice::EventState> SimulatedDevice::find_event_locked(EventHandle e) {
  auto it = events_.find(e);
  TSR_CHECK(it != events_.end(), TSR_ERR_INVALID_ARGUMENT, "simdev: unknown event ", e);
  return it->second;
}

EventHandle SimulatedDevice::create_event(int32_t index, bool timing) {
  check_index(index);
  auto ev = std::make_shared<EventState>();
  ev->index = index;
  ev->timing = timing;
  std::lock_guard<std::mutex> g(mu_);
  EventHandle h = ev.get();
  events_.emplace(h, std::move(ev));
  count([](SimCounters& c) { ++c.events_created; });
  return h;
}

void SimulatedDevice::destroy_event(EventHandle e) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  // Markers still queued keep the state alive (as cudaEventDestroy of a
  // recorded event is legal); only the handle dies.
  if (events_.erase(e) == 0) {
    violation(str("destroy_event: unknown event ", e));
    return;
  }
  count([](SimCounters& c) { ++c.events_destroyed; });
}

void SimulatedDevice::record_event(EventHandle e, Stream s) {
  std::lock_guard<std::mutex> g(mu_);
  auto ev = find_event_locked(e);
  auto st = find_stream_locked(s);
  TSR_CHECK(ev->index == s.device.index, TSR_ERR_INVALID_ARGUMENT, "simdev: event of device ",
            ev->index, " recorded on ", key_name(s.device.index, s.id));
  const uint64_t seq = ++ev->recorded;
  ev->stream = {s.device.index, s.id};
  ev->stamped = false;
  count([](SimCounters& c) { ++c.events_recorded; });
  // The marker: runs when the worker reaches it, i.e. after all earlier work.
  enqueue_locked(*st, [this, ev, seq] {
    auto now = Clock::now();
    std::lock_guard<std::mutex> g2(mu_);
    ev->reached = std::max(ev->reached, seq);
    if (seq == ev->recorded && ev->timing) {
      ev->stamp = now;
      ev->stamped = true;
    }
    cv_.notify_all();
  });
}

void SimulatedDevice::stream_wait_event(Stream s, EventHandle e) {
  std::lock_guard<std::mutex> g(mu_);
  auto ev = find_event_locked(e);
  auto st = find_stream_locked(s);
  const uint64_t seq = ev->recorded;  // a later recording does not move the wait
  count([](SimCounters& c) { ++c.stream_waits; });
  enqueue_locked(*st, [this, ev, seq] {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return ev->reached >= seq; });
  });
}

bool SimulatedDevice::query_event(EventHandle e) {
  count([](SimCounters& c) { ++c.event_queries; });
  std::lock_guard<std::mutex> g(mu_);
  return find_event_locked(e)->complete();
}

void SimulatedDevice::synchronize_event(EventHandle e) {
  count([](SimCounters& c) { ++c.event_synchronizes; });
  std::unique_lock<std::mutex> lk(mu_);
  auto ev = find_event_locked(e);
  while (!ev->complete()) {
    auto it = streams_.find(ev->stream);
    // A destroyed stream was drained first, so its markers have run.
    if (it != streams_.end()) {
      TSR_CHECK(!it->second->held, TSR_ERR_INTERNAL, "simdev: synchronize on an event recorded on ",
                key_name(ev->stream.first, ev->stream.second),
                " while that stream is held: it would never complete (release it first)");
    }
    cv_.wait(lk);
  }
}

double SimulatedDevice::elapsed_ms(EventHandle start, EventHandle end) {
  std::lock_guard<std::mutex> g(mu_);
  auto a = find_event_locked(start);
  auto b = find_event_locked(end);
  TSR_CHECK(a->timing && b->timing, TSR_ERR_INVALID_ARGUMENT,
            "simdev: elapsed_ms needs two events created with timing");
  TSR_CHECK(a->recorded > 0 && b->recorded > 0 && a->complete() && b->complete() && a->stamped &&
                b->stamped,
            TSR_ERR_INVALID_ARGUMENT, "simdev: elapsed_ms needs two recorded, completed events");
  return std::chrono::duration<double, std::milli>(b->stamp - a->stamp).count();
}

// ---- memory ------------------------------------------------------------------

void* SimulatedDevice::allocate_segment(int32_t index, size_t bytes, std::string* why) noexcept {
  if (index < 0 || index >= device_count_ || bytes == 0 || bytes % 512 != 0) {
    violation(str("allocate_segment(", index, ", ", bytes, "): bad device or size (not a multiple of 512)"));
    *why = "simulated device: invalid allocate_segment arguments";
    return nullptr;
  }
  std::lock_guard<std::mutex> g(mem_mu_);
  if (bytes > capacity_[index] - std::min(used_[index], capacity_[index])) {
    count([](SimCounters& c) { ++c.segment_refusals; });
    *why = str("simulated device out of memory: tried to allocate ", bytes, " bytes on device ",
               index, " with ", capacity_[index] - std::min(used_[index], capacity_[index]), " of ",
               capacity_[index], " bytes free");
    return nullptr;
  }
  // PROT_NONE: host code reading "device" memory faults, as on a GPU.
  void* p = mmap(nullptr, page_ceil(bytes), device_memory_prot(), MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    *why = str("simulated device: mmap of ", bytes, " bytes failed: ", std::strerror(errno));
    return nullptr;
  }
  regions_[reinterpret_cast<uintptr_t>(p)] = Region{index, bytes, false, {}};
  used_[index] += bytes;
  count([](SimCounters& c) { ++c.segments_allocated; });
  return p;
}

void SimulatedDevice::release_segment(int32_t index, void* ptr, size_t bytes) noexcept {
  std::lock_guard<std::mutex> g(mem_mu_);
  auto it = regions_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == regions_.end() || it->second.reservation || it->second.index != index ||
      it->second.bytes != bytes) {
    violation(str("release_segment(", index, ", ", ptr, ", ", bytes,
                  "): not a segment allocated with that device and size"));
    return;
  }
  munmap(ptr, page_ceil(bytes));
  used_[index] -= bytes;
  regions_.erase(it);
  count([](SimCounters& c) { ++c.segments_released; });
}

DeviceMemoryInfo SimulatedDevice::memory_info(int32_t index) {
  check_index(index);
  std::lock_guard<std::mutex> g(mem_mu_);
  size_t cap = capacity_[index];
  return DeviceMemoryInfo{cap - std::min(used_[index], cap), cap};
}

void* SimulatedDevice::reserve_address_space(int32_t index, size_t bytes) noexcept {
  const size_t gran = kSimPageGranularity;
  if (index < 0 || index >= device_count_ || bytes == 0 || bytes % gran != 0) {
    violation(str("reserve_address_space(", index, ", ", bytes,
                  "): bad device or size (not a multiple of the page granularity)"));
    return nullptr;
  }
  // Address space only: MAP_NORESERVE and no capacity charge. Aligned to the
  // granularity, as cuMemAddressReserve's, by trimming an oversized mapping.
  void* raw = mmap(nullptr, bytes + gran, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  uintptr_t r = reinterpret_cast<uintptr_t>(raw);
  uintptr_t base = (r + gran - 1) & ~(gran - 1);
  if (base > r) munmap(raw, base - r);
  if (base + bytes < r + bytes + gran)
    munmap(reinterpret_cast<void*>(base + bytes), r + bytes + gran - (base + bytes));
  std::lock_guard<std::mutex> g(mem_mu_);
  regions_[base] = Region{index, bytes, true, std::vector<bool>(bytes / gran, false)};
  count([](SimCounters& c) { ++c.reservations; });
  return reinterpret_cast<void*>(base);
}

void SimulatedDevice::release_address_space(int32_t index, void* ptr, size_t bytes) noexcept {
  std::lock_guard<std::mutex> g(mem_mu_);
  auto it = regions_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == regions_.end() || !it->second.reservation || it->second.index != index ||
      it->second.bytes != bytes) {
    violation(str("release_address_space(", index, ", ", ptr, ", ", bytes,
                  "): not a reservation of that device and size"));
    return;
  }
  size_t still = std::count(it->second.mapped.begin(), it->second.mapped.end(), true);
  if (still > 0) {
    // cuMemAddressFree with mappings left is an error; take them back anyway.
    violation(str("release_address_space(", ptr, "): ", still, " pages still mapped"));
    used_[index] -= still * kSimPageGranularity;
  }
  munmap(ptr, bytes);
  regions_.erase(it);
  count([](SimCounters& c) { ++c.reservations_released; });
}

// The reservation of device `index` holding [p, p + bytes) as whole pages
// that are all mapped (or all unmapped, per `mapped`); nullptr otherwise.
// *first is the index of the first page.
SimulatedDevice::Region* SimulatedDevice::pages_locked(int32_t index, uintptr_t p, size_t bytes,
                                                       bool mapped, size_t* first) {
  const size_t gran = kSimPageGranularity;
  uintptr_t base = 0;
  Region* r = find_region_locked(p, &base);
  if (!r || !r->reservation || r->index != index || bytes == 0 || p % gran != 0 ||
      bytes % gran != 0 || p + bytes > base + r->bytes)
    return nullptr;
  *first = (p - base) / gran;
  for (size_t i = *first; i < *first + bytes / gran; ++i)
    if (r->mapped[i] != mapped) return nullptr;
  return r;
}

bool SimulatedDevice::map_pages(int32_t index, void* ptr, size_t bytes, std::string* why) noexcept {
  const size_t pages = bytes / kSimPageGranularity;
  std::lock_guard<std::mutex> g(mem_mu_);
  size_t first = 0;
  Region* r = pages_locked(index, reinterpret_cast<uintptr_t>(ptr), bytes, false, &first);
  if (!r) {
    violation(str("map_pages(", index, ", ", ptr, ", ", bytes,
                  "): not unmapped whole pages of a reservation of that device"));
    *why = "simulated device: invalid map_pages arguments";
    return false;
  }
  size_t free_bytes = capacity_[index] - std::min(used_[index], capacity_[index]);
  if (bytes > free_bytes) {
    count([](SimCounters& c) { ++c.map_refusals; });
    *why = str("simulated device out of memory: tried to map ", bytes, " bytes on device ", index,
               " with ", free_bytes, " of ", capacity_[index], " bytes free");
    return false;
  }
  if (host_access_) mprotect(ptr, bytes, PROT_READ | PROT_WRITE);
  for (size_t i = first; i < first + pages; ++i) r->mapped[i] = true;
  used_[index] += bytes;
  count([&](SimCounters& c) { c.pages_mapped += static_cast<int64_t>(pages); });
  return true;
}

void SimulatedDevice::unmap_pages(int32_t index, void* ptr, size_t bytes) noexcept {
  const size_t pages = bytes / kSimPageGranularity;
  std::lock_guard<std::mutex> g(mem_mu_);
  size_t first = 0;
  Region* r = pages_locked(index, reinterpret_cast<uintptr_t>(ptr), bytes, true, &first);
  if (!r) {
    violation(str("unmap_pages(", index, ", ", ptr, ", ", bytes,
                  "): not mapped whole pages of a reservation of that device"));
    return;
  }
  // The physical pages go: their contents are lost, as after cuMemRelease.
  madvise(ptr, bytes, MADV_DONTNEED);
  if (host_access_) mprotect(ptr, bytes, PROT_NONE);
  for (size_t i = first; i < first + pages; ++i) r->mapped[i] = false;
  used_[index] -= bytes;
  count([&](SimCounters& c) { c.pages_unmapped += static_cast<int64_t>(pages); });
}

SimulatedDevice::Region* SimulatedDevice::find_region_locked(uintptr_t p, uintptr_t* base) {
  auto it = regions_.upper_bound(p);
  if (it == regions_.begin()) return nullptr;
  --it;
  if (p >= it->first + it->second.bytes) return nullptr;
  *base = it->first;
  return &it->second;
}

// [p, p + n) lies in one segment, or in mapped pages of one reservation.
bool SimulatedDevice::accessible_locked(int32_t index, uintptr_t p, size_t n) {
  uintptr_t base = 0;
  Region* r = find_region_locked(p, &base);
  if (!r || r->index != index) return false;
  if (p + n > base + r->bytes) return false;
  if (!r->reservation) return true;
  const size_t gran = kSimPageGranularity;
  for (size_t i = (p - base) / gran; i < (p + n - 1 - base) / gran + 1; ++i)
    if (!r->mapped[i]) return false;
  return true;
}

// ---- copies ------------------------------------------------------------------

// fill_value >= 0: a memset of dst with it (src unused).
void SimulatedDevice::run_copy(int32_t index, void* dst, const void* src, size_t n, bool dst_dev,
                               bool src_dev, int fill_value) {
  std::lock_guard<std::mutex> g(mem_mu_);
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  // Memory freed between launch and run: a GPU would fault; say so.
  if ((dst_dev && !accessible_locked(index, d, n)) || (src_dev && !accessible_locked(index, s, n))) {
    violation(str("illegal memory access: copy of ", n, " bytes ", src, " -> ", dst,
                  " on device ", index, " touches memory that is not allocated"));
    return;
  }
  // Open exactly the pages touched, for this copy only.
  auto open = [this](uintptr_t p, size_t len, int prot) {
    if (!host_access_) mprotect(reinterpret_cast<void*>(page_floor(p)), page_ceil(p + len) - page_floor(p), prot);
  };
  if (dst_dev) open(d, n, PROT_READ | PROT_WRITE);
  if (src_dev) open(s, n, PROT_READ | PROT_WRITE);
  if (fill_value >= 0) std::memset(dst, fill_value, n);
  else std::memmove(dst, src, n);
  if (dst_dev) open(d, n, PROT_NONE);
  if (src_dev) open(s, n, PROT_NONE);
  count([](SimCounters& c) { ++c.copies; });
}

void SimulatedDevice::protect_device_locked(int32_t index, int prot) {
  if (host_access_) return;  // always open
  for (auto& [base, r] : regions_) {
    if (r.index != index) continue;
    if (!r.reservation) {
      mprotect(reinterpret_cast<void*>(base), r.bytes, prot);
      continue;
    }
    for (size_t i = 0; i < r.mapped.size(); ++i)
      if (r.mapped[i])
        mprotect(reinterpret_cast<void*>(base + i * kSimPageGranularity), kSimPageGranularity, prot);
  }
}

void SimulatedDevice::launch_with_device_access(Stream s, std::function<void()> fn) {
  const int32_t index = s.device.index;
  launch(s, [this, index, fn = std::move(fn)] {
    std::lock_guard<std::mutex> g(mem_mu_);
    protect_device_locked(index, PROT_READ | PROT_WRITE);
    try {
      fn();
    } catch (const std::exception& e) {
      violation(str("kernel on device ", index, " threw: ", e.what()));
    }
    protect_device_locked(index, PROT_NONE);
  });
}

void SimulatedDevice::enqueue_copy(void* dst, const void* src, size_t n, bool dst_dev,
                                   bool src_dev, Stream s, int fill_value) {
  const int32_t index = s.device.index;
  if (n > 0) {
    std::lock_guard<std::mutex> g(mem_mu_);
    check_index(index);
    TSR_CHECK(!dst_dev || accessible_locked(index, reinterpret_cast<uintptr_t>(dst), n),
              TSR_ERR_INVALID_ARGUMENT, "simdev: destination [", dst, ", +", n,
              ") is not allocated memory of device ", index);
    TSR_CHECK(!src_dev || accessible_locked(index, reinterpret_cast<uintptr_t>(src), n),
              TSR_ERR_INVALID_ARGUMENT, "simdev: source [", src, ", +", n,
              ") is not allocated memory of device ", index);
  }
  launch(s, [=, this] {
    if (n > 0) run_copy(index, dst, src, n, dst_dev, src_dev, fill_value);
  });
}

void SimulatedDevice::copy_bytes(void* dst, const void* src, size_t bytes, CopyKind kind,
                                 Stream s) {
  switch (kind) {
    case CopyKind::HostToDevice: return copy_host_to_device(dst, src, bytes, s);
    case CopyKind::DeviceToHost: return copy_device_to_host(dst, src, bytes, s);
    case CopyKind::DeviceToDevice: return copy_device_to_device(dst, src, bytes, s);
  }
}

void SimulatedDevice::copy_host_to_device(void* dst, const void* src, size_t n, Stream s) {
  enqueue_copy(dst, src, n, true, false, s, -1);
}
void SimulatedDevice::copy_device_to_host(void* dst, const void* src, size_t n, Stream s) {
  enqueue_copy(dst, src, n, false, true, s, -1);
}
void SimulatedDevice::copy_device_to_device(void* dst, const void* src, size_t n, Stream s) {
  enqueue_copy(dst, src, n, true, true, s, -1);
}
void SimulatedDevice::fill(void* dst, uint8_t value, size_t n, Stream s) {
  enqueue_copy(dst, nullptr, n, true, false, s, value);
}

// ---- test controls -----------------------------------------------------------

void SimulatedDevice::set_capacity(int32_t index, size_t bytes) {
  check_index(index);
  std::lock_guard<std::mutex> g(mem_mu_);
  capacity_[index] = bytes;
}

size_t SimulatedDevice::capacity(int32_t index) {
  check_index(index);
  std::lock_guard<std::mutex> g(mem_mu_);
  return capacity_[index];
}

size_t SimulatedDevice::used_bytes(int32_t index) {
  check_index(index);
  std::lock_guard<std::mutex> g(mem_mu_);
  return used_[index];
}

bool SimulatedDevice::is_device_memory(int32_t index, const void* p, size_t n) {
  std::lock_guard<std::mutex> g(mem_mu_);
  return accessible_locked(index, reinterpret_cast<uintptr_t>(p), std::max<size_t>(n, 1));
}

SimCounters SimulatedDevice::counters() {
  std::lock_guard<std::mutex> g(counters_mu_);
  return counters_;
}

void SimulatedDevice::reset_counters() {
  std::lock_guard<std::mutex> g(counters_mu_);
  counters_ = SimCounters{};
}

size_t SimulatedDevice::live_events() {
  std::lock_guard<std::mutex> g(mu_);
  return events_.size();
}

size_t SimulatedDevice::live_segments(int32_t index) {
  std::lock_guard<std::mutex> g(mem_mu_);
  return std::count_if(regions_.begin(), regions_.end(), [&](auto& kv) {
    return kv.second.index == index && !kv.second.reservation;
  });
}

std::vector<std::string> SimulatedDevice::violations() {
  std::lock_guard<std::mutex> g(violations_mu_);
  return violations_;
}

}  // namespace tsr::simdev
