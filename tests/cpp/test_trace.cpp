// The memory-history ring (TraceRing), PyTorch's action names and the
// thread-local trace label.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "alloc/trace.h"

namespace tsr::alloc {
namespace {

TraceEntry entry(size_t n) {
  return {TraceEntry::ALLOC, 0x1000 + n, n, 0, static_cast<int64_t>(n), "op" + std::to_string(n)};
}

// The sizes of the entries, oldest first (each entry's size is its number).
std::vector<size_t> sizes(const TraceRing& r) {
  std::vector<size_t> out;
  for (const TraceEntry& e : r.entries()) out.push_back(e.size);
  return out;
}

TEST(TraceEntry, ActionNamesArePyTorchs) {
  EXPECT_STREQ(action_name(TraceEntry::ALLOC), "alloc");
  EXPECT_STREQ(action_name(TraceEntry::FREE_REQUESTED), "free_requested");
  EXPECT_STREQ(action_name(TraceEntry::FREE_COMPLETED), "free_completed");
  EXPECT_STREQ(action_name(TraceEntry::SEGMENT_ALLOC), "segment_alloc");
  EXPECT_STREQ(action_name(TraceEntry::SEGMENT_FREE), "segment_free");
  EXPECT_STREQ(action_name(TraceEntry::SEGMENT_MAP), "segment_map");
  EXPECT_STREQ(action_name(TraceEntry::SEGMENT_UNMAP), "segment_unmap");
  EXPECT_STREQ(action_name(TraceEntry::SNAPSHOT), "snapshot");
  EXPECT_STREQ(action_name(TraceEntry::OOM), "oom");
}

TEST(TraceRing, OffByDefault) {
  TraceRing r;
  EXPECT_FALSE(r.enabled());
  EXPECT_EQ(r.capacity(), 0u);
  r.push(entry(1));
  EXPECT_TRUE(r.entries().empty());
}

TEST(TraceRing, KeepsTheNewestOldestFirst) {
  TraceRing r;
  r.set_capacity(3);
  EXPECT_TRUE(r.enabled());
  r.push(entry(1));
  r.push(entry(2));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{1, 2}));
  r.push(entry(3));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{1, 2, 3}));
  r.push(entry(4));
  r.push(entry(5));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{3, 4, 5}));
  for (size_t i = 6; i <= 10; ++i) r.push(entry(i));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{8, 9, 10}));
  // Every field is kept.
  TraceEntry e = r.entries().back();
  EXPECT_EQ(e.action, TraceEntry::ALLOC);
  EXPECT_EQ(e.addr, 0x1000u + 10);
  EXPECT_EQ(e.time_us, 10);
  EXPECT_EQ(e.label, "op10");
}

TEST(TraceRing, CapacityOne) {
  TraceRing r;
  r.set_capacity(1);
  for (size_t i = 1; i <= 4; ++i) r.push(entry(i));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{4}));
}

TEST(TraceRing, ShrinkingKeepsTheNewest) {
  TraceRing r;
  r.set_capacity(4);
  for (size_t i = 1; i <= 6; ++i) r.push(entry(i));  // wrapped: 3 4 5 6
  r.set_capacity(2);
  EXPECT_EQ(r.capacity(), 2u);
  EXPECT_EQ(sizes(r), (std::vector<size_t>{5, 6}));
  r.push(entry(7));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{6, 7}));
}

TEST(TraceRing, GrowingKeepsEverything) {
  TraceRing r;
  r.set_capacity(3);
  for (size_t i = 1; i <= 5; ++i) r.push(entry(i));  // wrapped: 3 4 5
  r.set_capacity(5);
  EXPECT_EQ(sizes(r), (std::vector<size_t>{3, 4, 5}));
  r.push(entry(6));
  r.push(entry(7));
  r.push(entry(8));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{4, 5, 6, 7, 8}));
  // Same capacity again: nothing changes.
  r.set_capacity(5);
  EXPECT_EQ(sizes(r), (std::vector<size_t>{4, 5, 6, 7, 8}));
}

TEST(TraceRing, ZeroDisablesAndClears) {
  TraceRing r;
  r.set_capacity(3);
  for (size_t i = 1; i <= 5; ++i) r.push(entry(i));
  r.set_capacity(0);
  EXPECT_FALSE(r.enabled());
  EXPECT_TRUE(r.entries().empty());
  r.push(entry(6));
  EXPECT_TRUE(r.entries().empty());
  // Re-enabled: starts empty.
  r.set_capacity(2);
  EXPECT_TRUE(r.entries().empty());
  r.push(entry(7));
  EXPECT_EQ(sizes(r), (std::vector<size_t>{7}));
}

TEST(TraceLabel, IsPerThread) {
  EXPECT_EQ(trace_label(), "");
  set_trace_label("matmul");
  EXPECT_EQ(trace_label(), "matmul");
  std::string other = "unset";
  std::thread([&] {
    other = trace_label();
    set_trace_label("add");
  }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(trace_label(), "matmul");
  set_trace_label("");
  EXPECT_EQ(trace_label(), "");
}

}  // namespace
}  // namespace tsr::alloc
