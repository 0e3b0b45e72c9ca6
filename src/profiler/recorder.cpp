#include "profiler/recorder.h"

#include <chrono>
#include <mutex>

#include <sys/syscall.h>
#include <unistd.h>

#include "alloc/caching_allocator.h"
#include "core/error.h"
#include "core/layout.h"

namespace tsr::profiler {

namespace detail {

std::atomic<bool> g_active{false};

struct Session {
  Options options;
  int64_t origin_ns = 0;
  std::mutex mutex;  // guards events
  std::vector<Event> events;
};

}  // namespace detail

namespace {

using detail::Session;

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
  std::lock_guard<std::mutex> lock(s->mutex);
  r->events = std::move(s->events);
  s->events.clear();
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
  parent_ = t_current;
  t_current = this;
  t0_ = now_ns();
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
  try {
    std::lock_guard<std::mutex> lock(session_->mutex);
    session_->events.push_back(std::move(event_));
  } catch (...) {
    // Out of memory while profiling: the event is lost, the op is not.
  }
}

}  // namespace tsr::profiler
