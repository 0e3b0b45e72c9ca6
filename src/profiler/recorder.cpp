#include "profiler/recorder.h"

#include <chrono>
#include <map>
#include <mutex>
#include <unordered_map>

#include <sys/syscall.h>
#include <unistd.h>

#include "alloc/caching_allocator.h"
#include "core/device_allocator.h"
#include "core/device_backend.h"
#include "core/error.h"
#include "core/layout.h"
#include "core/stream.h"

namespace tsr::profiler {

namespace detail {

std::atomic<bool> g_active{false};

// A CUDA-activity event's pair of device events, read at stop().
struct DeviceTiming {
  uint64_t id;  // the Event's
  Stream stream;
  EventHandle start, end;
};

// The first device event recorded on a stream in the session, and the host
// time it was recorded at: the device times' origin on the session clock.
struct StreamOrigin {
  EventHandle event;
  int64_t host_ns;
};

struct Session {
  Options options;
  int64_t origin_ns = 0;
  std::atomic<uint64_t> next_id{1};
  std::mutex mutex;  // guards what follows
  std::vector<Event> events;
  std::vector<DeviceTiming> timings;
  std::map<Stream, StreamOrigin> origins;

  ~Session() {
    // Scopes that ended after stop() left their device events here.
    DeviceBackend* b = find_backend(TSR_DEVICE_CUDA);
    if (!b) return;
    for (const DeviceTiming& t : timings) {
      b->destroy_event(t.start);
      b->destroy_event(t.end);
    }
    for (const auto& [stream, origin] : origins) b->destroy_event(origin.event);
  }
};

}  // namespace detail

namespace {

using detail::DeviceTiming;
using detail::Session;
using detail::StreamOrigin;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t thread_id() {
  thread_local const uint64_t id = uint64_t(::syscall(SYS_gettid));
  return id;
}

// The running session; start/stop swap it under the mutex.
std::mutex g_mutex;
std::shared_ptr<Session> g_session;

// The innermost open scope of this thread.
thread_local Scope* t_current = nullptr;

std::shared_ptr<Session> current_session() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_session;
}

Device device_of(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined()) return t.device();
  return kCpu;
}

// Bytes the device's caching allocator has handed out now; 0 where the
// device has none (never fails: called in a destructor).
int64_t allocated_bytes(Device d) noexcept {
  try {
    return alloc::caching_allocator(d).stats().all.allocated_bytes.current;
  } catch (...) {
    return 0;
  }
}

// The device time of every CUDA-activity event (waiting for its stream to
// reach it), its start on the session clock, and each parent's children's
// device time; then the device events are destroyed.
void read_device_times(Result& r, std::vector<DeviceTiming>& timings, std::map<Stream, StreamOrigin>& origins) {
  DeviceBackend* b = find_backend(TSR_DEVICE_CUDA);
  if (!b) return;
  std::unordered_map<uint64_t, size_t> index;
  for (size_t i = 0; i < r.events.size(); ++i) index.emplace(r.events[i].id, i);
  for (const DeviceTiming& t : timings) {
    auto it = index.find(t.id);
    try {
      if (it != index.end()) {
        Event& e = r.events[it->second];
        b->synchronize_event(t.end);
        e.device_ns = int64_t(b->elapsed_ms(t.start, t.end) * 1e6);
        const StreamOrigin& o = origins.at(t.stream);
        e.device_start_ns = o.host_ns + int64_t(b->elapsed_ms(o.event, t.start) * 1e6);
      }
    } catch (const Error&) {
      // The device failed meanwhile: this event keeps no device time.
    }
    b->destroy_event(t.start);
    b->destroy_event(t.end);
  }
  timings.clear();
  for (const auto& [stream, origin] : origins) b->destroy_event(origin.event);
  origins.clear();
  for (const Event& e : r.events) {
    if (e.device_ns < 0 || e.parent_id == 0) continue;
    auto parent = index.find(e.parent_id);
    if (parent != index.end()) r.events[parent->second].child_device_ns += e.device_ns;
  }
}

// Records a timing event on stream for a CUDA-activity scope (and the
// stream's origin event the first time); nullptr when the device cannot.
EventHandle record_device_start(Session& session, Stream stream, int64_t host_ns) noexcept {
  DeviceBackend* b = find_backend(TSR_DEVICE_CUDA);
  if (!b) return nullptr;
  EventHandle e = nullptr;
  try {
    {
      std::lock_guard<std::mutex> lock(session.mutex);
      if (!session.origins.count(stream)) {
        EventHandle origin = b->create_event(stream.device.index, true);
        try {
          b->record_event(origin, stream);
        } catch (...) {
          b->destroy_event(origin);
          throw;
        }
        session.origins.emplace(stream, StreamOrigin{origin, host_ns - session.origin_ns});
      }
    }
    e = b->create_event(stream.device.index, true);
    b->record_event(e, stream);
    return e;
  } catch (...) {
    if (e) b->destroy_event(e);
    return nullptr;
  }
}

}  // namespace

