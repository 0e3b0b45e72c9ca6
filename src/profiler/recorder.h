// The profiler's recorder, modelled on torch.profiler (RecordFunction +
// kineto's CPU events): while a session runs, every primitive run
// (Primitive::forward) and every backward node the engine applies is one
// Event: name, inputs' sizes/strides/memory formats, device, start and
// duration on the steady clock, bytes the device's caching allocator gained
// during it, thread. Off, the cost is one relaxed atomic load per primitive
// run (active()). Events from every thread go into the one session; nesting
// (a backward node running the ops of its formula) is tracked per thread, so
// each event knows the time and memory of its direct children (torch's
// "self" columns).
//
// CUDA activity (torch.profiler.ProfilerActivity.CUDA): an event on a CUDA
// device also records a pair of timing events on the thread's current
// stream around the op's launches, so the op's device time is what its
// kernels took on the stream (torch's cuda_time_total, measured with CUDA
// events instead of CUPTI's kernel records). The pairs are read at stop(),
// which waits for them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tessera/types.h>

#include "core/device.h"
#include "core/tensor.h"

namespace tsr::profiler {

struct Options {
  bool record_shapes = false;
  bool profile_memory = false;
  bool cuda = true;  // time ops on CUDA devices with device events
};

struct Event {
  std::string name;      // "aten::<op>" for a primitive, the node's name for backward
  bool backward = false;  // a backward node (autograd engine)
  bool user = false;      // a user range (record_function), torch's "user_annotation"
  uint64_t tid = 0;       // OS thread id (gettid)
  int64_t start_ns = 0;   // since the session started
  int64_t dur_ns = 0;
  int64_t child_ns = 0;   // durations of the direct children on the same thread
  int64_t mem_bytes = 0;  // net change of the device's allocated bytes (children included)
  int64_t child_mem = 0;  // the same for the direct children
  Device device{};
  // CUDA activity: the device time between the op's first and last launch
  // (-1: none measured), the same for its direct children, and its start
  // on the session's clock (the stream's origin event mapped to the host
  // time it was recorded at).
  int64_t device_ns = -1;
  int64_t child_device_ns = 0;
  int64_t device_start_ns = 0;
  int64_t stream_id = 0;
  uint64_t id = 0;         // unique in the session, from 1
  uint64_t parent_id = 0;  // the enclosing event on the same thread; 0: none
  // record_shapes only: one entry per input (an undefined input: empty
  // sizes and strides, format -1).
  std::vector<Shape> sizes, strides;
  std::vector<int> formats;  // tsr_memory_format of each input (suggest_memory_format)
};

struct Result {
  Options options;
  std::vector<Event> events;  // in order of completion
};

namespace detail {
extern std::atomic<bool> g_active;
struct Session;
}  // namespace detail

// True while a session runs: the one check on the hot path.
inline bool active() { return detail::g_active.load(std::memory_order_relaxed); }

// TSR_ERR_INVALID_ARGUMENT when a session already runs.
void start(const Options& o);
// Ends the session and returns its events; TSR_ERR_INVALID_ARGUMENT when
// none runs. Events still open on other threads at that moment are dropped.
std::shared_ptr<Result> stop();

// Records one event from construction to destruction. Construct only when
// active() (a scope made while no session runs records nothing).
class Scope {
 public:
  // user: a record_function range (torch's "user_annotation" category).
  Scope(std::string name, const std::vector<Tensor>& inputs, bool backward, bool user = false);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  std::shared_ptr<detail::Session> session_;
  Event event_;
  void* device_start_ = nullptr;  // CUDA activity: the timing event recorded first
  Scope* parent_ = nullptr;
  int64_t mem_before_ = 0;
  int64_t t0_ = 0;
};

}  // namespace tsr::profiler
