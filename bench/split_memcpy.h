// A memcpy cut over threads: the floor of a copy on that many threads, for
// the multi-threaded tables (convert_bench.cpp).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace bench {

// memcpy cut into `threads` equal slices, one per thread: the floor of a copy
// on that many threads. The helpers sleep on a condition variable between
// calls (spinning ones would take the cores from tessera's and torch's
// threads in the other contenders' turns), so a call includes their wake-up.
class SplitMemcpy {
 public:
  explicit SplitMemcpy(int threads) : slices_(threads) {
    for (int k = 1; k < threads; ++k) helpers_.emplace_back([this, k] { serve(k); });
  }
  ~SplitMemcpy() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    go_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }
  void operator()(void* to, const void* from, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(m_);
      to_ = static_cast<char*>(to);
      from_ = static_cast<const char*>(from);
      bytes_ = bytes;
      pending_ = slices_ - 1;
      ++call_;
    }
    go_.notify_all();
    copy_slice(0);
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  void copy_slice(int k) {
    // Slices of whole 64-byte lines; the last one takes the rest.
    const size_t per = bytes_ / size_t(slices_) / 64 * 64, begin = per * size_t(k);
    const size_t end = k + 1 == slices_ ? bytes_ : begin + per;
    std::memcpy(to_ + begin, from_ + begin, end - begin);
  }
  void serve(int k) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        go_.wait(lock, [&] { return stop_ || call_ != seen; });
        if (stop_) return;
        seen = call_;
      }
      copy_slice(k);
      std::lock_guard<std::mutex> lock(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
  int slices_;
  std::vector<std::thread> helpers_;
  std::mutex m_;
  std::condition_variable go_, done_;
  bool stop_ = false;
  uint64_t call_ = 0;
  int pending_ = 0;
  char* to_ = nullptr;
  const char* from_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace bench
