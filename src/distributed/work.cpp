#include "distributed/work.h"

namespace tsr::distributed {

void Work::complete(tsr_status status, std::string message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = status;
    message_ = std::move(message);
    done_ = true;
  }
  cv_.notify_all();
}

bool Work::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout.count() < 0) {
    cv_.wait(lock, [&] { return done_; });
    return true;
  }
  return cv_.wait_for(lock, timeout, [&] { return done_; });
}

void Work::set_peer(int peer) {
  std::lock_guard<std::mutex> lock(mutex_);
  peer_ = peer;
}

int Work::peer() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peer_;
}

bool Work::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

tsr_status Work::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

std::string Work::message() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return message_;
}

}  // namespace tsr::distributed
