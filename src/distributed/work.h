// The completion state of one collective (torch's Work): set once by the
// thread that ran it, waited on by any number of threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <string>

#include <tessera/types.h>

#include "core/error.h"

namespace tsr::distributed {

// What running an operation ended with: TSR_OK, or its failure. A Work
// reports one; the ranks of an agreement (exchange.h) exchange them.
struct RankOutcome {
  tsr_status status = TSR_OK;
  std::string message;
};

// Runs f, turning what it throws into an outcome (a tsr::Error as it is,
// out of memory as TSR_ERR_OUT_OF_MEMORY, another std::exception as
// TSR_ERR_INTERNAL).
template <typename F>
RankOutcome outcome_of(F&& f) {
  try {
    f();
    return {};
  } catch (const Error& e) {
    return RankOutcome{e.status(), e.what()};
  } catch (const std::bad_alloc&) {
    return RankOutcome{TSR_ERR_OUT_OF_MEMORY, "out of memory"};
  } catch (const std::exception& e) {
    return RankOutcome{TSR_ERR_INTERNAL, e.what()};
  }
}

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
