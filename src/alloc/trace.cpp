// Memory history (torch.cuda.memory._record_memory_history): the ring of
// trace entries and the thread's label. The ring is not synchronised: its
// allocator holds its own mutex around every call.
#include "alloc/trace.h"

#include <algorithm>
#include <utility>

namespace tsr::alloc {

const char* action_name(TraceEntry::Action a) {
  switch (a) {
    case TraceEntry::ALLOC: return "alloc";
    case TraceEntry::FREE_REQUESTED: return "free_requested";
    case TraceEntry::FREE_COMPLETED: return "free_completed";
    case TraceEntry::SEGMENT_ALLOC: return "segment_alloc";
    case TraceEntry::SEGMENT_FREE: return "segment_free";
    case TraceEntry::SEGMENT_MAP: return "segment_map";
    case TraceEntry::SEGMENT_UNMAP: return "segment_unmap";
    case TraceEntry::SNAPSHOT: return "snapshot";
    case TraceEntry::OOM: return "oom";
  }
  return "unknown";
}

// Layout: while ring_ is shorter than capacity_ it is in order and next_ is
// 0; once full, ring_[next_] is the oldest entry and is overwritten next.
void TraceRing::push(TraceEntry e) {
  if (capacity_ == 0) return;
  if (ring_.size() < capacity_) {
    ring_.push_back(std::move(e));
    return;
  }
  ring_[next_] = std::move(e);
  next_ = (next_ + 1) % capacity_;
}

std::vector<TraceEntry> TraceRing::entries() const {
  std::vector<TraceEntry> out;
  out.reserve(ring_.size());
  out.insert(out.end(), ring_.begin() + static_cast<ptrdiff_t>(next_), ring_.end());
  out.insert(out.end(), ring_.begin(), ring_.begin() + static_cast<ptrdiff_t>(next_));
  return out;
}

void TraceRing::set_capacity(size_t max_entries) {
  if (max_entries == capacity_) return;
  // Keep the newest entries that fit, oldest first, so next_ starts at 0.
  std::vector<TraceEntry> kept = entries();
  if (kept.size() > max_entries)
    kept.erase(kept.begin(), kept.end() - static_cast<ptrdiff_t>(max_entries));
  ring_ = std::move(kept);
  // A disabled ring holds no memory; a smaller one gives back its excess.
  ring_.shrink_to_fit();
  next_ = 0;
  capacity_ = max_entries;
}

namespace {
thread_local std::string t_label;
}  // namespace

thread_local const char* t_op = nullptr;

std::string trace_label() { return !t_label.empty() ? t_label : t_op ? t_op : ""; }
void set_trace_label(std::string label) { t_label = std::move(label); }

OpLabelScope::OpLabelScope(const char* op) : saved_(t_op) { t_op = op; }
OpLabelScope::~OpLabelScope() { t_op = saved_; }

}  // namespace tsr::alloc
