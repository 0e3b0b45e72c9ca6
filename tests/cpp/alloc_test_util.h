// Shared checks for the caching allocator's tests: the invariants every
// state must satisfy, and a fixture with a simulated device.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "alloc/allocator_config.h"
#include "alloc/caching_allocator.h"
#include "alloc/snapshot.h"
#include "alloc/trace.h"
#include "core/error.h"
#include "simdev/simulated_device.h"

namespace tsr::alloc::testing {

constexpr size_t KiB = size_t{1} << 10;
constexpr size_t MiB = size_t{1} << 20;
constexpr size_t GiB = size_t{1} << 30;

// PyTorch's format_size (c10/core/CachingDeviceAllocator.h): "512 bytes",
// "1.50 KiB", "20.00 MiB", "1.25 GiB".
inline std::string format_size(uint64_t size) {
  char buf[64];
  if (size <= 1024) std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)size);
  else if (size <= 1048576) std::snprintf(buf, sizeof buf, "%.2f KiB", size / 1024.0);
  else if (size <= 1073741824ULL) std::snprintf(buf, sizeof buf, "%.2f MiB", size / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", size / 1073741824.0);
  return buf;
}

// A message states a byte count either exactly or as PyTorch prints it.
inline bool mentions_size(const std::string& msg, size_t bytes) {
  return msg.find(std::to_string(bytes)) != std::string::npos ||
         msg.find(format_size(bytes)) != std::string::npos;
}

// Every stat: current >= 0, peak >= current, current == allocated - freed
// (no reset_accumulated in these tests); per-pool stats add up to "all";
// allocated <= active <= reserved; the device agrees on reserved bytes and
// segments (one allocator per simulated device in these tests).
inline void check_invariants(CachingAllocator& a, simdev::SimulatedDevice& sim, int32_t index = 0) {
  SCOPED_TRACE("check_invariants");
  DeviceStats st = a.stats();
  for (MemoryStats* m : {&st.all, &st.small_pool, &st.large_pool}) {
    m->for_each_stat([](Stat& s) {
      EXPECT_GE(s.current, 0);
      EXPECT_GE(s.peak, s.current);
      EXPECT_EQ(s.current, s.allocated - s.freed);
    });
    EXPECT_LE(m->allocated_bytes.current, m->active_bytes.current);
    EXPECT_LE(m->active_bytes.current + m->inactive_split_bytes.current, m->reserved_bytes.current);
    EXPECT_LE(m->requested_bytes.current, m->active_bytes.current);
    EXPECT_LE(m->allocation.current, m->active.current);
  }
  auto sum = [&](Stat MemoryStats::*f) {
    SCOPED_TRACE("pools add up to all");
    EXPECT_EQ((st.all.*f).current, (st.small_pool.*f).current + (st.large_pool.*f).current);
    EXPECT_EQ((st.all.*f).allocated, (st.small_pool.*f).allocated + (st.large_pool.*f).allocated);
    EXPECT_EQ((st.all.*f).freed, (st.small_pool.*f).freed + (st.large_pool.*f).freed);
  };
  for (auto f : {&MemoryStats::allocation, &MemoryStats::segment, &MemoryStats::active,
                 &MemoryStats::inactive_split, &MemoryStats::allocated_bytes,
                 &MemoryStats::reserved_bytes, &MemoryStats::active_bytes,
                 &MemoryStats::inactive_split_bytes, &MemoryStats::requested_bytes})
    sum(f);
  EXPECT_EQ(size_t(st.all.reserved_bytes.current), sim.used_bytes(index));
  EXPECT_EQ(size_t(st.all.segment.current), sim.live_segments(index));
  EXPECT_GE(st.all.num_device_alloc, st.all.num_device_free);
}

// Blocks tile their segment in address order; per-segment and total sums
// agree with the block states and with the statistics of the same snapshot.
inline void check_snapshot(const Snapshot& snap) {
  SCOPED_TRACE("check_snapshot");
  size_t reserved = 0, allocated = 0, active = 0;
  uintptr_t prev_end = 0;
  for (const SegmentSnapshot& seg : snap.segments) {
    EXPECT_GE(seg.address, prev_end) << "segments in address order, not overlapping";
    size_t total = 0, seg_alloc = 0, seg_active = 0, seg_requested = 0;
    uintptr_t next = seg.address;
    for (const BlockSnapshot& b : seg.blocks) {
      EXPECT_EQ(b.address, next) << "blocks tile the segment";
      next += b.size;
      total += b.size;
      EXPECT_EQ(b.size % 512, 0u);
      if (b.state == BlockSnapshot::ACTIVE_ALLOCATED) seg_alloc += b.size;
      if (b.state != BlockSnapshot::INACTIVE) {
        seg_active += b.size;
        seg_requested += b.requested_size;
        EXPECT_LE(b.requested_size, b.size);
      }
    }
    EXPECT_EQ(total, seg.total_size);
    EXPECT_EQ(seg_alloc, seg.allocated_size);
    EXPECT_EQ(seg_active, seg.active_size);
    EXPECT_EQ(seg_requested, seg.requested_size);
    reserved += seg.total_size;
    allocated += seg_alloc;
    active += seg_active;
    prev_end = seg.address + seg.total_size;
  }
  EXPECT_EQ(reserved, size_t(snap.stats.all.reserved_bytes.current));
  EXPECT_EQ(allocated, size_t(snap.stats.all.allocated_bytes.current));
  EXPECT_EQ(active, size_t(snap.stats.all.active_bytes.current));
}

inline const BlockSnapshot* find_block(const Snapshot& snap, const void* p) {
  for (const auto& seg : snap.segments)
    for (const auto& b : seg.blocks)
      if (b.address == reinterpret_cast<uintptr_t>(p)) return &b;
  return nullptr;
}

inline const SegmentSnapshot* find_segment(const Snapshot& snap, const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  for (const auto& seg : snap.segments)
    if (a >= seg.address && a < seg.address + seg.total_size) return &seg;
  return nullptr;
}

inline std::vector<TraceEntry> of_action(const std::vector<TraceEntry>& t, TraceEntry::Action a) {
  std::vector<TraceEntry> out;
  for (const auto& e : t)
    if (e.action == a) out.push_back(e);
  return out;
}

// One simulated device (1 GiB unless a test changes it) and an allocator on
// its device 0; settings back to the defaults around every test.
class AllocTest : public ::testing::Test {
 protected:
  simdev::SimulatedDevice sim{1, 1 * GiB};
  std::unique_ptr<CachingAllocator> alloc;
  Stream s0 = sim.stream(0, 0);

  void SetUp() override {
    set_allocator_config("");
    alloc = std::make_unique<CachingAllocator>(sim, 0);
  }
  void TearDown() override {
    alloc.reset();  // returns every segment
    set_allocator_config("");
    set_trace_label("");
    EXPECT_EQ(sim.used_bytes(0), 0u) << "the allocator's destructor returns everything";
    EXPECT_TRUE(sim.violations().empty());
  }

  void* A(size_t n, Stream s) {
    void* p = alloc->allocate_on(n, s);
    check_invariants(*alloc, sim);
    return p;
  }
  void* A(size_t n) { return A(n, s0); }
  void F(void* p) {
    alloc->free(p);
    check_invariants(*alloc, sim);
  }
  DeviceStats S() { return alloc->stats(); }
  Stream new_stream() { return sim.stream(0, sim.create_stream(0)); }
};

}  // namespace tsr::alloc::testing
