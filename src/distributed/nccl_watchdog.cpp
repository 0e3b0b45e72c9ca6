#include "distributed/nccl_watchdog.h"

#include <algorithm>

#include "core/error.h"

namespace tsr::distributed {
namespace {

using Clock = std::chrono::steady_clock;
// How often the thread polls NCCL while an operation is in flight (a
// deadline is enforced within this) and while idle (an asynchronous error
// between operations, e.g. a peer gone, is found within this; c10d polls
// every 100 ms).
constexpr auto kBusyPollPeriod = std::chrono::milliseconds(5);
constexpr auto kIdlePollPeriod = std::chrono::milliseconds(100);

}  // namespace

NcclWatchdog::NcclWatchdog(DeviceCommunicator& comm) : comm_(comm) {
  thread_ = std::thread([this] { loop(); });
}

NcclWatchdog::~NcclWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void NcclWatchdog::fail_locked(std::string why) {
  if (!failure_.empty()) return;
  failure_ = std::move(why);
  comm_.abort();
  cv_.notify_all();
}

void NcclWatchdog::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    cv_.wait_for(lock, in_flight_ ? kBusyPollPeriod : kIdlePollPeriod);
    if (stopping_ || !failure_.empty()) continue;
    std::string why;
    if (comm_.poll(&why) == CommState::Failed) {
      fail_locked(str("NCCL asynchronous error on rank ", comm_.rank(), " (ncclCommGetAsyncError): ", why,
                      "; the communicator was aborted (ncclCommAbort)"));
    } else if (in_flight_ && Clock::now() >= deadline_) {
      fail_locked(str("Timed out: ", what_, " did not complete within the group's timeout on rank ", comm_.rank(),
                      " (watchdog); the communicator was aborted (ncclCommAbort)"));
    }
  }
}

void NcclWatchdog::check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_.empty()) throw BackendFailure(failure_);
}

void NcclWatchdog::abort(const std::string& why) noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    fail_locked(why);
  } catch (...) {
  }
}

void NcclWatchdog::wait(const std::string& what, Clock::time_point deadline, const std::function<bool()>& done) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.empty()) throw BackendFailure(failure_);
    what_ = what;
    deadline_ = deadline;
    in_flight_ = true;
  }
  cv_.notify_all();  // the thread polls at the busy period from now on
  struct Idle {
    NcclWatchdog* w;
    ~Idle() {
      std::lock_guard<std::mutex> lock(w->mutex_);
      w->in_flight_ = false;
    }
  } idle{this};
  // Poll the completion with a growing sleep: a short collective returns
  // within microseconds, a long one costs the host little.
  auto nap = std::chrono::microseconds(10);
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!failure_.empty()) throw BackendFailure(failure_);
    }
    std::string why;
    const CommState state = comm_.poll(&why);
    if (state == CommState::Ready && done()) {
      // An abort between the poll and done() lets the aborted operation's
      // stream run on past it: done, but failed. The watchdog sets the
      // failure before it aborts, so it shows here.
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_.empty()) throw BackendFailure(failure_);
      return;
    }
    if (state == CommState::Failed) {
      std::unique_lock<std::mutex> lock(mutex_);
      fail_locked(str("NCCL asynchronous error on rank ", comm_.rank(), " (ncclCommGetAsyncError): ", why,
                      "; the communicator was aborted (ncclCommAbort)"));
      throw BackendFailure(failure_);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, nap, [&] { return !failure_.empty(); });
    nap = std::min(nap * 2, std::chrono::microseconds(1000));
  }
}

}  // namespace tsr::distributed
