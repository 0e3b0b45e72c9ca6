// A tiny device backend for the allocator benchmark (part 6). The simulated
// device of the tests (tests/simdev) was not on main when this was written;
// this one models only what the caching allocator asks of a device, at
// almost no cost per call, so the figures are the allocator's:
//
// - Memory: mmap'd PROT_NONE with MAP_NORESERVE, as device memory the host
//   never touches (nothing is committed, nothing is read or written).
// - Streams are numbers. Time is a tick counter that the benchmark advances
//   once per alloc+free pair (advance()).
// - An event recorded at tick t completes at tick t + delay: the stream it
//   was recorded on is still busy with `delay` pairs' worth of work (delay 0:
//   complete by the next allocation's poll). query_event never blocks;
//   synchronize_event is a wait, counted, and completes the event.
// - Counters: events recorded, queries, queries answered "not yet", waits,
//   and how many recorded events the allocator has not yet seen complete
//   (outstanding(): the blocks still pending, one event per block here).
#pragma once

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/device_backend.h"

namespace bench {

class BenchDevice final : public tsr::DeviceBackend {
 public:
  // A device type number that no real backend uses (DLPack's kDLVPI = 9).
  static constexpr tsr_device_type kType = static_cast<tsr_device_type>(9);

  explicit BenchDevice(uint64_t delay) : delay_(delay) {}

  tsr::Device device() const { return tsr::Device{kType, 0}; }
  void advance() { ++now_; }
  // Events recorded and not yet seen complete by a query or a wait.
  int64_t outstanding() const { return recorded_ - completed_; }

  struct Counters {
    int64_t recorded = 0, queries = 0, busy_queries = 0, waits = 0, segments = 0;
  };
  Counters counters() const {
    return {recorded_, queries_, busy_queries_, waits_, segments_};
  }

  // ---- DeviceBackend -------------------------------------------------------
  tsr_device_type type() const override { return kType; }
  int32_t device_count() const override { return 1; }

  void* allocate_segment(int32_t, size_t bytes, std::string* why) noexcept override {
    void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      *why = std::strerror(errno);
      return nullptr;
    }
    ++segments_;
    return p;
  }
  void release_segment(int32_t, void* ptr, size_t bytes) noexcept override { munmap(ptr, bytes); }
  tsr::DeviceMemoryInfo memory_info(int32_t) override {
    return {size_t(1) << 46, size_t(1) << 46};
  }

  int64_t create_stream(int32_t) override { return next_stream_++; }
  void destroy_stream(tsr::Stream) noexcept override {}
  void synchronize_stream(tsr::Stream) override { ++waits_; }
  bool query_stream(tsr::Stream) override { return true; }
  void synchronize_device(int32_t) override { ++waits_; }
  void copy_bytes(void* dst, const void* src, size_t bytes, tsr::CopyKind, tsr::Stream) override {
    std::memcpy(dst, src, bytes);
  }

  tsr::EventHandle create_event(int32_t, bool) override { return new Event{}; }
  void destroy_event(tsr::EventHandle e) noexcept override {
    Event* ev = static_cast<Event*>(e);
    if (ev->pending) ++completed_;  // destroyed unseen: no longer outstanding
    delete ev;
  }
  void record_event(tsr::EventHandle e, tsr::Stream) override {
    Event* ev = static_cast<Event*>(e);
    if (ev->pending) ++completed_;  // re-recorded before it was seen complete
    ev->ready = now_ + delay_;
    ev->pending = true;
    ++recorded_;
  }
  bool query_event(tsr::EventHandle e) override {
    Event* ev = static_cast<Event*>(e);
    ++queries_;
    if (now_ < ev->ready) {
      ++busy_queries_;
      return false;
    }
    if (ev->pending) {
      ev->pending = false;
      ++completed_;
    }
    return true;
  }
  void synchronize_event(tsr::EventHandle e) override {
    Event* ev = static_cast<Event*>(e);
    ++waits_;
    if (ev->pending) {
      ev->pending = false;
      ++completed_;
    }
  }
  double elapsed_ms(tsr::EventHandle, tsr::EventHandle) override { return 0; }

 private:
  struct Event {
    uint64_t ready = 0;
    bool pending = false;
  };
  const uint64_t delay_;
  uint64_t now_ = 0;
  int64_t next_stream_ = 1;
  int64_t recorded_ = 0, completed_ = 0, queries_ = 0, busy_queries_ = 0, waits_ = 0,
          segments_ = 0;
};

}  // namespace bench
