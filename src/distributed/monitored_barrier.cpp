// torch's monitored_barrier (ProcessGroupGloo::monitoredBarrier) through the
// group's store instead of send/recv: each barrier n has keys
// "monitored_barrier/<n>/arrived/<rank>" (set by every rank but 0) and
// ".../verdict" (set by rank 0: empty when every rank came in time, else
// the error), and ".../read" counting the ranks that read the verdict.
// Rank 0 polls the arrivals up to the barrier's timeout, so it can name
// every missing rank; the others poll the verdict up to the group's
// timeout. Only non-blocking check() calls are made while waiting,
// so the store's client is never held for long (a failing collective's
// report may need it meanwhile). The barrier does not touch the engine, so
// a late rank fails alone and the group stays usable.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "distributed/process_group.h"

namespace tsr::distributed {
namespace {

using Clock = std::chrono::steady_clock;

// Sleeps a little longer each time (1 ms up to 20 ms): quick when ranks are
// close together, light on the store when one is late.
void back_off(int& round) {
  std::this_thread::sleep_for(Millis(std::min(20, 1 << std::min(round, 5))));
  ++round;
}

std::string joined(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

}  // namespace

void ProcessGroup::monitored_barrier(Millis timeout, bool wait_all_ranks) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.empty()) throw Error(TSR_ERR_DISTRIBUTED, failure_);
  }
  if (size_ == 1) return;
  // torch's monitored_barrier is Gloo's only; it names late ranks through
  // the store, which an MPI group has none of.
  TSR_CHECK(!mpi_, TSR_ERR_UNSUPPORTED, "monitored_barrier is only supported on Gloo process groups (this one is MPI)");
  const std::string prefix = str("monitored_barrier/", ++monitored_barriers_, "/");
  const std::string verdict_key = prefix + "verdict";
  if (rank_ != 0) {
    const std::string reached = str("Rank ", rank_, " successfully reached monitoredBarrier, but ");
    std::vector<char> verdict;
    try {
      store_->set(str(prefix, "arrived/", rank_), {});
      const auto deadline = Clock::now() + timeout_;
      for (int round = 0; !store_->check({verdict_key}); back_off(round))
        if (Clock::now() >= deadline)
          throw Error(TSR_ERR_DISTRIBUTED, str(reached, "rank 0 gave no verdict within the group's timeout (",
                                               timeout_.count(), " ms): it died, hung, or did not call it"));
      verdict = store_->get(verdict_key);
      store_->add(prefix + "read", 1);  // rank 0 may go (and take the store down) once all have read it
    } catch (const Error& e) {
      if (e.status() != TSR_ERR_DISTRIBUTED || std::string(e.what()).rfind(reached, 0) == 0) throw;
      throw Error(TSR_ERR_DISTRIBUTED, str(reached, "its store failed: ", e.what()));
    }
    if (!verdict.empty())
      throw Error(TSR_ERR_DISTRIBUTED, str(reached, "rank 0 reported: ", std::string(verdict.begin(), verdict.end())));
    return;
  }
  std::vector<int> missing;
  for (int r = 1; r < size_; ++r) missing.push_back(r);
  const auto deadline = Clock::now() + timeout;
  for (int round = 0;; back_off(round)) {
    std::vector<int> still;
    for (int r : missing) {
      const std::string key = str(prefix, "arrived/", r);
      if (store_->check({key}))
        store_->erase(key);
      else
        still.push_back(r);
    }
    missing.swap(still);
    if (missing.empty() || Clock::now() >= deadline) break;
  }
  std::string message;
  if (!missing.empty()) {
    message = wait_all_ranks ? str("[Rank 0]: Ranks ", joined(missing), " failed to pass monitoredBarrier in ",
                                   timeout.count(), " ms")
                             : str("[Rank 0]: Rank ", missing.front(), " failed to pass monitoredBarrier in ",
                                   timeout.count(), " ms");
  }
  store_->set(verdict_key, std::vector<char>(message.begin(), message.end()));
  // Rank 0 hosts the TCP store: it returns once every rank that came has
  // read the verdict (up to the group's timeout), as torch's rank 0 waits
  // for its sends, so that its exit cannot cut them off. A late rank reads
  // the verdict whenever it comes, if the store is still up.
  const int64_t readers = size_ - 1 - int64_t(missing.size());
  const auto read_deadline = Clock::now() + timeout_;
  for (int round = 0; store_->add(prefix + "read", 0) < readers && Clock::now() < read_deadline; back_off(round)) {
  }
  if (missing.empty()) {
    store_->erase(verdict_key);
    store_->erase(prefix + "read");
  }
  if (!message.empty()) throw Error(TSR_ERR_DISTRIBUTED, message);
}

}  // namespace tsr::distributed
