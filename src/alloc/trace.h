// Memory history: what torch.cuda.memory._record_memory_history keeps, a
// ring buffer of trace entries per device (TraceEntry in PyTorch's
// CUDACachingAllocator.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tsr::alloc {

struct TraceEntry {
  enum Action {
    ALLOC,           // a block was handed out
    FREE_REQUESTED,  // the caller freed it; streams may still use it
    FREE_COMPLETED,  // it is back in the free set
    SEGMENT_ALLOC,   // a segment was obtained from the device
    SEGMENT_FREE,    // a segment was returned to the device
    SEGMENT_MAP,     // pages of an expandable segment were mapped
    SEGMENT_UNMAP,   // and unmapped
    SNAPSHOT,        // a snapshot was taken (addr 0, size 0)
    OOM,             // out of memory; addr holds the device's free bytes
  };
  Action action;
  uintptr_t addr;
  size_t size;         // bytes
  int64_t stream;      // stream id on the allocator's device
  int64_t time_us;     // microseconds since the epoch (system clock)
  std::string label;   // the caller's label when recorded (op name), or ""
};

// PyTorch's action names: "alloc", "free_requested", ... "oom".
const char* action_name(TraceEntry::Action a);

// The newest max_entries entries, oldest first.
class TraceRing {
 public:
  void set_capacity(size_t max_entries);  // 0: recording off, entries dropped
  size_t capacity() const { return capacity_; }
  bool enabled() const { return capacity_ > 0; }
  void push(TraceEntry e);
  std::vector<TraceEntry> entries() const;

 private:
  std::vector<TraceEntry> ring_;
  size_t capacity_ = 0;
  size_t next_ = 0;  // where the next entry goes once ring_ is full
};

// The calling thread's label for trace entries: the caller's label
// (tsr_memory_set_trace_label) when set, else the op running on this thread
// ("mul", "matmul"), else "".
std::string trace_label();
void set_trace_label(std::string label);

// Names the op running on this thread while it lives (autograd::run puts
// one around every primitive's forward). op must be a static string; this
// costs two pointer stores, so it is always on.
class OpLabelScope {
 public:
  explicit OpLabelScope(const char* op);
  ~OpLabelScope();
  OpLabelScope(const OpLabelScope&) = delete;
  OpLabelScope& operator=(const OpLabelScope&) = delete;

 private:
  const char* saved_;
};

}  // namespace tsr::alloc
