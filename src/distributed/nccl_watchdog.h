// The NCCL watchdog (c10d's ProcessGroupNCCL watchdog thread): while a
// communicator lives, a thread polls its asynchronous error
// (ncclCommGetAsyncError) and the deadline of the operation in flight; on
// an error or a passed deadline it aborts the communicator (ncclCommAbort),
// so the kernels blocked on a dead or stalled peer return and the peers
// blocked on this rank fail too, and it keeps the failure for every later
// call. A caller waits for its operation with wait(), which returns when
// the operation's completion event has fired or throws BackendFailure.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/device_collectives.h"
#include "distributed/backend.h"

namespace tsr::distributed {

class NcclWatchdog {
 public:
  // comm outlives the watchdog.
  explicit NcclWatchdog(DeviceCommunicator& comm);
  ~NcclWatchdog();  // stops the thread
  NcclWatchdog(const NcclWatchdog&) = delete;
  NcclWatchdog& operator=(const NcclWatchdog&) = delete;

  // Waits until the communicator has accepted the last call and done() is
  // true, until deadline; `what` names the operation in messages
  // ("ncclAllReduce"). Throws BackendFailure: the engine's asynchronous
  // error, or "Timed out ..." after aborting the communicator.
  void wait(const std::string& what, std::chrono::steady_clock::time_point deadline,
            const std::function<bool()>& done);
  // Throws BackendFailure when the communicator has failed (earlier).
  void check() const;
  // Aborts the communicator now (the group failed elsewhere). Never throws.
  void abort(const std::string& why) noexcept;

 private:
  void loop();
  void fail_locked(std::string why);

  DeviceCommunicator& comm_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::string failure_;  // empty while healthy
  // The operation in flight: its name and deadline (none when idle).
  std::string what_;
  std::chrono::steady_clock::time_point deadline_{};
  bool in_flight_ = false;
  std::thread thread_;
};

}  // namespace tsr::distributed