void start(const Options& o) {
  std::lock_guard<std::mutex> lock(g_mutex);
  TSR_CHECK(!g_session, TSR_ERR_INVALID_ARGUMENT,
            "the profiler is already running (tsr_profiler_stop ends the running session first)");
  auto s = std::make_shared<Session>();
  s->options = o;
  s->origin_ns = now_ns();
  g_session = std::move(s);
  detail::g_active.store(true, std::memory_order_relaxed);
}

std::shared_ptr<Result> stop() {
  std::shared_ptr<Session> s;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    TSR_CHECK(g_session, TSR_ERR_INVALID_ARGUMENT, "the profiler is not running (call tsr_profiler_start first)");
    s = std::move(g_session);
    g_session.reset();
    detail::g_active.store(false, std::memory_order_relaxed);
  }
  auto r = std::make_shared<Result>();
  r->options = s->options;
  std::vector<DeviceTiming> timings;
  std::map<Stream, StreamOrigin> origins;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    r->events = std::move(s->events);
    s->events.clear();
    timings.swap(s->timings);
    origins.swap(s->origins);
  }
  read_device_times(*r, timings, origins);
  return r;
}

Scope::Scope(std::string name, const std::vector<Tensor>& inputs, bool backward, bool user)
    : session_(current_session()) {
  if (!session_) return;
  event_.name = std::move(name);
  event_.backward = backward;
  event_.user = user;
  event_.tid = thread_id();
  event_.device = device_of(inputs);
  if (session_->options.record_shapes) {
    for (const Tensor& t : inputs) {
      if (t.defined()) {
        event_.sizes.push_back(t.sizes());
        event_.strides.push_back(t.strides());
        event_.formats.push_back(int(suggest_memory_format(t.sizes(), t.strides())));
      } else {
        event_.sizes.emplace_back();
        event_.strides.emplace_back();
        event_.formats.push_back(-1);
      }
    }
  }
  if (session_->options.profile_memory) mem_before_ = allocated_bytes(event_.device);
  event_.id = session_->next_id.fetch_add(1, std::memory_order_relaxed);
  parent_ = t_current;
  if (parent_ && parent_->session_ == session_) event_.parent_id = parent_->event_.id;
  t_current = this;
  t0_ = now_ns();
  if (session_->options.cuda && event_.device.type == TSR_DEVICE_CUDA) {
    Stream stream{event_.device, kDefaultStreamId};
    try {
      stream = current_stream(event_.device);
    } catch (...) {
      return;
    }
    event_.stream_id = stream.id;
    device_start_ = record_device_start(*session_, stream, t0_);
  }
}

Scope::~Scope() {
  if (!session_) return;
  const int64_t t1 = now_ns();
  t_current = parent_;
  event_.start_ns = t0_ - session_->origin_ns;
  event_.dur_ns = t1 - t0_;
  if (session_->options.profile_memory) event_.mem_bytes = allocated_bytes(event_.device) - mem_before_;
  if (parent_ && parent_->session_ == session_) {
    parent_->event_.child_ns += event_.dur_ns;
    parent_->event_.child_mem += event_.mem_bytes;
  }
  DeviceTiming timing{event_.id, Stream{event_.device, event_.stream_id}, device_start_, nullptr};
  DeviceBackend* b = device_start_ ? find_backend(TSR_DEVICE_CUDA) : nullptr;
  if (b) {
    try {
      timing.end = b->create_event(event_.device.index, true);
      b->record_event(timing.end, timing.stream);
    } catch (...) {
      if (timing.end) b->destroy_event(timing.end);
      timing.end = nullptr;
    }
  }
  try {
    std::lock_guard<std::mutex> lock(session_->mutex);
    session_->events.push_back(std::move(event_));
    if (timing.end) {
      session_->timings.push_back(timing);
      return;
    }
  } catch (...) {
    // Out of memory while profiling: the event is lost, the op is not.
  }
  if (b) {
    b->destroy_event(timing.start);
    if (timing.end) b->destroy_event(timing.end);
  }
}

}  // namespace tsr::profiler
