#include "distributed/flight_recorder.h"

#include <cstdio>

namespace tsr::distributed {

FlightRecorder::Entry* FlightRecorder::find(uint64_t seq) {
  Entry& e = ring_[seq % kEntries];
  return e.seq == seq ? &e : nullptr;
}

void FlightRecorder::queued(uint64_t seq, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  Entry& e = ring_[seq % kEntries];
  e = Entry{};
  e.seq = seq;
  e.what = what;
  ++count_;
}

void FlightRecorder::started(uint64_t seq) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Entry* e = find(seq)) {
    e->state = State::kStarted;
    e->started = std::chrono::steady_clock::now();
  }
}

void FlightRecorder::finished(uint64_t seq, bool ok) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Entry* e = find(seq)) {
    e->state = ok ? State::kCompleted : State::kFailed;
    e->finished = std::chrono::steady_clock::now();
  }
}

std::string FlightRecorder::dump() const {
  std::lock_guard<std::mutex> lock(mutex_);
  static const char* names[] = {"queued", "started", "completed", "failed"};
  std::string out;
  const auto now = std::chrono::steady_clock::now();
  const uint64_t first = count_ > kEntries ? count_ - kEntries : 0;
  for (uint64_t i = first; i < count_; ++i) {
    const Entry& e = ring_[(i + 1) % kEntries];  // sequence numbers start at 1
    if (e.seq == 0) continue;
    double ms = 0;
    if (e.state == State::kStarted)
      ms = std::chrono::duration<double, std::milli>(now - e.started).count();
    else if (e.state != State::kQueued)
      ms = std::chrono::duration<double, std::milli>(e.finished - e.started).count();
    char line[64];
    std::snprintf(line, sizeof line, "  #%llu %-9s %10.3f ms  ", (unsigned long long)e.seq, names[int(e.state)], ms);
    out += line + e.what + "\n";
  }
  return out;
}

}  // namespace tsr::distributed
