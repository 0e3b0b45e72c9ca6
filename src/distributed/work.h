// The completion state of one collective (torch's Work): set once by the
// thread that ran it, waited on by any number of threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include <tessera/types.h>

namespace tsr::distributed {

class Work {
 public:
  void complete(tsr_status status, std::string message);
  // A receive's sender (torch's Work._source_rank()), set before complete().
  void set_peer(int peer);
  int peer() const;
  // True when done within the timeout (negative: no limit).
  bool wait_for(std::chrono::milliseconds timeout);
  bool done() const;
  tsr_status status() const;
  std::string message() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  tsr_status status_ = TSR_OK;
  int peer_ = -1;
  std::string message_;
};

}  // namespace tsr::distributed
