// The last collectives of a group (torch's NCCL flight recorder, for every
// backend here): what each was, whether it finished, how long it took.
// Printed to stderr when a collective times out, so a hang shows what
// every rank was doing.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace tsr::distributed {

class FlightRecorder {
 public:
  static constexpr size_t kEntries = 16;
  enum class State { kQueued, kStarted, kCompleted, kFailed };

  void queued(uint64_t seq, const std::string& what);
  void started(uint64_t seq);
  void finished(uint64_t seq, bool ok);
  // One line per entry, oldest first.
  std::string dump() const;

 private:
  struct Entry {
    uint64_t seq = 0;
    std::string what;
    State state = State::kQueued;
    std::chrono::steady_clock::time_point started, finished;
  };
  Entry* find(uint64_t seq);
  mutable std::mutex mutex_;
  std::array<Entry, kEntries> ring_{};
  uint64_t count_ = 0;
};

}  // namespace tsr::distributed
