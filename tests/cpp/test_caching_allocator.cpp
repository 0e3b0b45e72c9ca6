// The caching allocator on the simulated device. Every expected number comes
// from PyTorch's rules in c10/cuda/CUDACachingAllocator.cpp (function names
// cited), so a failure here is a deviation from PyTorch unless the test says
// otherwise.
#include <atomic>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "alloc_test_util.h"

namespace tsr::alloc::testing {
namespace {

// ---- rounding and pools (round_size, get_pool, get_allocation_size,
//      should_split, alloc_found_block, free_block) -------------------------

TEST_F(AllocTest, ZeroBytesIsNull) {
  EXPECT_EQ(alloc->allocate_on(0, s0), nullptr);
  alloc->free(nullptr);
  EXPECT_EQ(S().all.num_device_alloc, 0);
}

TEST_F(AllocTest, RoundingPoolsSplitAndMerge) {
  // 1 B -> 512 B block (kMinBlockSize) in a 2 MiB small segment (kSmallBuffer),
  // split: the rest stays cached as an inactive split block.
  char* p1 = static_cast<char*>(A(1));
  auto st = S();
  EXPECT_EQ(st.all.allocated_bytes.current, 512);
  EXPECT_EQ(st.all.requested_bytes.current, 1);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(2 * MiB));
  EXPECT_EQ(st.small_pool.segment.current, 1);
  EXPECT_EQ(st.large_pool.segment.current, 0);
  EXPECT_EQ(st.small_pool.inactive_split.current, 1);
  EXPECT_EQ(st.small_pool.inactive_split_bytes.current, int64_t(2 * MiB - 512));
  EXPECT_EQ(st.all.num_device_alloc, 1);

  // The next small request splits the remainder: right after p1.
  char* p2 = static_cast<char*>(A(1));
  EXPECT_EQ(p2, p1 + 512);
  st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(2 * MiB));
  EXPECT_EQ(st.small_pool.inactive_split.current, 1);
  EXPECT_EQ(st.small_pool.inactive_split_bytes.current, int64_t(2 * MiB - 1024));

  // 10 MiB (>= kMinLargeAlloc): its own segment, rounded to 2 MiB: 10 MiB.
  void* p3 = A(10 * MiB);
  st = S();
  EXPECT_EQ(st.large_pool.reserved_bytes.current, int64_t(10 * MiB));
  EXPECT_EQ(st.large_pool.inactive_split.current, 0);
  // 11 MiB + 1 -> 11 MiB + 512, segment 12 MiB; the 1 MiB - 512 left is not
  // more than kSmallSize, so should_split says no: the block is all 12 MiB.
  void* p4 = A(11 * MiB + 1);
  st = S();
  EXPECT_EQ(st.large_pool.reserved_bytes.current, int64_t(22 * MiB));
  EXPECT_EQ(st.large_pool.allocated_bytes.current, int64_t(22 * MiB));
  EXPECT_EQ(st.large_pool.requested_bytes.current, int64_t(21 * MiB + 1));
  EXPECT_EQ(st.large_pool.inactive_split.current, 0);

  // 1 MiB + 1 (> kSmallSize, < kMinLargeAlloc): a 20 MiB segment (kLargeBuffer), split.
  char* p5 = static_cast<char*>(A(MiB + 1));
  st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(44 * MiB));
  EXPECT_EQ(st.large_pool.segment.current, 3);
  EXPECT_EQ(st.large_pool.inactive_split.current, 1);
  EXPECT_EQ(st.large_pool.inactive_split_bytes.current, int64_t(19 * MiB - 512));
  // 5 MiB: best fit is the 19 MiB remainder, split again, right after p5.
  char* p6 = static_cast<char*>(A(5 * MiB));
  EXPECT_EQ(p6, p5 + MiB + 512);
  st = S();
  EXPECT_EQ(st.all.num_device_alloc, 4);
  EXPECT_EQ(st.large_pool.inactive_split.current, 1);
  EXPECT_EQ(st.large_pool.inactive_split_bytes.current, int64_t(14 * MiB - 512));
  EXPECT_EQ(st.all.allocated_bytes.current, int64_t(28 * MiB + 1536));

  {
    Snapshot snap = alloc->snapshot();
    check_snapshot(snap);
    ASSERT_EQ(snap.segments.size(), 4u);
    const SegmentSnapshot* seg = find_segment(snap, p5);
    ASSERT_NE(seg, nullptr);
    EXPECT_FALSE(seg->small_pool);
    EXPECT_EQ(seg->total_size, 20 * MiB);
    ASSERT_EQ(seg->blocks.size(), 3u);
    EXPECT_EQ(seg->blocks[0].size, MiB + 512);
    EXPECT_EQ(seg->blocks[0].requested_size, MiB + 1);
    EXPECT_EQ(seg->blocks[0].state, BlockSnapshot::ACTIVE_ALLOCATED);
    EXPECT_EQ(seg->blocks[1].size, 5 * MiB);
    EXPECT_EQ(seg->blocks[2].size, 14 * MiB - 512);
    EXPECT_EQ(seg->blocks[2].state, BlockSnapshot::INACTIVE);
    seg = find_segment(snap, p4);
    ASSERT_NE(seg, nullptr);
    ASSERT_EQ(seg->blocks.size(), 1u);
    EXPECT_EQ(seg->blocks[0].size, 12 * MiB);
    EXPECT_EQ(seg->blocks[0].requested_size, 11 * MiB + 1);
    seg = find_segment(snap, p1);
    ASSERT_NE(seg, nullptr);
    EXPECT_TRUE(seg->small_pool);
    EXPECT_EQ(seg->blocks.size(), 3u);
  }

  // The blocks are real device memory: a copy round-trips.
  std::vector<char> in(5 * MiB, 'q'), out(5 * MiB, 0);
  sim.copy_host_to_device(p6, in.data(), in.size(), s0);
  sim.copy_device_to_host(out.data(), p6, out.size(), s0);
  sim.synchronize_stream(s0);
  EXPECT_EQ(in, out);

  // Freeing p5: its neighbour p6 is in use, so no merge; one more inactive split block.
  F(p5);
  st = S();
  EXPECT_EQ(st.large_pool.inactive_split.current, 2);
  EXPECT_EQ(st.large_pool.inactive_split_bytes.current, int64_t(15 * MiB));
  // Freeing p6 merges all three back into one 20 MiB block: no split blocks left.
  F(p6);
  st = S();
  EXPECT_EQ(st.large_pool.inactive_split.current, 0);
  EXPECT_EQ(st.large_pool.inactive_split_bytes.current, 0);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(44 * MiB));
  // And the whole segment serves the next request from its start.
  void* p7 = A(MiB + 1);
  EXPECT_EQ(p7, p5);
  EXPECT_EQ(S().all.num_device_alloc, 4);

  F(p1);
  EXPECT_EQ(S().small_pool.inactive_split.current, 2);
  F(p2);
  EXPECT_EQ(S().small_pool.inactive_split.current, 0);
  F(p3);
  F(p4);
  F(p7);
  st = S();
  EXPECT_EQ(st.all.allocated_bytes.current, 0);
  EXPECT_EQ(st.all.active.current, 0);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(44 * MiB));  // cached
  alloc->empty_cache();
  check_invariants(*alloc, sim);
  st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, 0);
  EXPECT_EQ(st.all.segment.current, 0);
  EXPECT_EQ(st.all.num_device_free, 4);
  EXPECT_EQ(st.all.reserved_bytes.peak, int64_t(44 * MiB));
  EXPECT_EQ(st.all.allocated_bytes.peak, int64_t(28 * MiB + 1536));
  EXPECT_EQ(sim.used_bytes(0), 0u);
  check_snapshot(alloc->snapshot());
}

TEST_F(AllocTest, OneMiBIsStillSmall) {
  // size <= kSmallSize goes to the small pool: two 1 MiB blocks fill one 2 MiB segment.
  char* a = static_cast<char*>(A(MiB));
  char* b = static_cast<char*>(A(MiB));
  EXPECT_EQ(b, a + MiB);
  auto st = S();
  EXPECT_EQ(st.small_pool.segment.current, 1);
  EXPECT_EQ(st.small_pool.allocated_bytes.current, int64_t(2 * MiB));
  EXPECT_EQ(st.small_pool.inactive_split.current, 0);
  void* c = A(MiB);
  EXPECT_EQ(S().small_pool.segment.current, 2);
  F(a);
  F(b);
  F(c);
}

TEST_F(AllocTest, ResetPeakAndAccumulated) {
  void* a = A(3 * MiB);
  F(a);
  alloc->reset_peak();
  auto st = S();
  EXPECT_EQ(st.all.allocated_bytes.peak, 0);
  EXPECT_EQ(st.all.reserved_bytes.peak, int64_t(20 * MiB));
  alloc->reset_accumulated();
  st = S();
  EXPECT_EQ(st.all.allocated_bytes.allocated, 0);
  EXPECT_EQ(st.all.num_device_alloc, 0);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(20 * MiB));
}

// ---- streams (BlockComparatorSize keys free blocks by stream first) ---------

TEST_F(AllocTest, FreeBlocksAreReusedOnlyOnTheirStream) {
  Stream s1 = new_stream();
  void* p = A(1000, s0);
  F(p);
  void* q = A(1000, s1);  // p's block is cached for s0 only: a new segment
  EXPECT_NE(q, p);
  EXPECT_EQ(S().all.num_device_alloc, 2);
  EXPECT_EQ(S().small_pool.segment.current, 2);
  void* r = A(1000, s0);
  EXPECT_EQ(r, p);
  F(q);
  void* t = A(1000, s1);
  EXPECT_EQ(t, q);
  EXPECT_EQ(S().all.num_device_alloc, 2);
  Snapshot snap = alloc->snapshot();
  check_snapshot(snap);
  ASSERT_NE(find_segment(snap, p), nullptr);
  EXPECT_EQ(find_segment(snap, p)->stream, 0);
  EXPECT_EQ(find_segment(snap, q)->stream, s1.id);
  F(r);
  F(t);
}

// record_stream (recordStream, free -> insert_events, malloc -> process_events,
// release_cached_blocks -> synchronize_and_free_events).
TEST_F(AllocTest, RecordStreamDefersReuseUntilTheStreamGetsThere) {
  Stream s1 = new_stream();
  alloc->record_history(true, 1000);
  sim.hold(s1);
  sim.launch(s1, [] {});  // work queued on s1 that has not run
  char* p = static_cast<char*>(A(1000, s0));
  alloc->record_stream(p, s1);
  F(p);

  // free() drops the allocation at once but the block stays active.
  auto st = S();
  EXPECT_EQ(st.all.allocated_bytes.current, 0);
  EXPECT_EQ(st.all.allocation.current, 0);
  EXPECT_EQ(st.all.active.current, 1);
  EXPECT_EQ(st.all.active_bytes.current, 1024);
  EXPECT_GE(sim.counters().events_recorded, 1);
  {
    Snapshot snap = alloc->snapshot();
    check_snapshot(snap);
    const BlockSnapshot* b = find_block(snap, p);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->state, BlockSnapshot::ACTIVE_PENDING_FREE);
    EXPECT_EQ(of_action(snap.trace, TraceEntry::FREE_REQUESTED).size(), 1u);
    EXPECT_EQ(of_action(snap.trace, TraceEntry::FREE_COMPLETED).size(), 0u);
  }

  // Same size on the same stream: not p (its event is pending); the remainder after it.
  char* q = static_cast<char*>(A(1000, s0));
  EXPECT_NE(q, p);
  EXPECT_EQ(q, p + 1024);
  EXPECT_GT(sim.counters().event_queries, 0) << "events are polled at allocation";

  sim.release(s1);
  sim.synchronize_stream(s1);
  char* r = static_cast<char*>(A(1000, s0));
  EXPECT_EQ(r, p) << "once s1 reached the event, p's block is reused";
  EXPECT_EQ(sim.counters().event_synchronizes, 0) << "allocation never waits on events";
  {
    Snapshot snap = alloc->snapshot();
    auto fc = of_action(snap.trace, TraceEntry::FREE_COMPLETED);
    ASSERT_EQ(fc.size(), 1u);
    EXPECT_EQ(fc[0].addr, reinterpret_cast<uintptr_t>(p));
  }
  F(q);
  F(r);

  // empty_cache waits for outstanding events: s1 has slow work before the event.
  std::atomic<bool> done{false};
  sim.hold(s1);
  sim.launch(s1, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    done = true;
  });
  void* p2 = A(1000, s0);
  alloc->record_stream(p2, s1);
  F(p2);
  sim.release(s1);
  int64_t syncs_before = S().all.num_sync_all_streams;
  alloc->empty_cache();
  EXPECT_TRUE(done.load()) << "empty_cache returned before the event completed";
  EXPECT_GE(sim.counters().event_synchronizes, 1);
  st = S();
  EXPECT_EQ(st.all.num_sync_all_streams, syncs_before + 1);
  EXPECT_EQ(st.all.reserved_bytes.current, 0);
  EXPECT_EQ(st.all.active.current, 0);
  check_invariants(*alloc, sim);
}

TEST_F(AllocTest, RecordStreamOnTheAllocationStreamIsIgnored) {
  void* p = A(1000, s0);
  alloc->record_stream(p, s0);  // recordStream: "ignore uses on the allocation stream"
  F(p);
  EXPECT_EQ(sim.counters().events_recorded, 0);
  EXPECT_EQ(A(1000, s0), p);
  F(p);
}

TEST_F(AllocTest, BlockUsedOnTwoStreamsWaitsForBoth) {
  Stream s1 = new_stream(), s2 = new_stream();
  sim.hold(s1);
  sim.hold(s2);
  char* p = static_cast<char*>(A(4096, s0));
  alloc->record_stream(p, s1);
  alloc->record_stream(p, s2);
  F(p);
  sim.release(s1);
  sim.synchronize_stream(s1);
  void* q = A(4096, s0);
  EXPECT_NE(q, p) << "s2 has not reached its event yet";
  sim.release(s2);
  sim.synchronize_stream(s2);
  void* r = A(4096, s0);
  EXPECT_EQ(r, p);
  F(q);
  F(r);
}

// ---- out of memory (malloc's retry chain and its message) -------------------

TEST_F(AllocTest, OomFreesTheCacheAndRetries) {
  sim.set_capacity(0, 64 * MiB);
  alloc->record_history(true, 1000);
  void* p = A(30 * MiB);
  void* q = A(30 * MiB);
  F(p);
  F(q);
  EXPECT_EQ(S().all.reserved_bytes.current, int64_t(60 * MiB));
  // 40 MiB: no cached block fits; the device refuses (60 + 40 > 64); without
  // max_split_size release_available_cached_blocks does nothing; then
  // release_cached_blocks frees both segments and alloc_block(isRetry) succeeds.
  void* r = A(40 * MiB);
  ASSERT_NE(r, nullptr);
  auto st = S();
  EXPECT_EQ(st.all.num_alloc_retries, 1);
  EXPECT_EQ(st.all.num_ooms, 0);
  // tessera counts a sync only when events were outstanding (none here);
  // PyTorch counts every release_cached_blocks.
  EXPECT_EQ(st.all.num_sync_all_streams, 0);
  EXPECT_EQ(st.all.num_device_free, 2);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(40 * MiB));
  EXPECT_EQ(sim.counters().segment_refusals, 1);
  Snapshot snap = alloc->snapshot();
  EXPECT_EQ(of_action(snap.trace, TraceEntry::SEGMENT_FREE).size(), 2u);
  EXPECT_EQ(of_action(snap.trace, TraceEntry::OOM).size(), 0u);
  F(r);
}

TEST_F(AllocTest, OomWhenNothingCanBeFreed) {
  sim.set_capacity(0, 64 * MiB);
  alloc->record_history(true, 1000);
  void* small = A(1);       // 2 MiB small segment, 512 B allocated
  void* big = A(40 * MiB);  // 40 MiB segment
  DeviceStats before = S();
  try {
    alloc->allocate_on(30 * MiB, s0);
    FAIL() << "expected out of memory";
  } catch (const tsr::Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_OUT_OF_MEMORY);
    std::string msg = e.what();
    SCOPED_TRACE(msg);
    // malloc's message: requested size, device total and free, allocated,
    // reserved but unallocated; tessera's also points at the snapshot.
    EXPECT_NE(msg.find("out of memory"), std::string::npos);
    EXPECT_TRUE(mentions_size(msg, 30 * MiB)) << "requested size";
    EXPECT_TRUE(mentions_size(msg, 64 * MiB)) << "device total";
    EXPECT_TRUE(mentions_size(msg, 22 * MiB)) << "device free";
    EXPECT_TRUE(mentions_size(msg, 40 * MiB + 512)) << "allocated";
    EXPECT_TRUE(mentions_size(msg, 2 * MiB - 512)) << "reserved but unallocated";
    EXPECT_NE(msg.find("reserved"), std::string::npos);
    EXPECT_NE(msg.find("unallocated"), std::string::npos);
    EXPECT_NE(msg.find("snapshot"), std::string::npos);
  }
  check_invariants(*alloc, sim);
  DeviceStats after = S();
  EXPECT_EQ(after.all.num_ooms, 1);
  EXPECT_EQ(after.all.num_alloc_retries, before.all.num_alloc_retries + 1);
  for (auto f : {&MemoryStats::allocation, &MemoryStats::allocated_bytes, &MemoryStats::active,
                 &MemoryStats::active_bytes, &MemoryStats::requested_bytes,
                 &MemoryStats::reserved_bytes, &MemoryStats::segment}) {
    EXPECT_EQ((after.all.*f).current, (before.all.*f).current);
    EXPECT_EQ((after.all.*f).allocated, (before.all.*f).allocated);
  }
  // record_trace(OOM, device_free, params.size(), ...).
  Snapshot snap = alloc->snapshot();
  auto ooms = of_action(snap.trace, TraceEntry::OOM);
  ASSERT_EQ(ooms.size(), 1u);
  EXPECT_EQ(ooms[0].size, 30 * MiB);
  EXPECT_EQ(ooms[0].addr, 22 * MiB);
  // And the allocator still works.
  F(big);
  void* again = A(30 * MiB);
  F(again);
  F(small);
}

TEST_F(AllocTest, OomRetryWaitsForRecordedStreams) {
  // PyTorch's test_caching_allocator_record_stream_oom: blocks held back by
  // record_stream are freed by the retry (synchronize_and_free_events).
  sim.set_capacity(0, 64 * MiB);
  Stream s1 = new_stream();
  std::atomic<bool> go{false};
  sim.launch(s1, [&] {
    while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  void* x = A(40 * MiB);
  alloc->record_stream(x, s1);
  F(x);
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    go = true;
  });
  void* y = A(40 * MiB);  // waits in the retry until s1 gets past its event
  opener.join();
  ASSERT_NE(y, nullptr);
  auto st = S();
  EXPECT_EQ(st.all.num_alloc_retries, 1);
  EXPECT_EQ(st.all.num_sync_all_streams, 1);
  EXPECT_EQ(st.all.num_ooms, 0);
  EXPECT_GE(sim.counters().event_synchronizes, 1);
  F(y);
}

TEST_F(AllocTest, MemoryLimitRefusesBeforeTheDevice) {
  // alloc_block: set_fraction && total_allocated_memory + size > allowed_memory_maximum.
  alloc->set_memory_limit(30 * MiB);
  EXPECT_EQ(alloc->memory_limit(), 30 * MiB);
  void* a = A(20 * MiB);
  try {
    alloc->allocate_on(20 * MiB, s0);
    FAIL() << "expected out of memory";
  } catch (const tsr::Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_OUT_OF_MEMORY);
    std::string msg = e.what();
    EXPECT_NE(msg.find("allowed"), std::string::npos) << msg;
    EXPECT_TRUE(mentions_size(msg, 30 * MiB)) << msg;
  }
  EXPECT_EQ(sim.counters().segment_refusals, 0) << "the device was never asked";
  // Cached blocks count against the limit and are freed to make room.
  F(a);
  void* b = A(24 * MiB);
  auto st = S();
  EXPECT_EQ(st.all.num_alloc_retries, 2);  // one per release_cached_blocks retry
  EXPECT_EQ(st.all.num_ooms, 1);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(24 * MiB));
  F(b);
  alloc->set_memory_limit(0);
}

// ---- max_split_size_mb (get_free_block, should_split,
//      release_available_cached_blocks) -------------------------------------

TEST_F(AllocTest, MaxSplitSizeOversizeBlocks) {
  set_allocator_config("max_split_size_mb:40");
  void* a = A(50 * MiB);
  auto st = S();
  EXPECT_EQ(st.all.oversize_segments.current, 1);
  EXPECT_EQ(st.all.oversize_allocations.current, 1);
  F(a);
  st = S();
  EXPECT_EQ(st.all.oversize_allocations.current, 0);
  EXPECT_EQ(st.all.oversize_segments.current, 1);
  // A request below max_split_size never takes an oversize block.
  void* b = A(24 * MiB);
  EXPECT_NE(b, a);
  EXPECT_EQ(S().all.num_device_alloc, 2);
  // A small-pool request cannot see it either.
  void* s = A(1000);
  EXPECT_EQ(S().small_pool.segment.current, 1);
  // 45 MiB: the 50 MiB block is within kLargeBuffer (20 MiB) of it: taken
  // whole, not split (blocks >= max_split_size never are).
  void* d = A(45 * MiB);
  EXPECT_EQ(d, a);
  st = S();
  EXPECT_EQ(st.large_pool.allocated_bytes.current, int64_t(24 * MiB + 50 * MiB));
  EXPECT_EQ(st.large_pool.inactive_split.current, 0);
  EXPECT_EQ(st.all.oversize_allocations.current, 1);
  EXPECT_EQ(st.all.num_device_alloc, 3);
  F(b);
  F(d);
  F(s);
  alloc->empty_cache();
  EXPECT_EQ(S().all.oversize_segments.current, 0);

  // A cached 70 MiB block is 20 MiB or more larger than 45 MiB: not used.
  void* h = A(70 * MiB);
  F(h);
  void* i = A(45 * MiB);
  EXPECT_NE(i, h);
  EXPECT_EQ(S().large_pool.reserved_bytes.current, int64_t(70 * MiB + 46 * MiB));
  // 55 MiB is within 20 MiB of 70 MiB: used, whole.
  void* j = A(55 * MiB);
  EXPECT_EQ(j, h);
  st = S();
  EXPECT_EQ(st.large_pool.allocated_bytes.current, int64_t(46 * MiB + 70 * MiB));
  EXPECT_EQ(st.large_pool.requested_bytes.current, int64_t(45 * MiB + 55 * MiB));
  EXPECT_EQ(st.all.oversize_segments.current, 2);
  EXPECT_EQ(st.all.oversize_allocations.current, 2);
  F(i);
  F(j);
}

TEST_F(AllocTest, BelowMaxSplitSizeStillSplits) {
  set_allocator_config("max_split_size_mb:40");
  void* a = A(38 * MiB);  // not oversize
  F(a);
  void* b = A(30 * MiB);  // 30 < 40 and 8 MiB left > kSmallSize: split
  EXPECT_EQ(b, a);
  auto st = S();
  EXPECT_EQ(st.large_pool.allocated_bytes.current, int64_t(30 * MiB));
  EXPECT_EQ(st.large_pool.inactive_split.current, 1);
  EXPECT_EQ(st.large_pool.inactive_split_bytes.current, int64_t(8 * MiB));
  F(b);
}

TEST_F(AllocTest, OversizeBlocksFreedBeforeTheFullRelease) {
  set_allocator_config("max_split_size_mb:40");
  sim.set_capacity(0, 200 * MiB);
  alloc->record_history(true, 1000);
  void* k = A(1000);  // keeps a small segment
  void* x1 = A(50 * MiB);
  void* x2 = A(60 * MiB);
  void* y = A(30 * MiB);
  F(x1);
  F(x2);
  F(y);
  EXPECT_EQ(S().all.reserved_bytes.current, int64_t(142 * MiB));
  // 100 MiB: the device refuses (142 + 100 > 200). No single cached block
  // is >= 100 MiB, so oversize blocks go largest first until 100 MiB are
  // freed: 60 then 50. The 30 MiB block is not oversize and stays; no full
  // release (no retry counted, no wait on streams).
  void* z = A(100 * MiB);
  auto st = S();
  EXPECT_EQ(st.all.num_alloc_retries, 0);
  EXPECT_EQ(st.all.num_sync_all_streams, 0);
  EXPECT_EQ(st.all.num_device_free, 2);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(132 * MiB));
  Snapshot snap = alloc->snapshot();
  check_snapshot(snap);
  auto frees = of_action(snap.trace, TraceEntry::SEGMENT_FREE);
  ASSERT_EQ(frees.size(), 2u);
  EXPECT_EQ(frees[0].addr, reinterpret_cast<uintptr_t>(x2));
  EXPECT_EQ(frees[0].size, 60 * MiB);
  EXPECT_EQ(frees[1].addr, reinterpret_cast<uintptr_t>(x1));
  EXPECT_EQ(frees[1].size, 50 * MiB);
  const BlockSnapshot* yb = find_block(snap, y);
  ASSERT_NE(yb, nullptr) << "the 30 MiB segment is still cached";
  EXPECT_EQ(yb->state, BlockSnapshot::INACTIVE);
  F(z);
  F(k);
}

// ---- garbage_collection_threshold (garbage_collect_cached_blocks) -----------

// Ages count get_free_block calls on the large pool since a block was
// cached. `tick` is a large-pool request served by the split remainder of
// one 20 MiB segment, so it ages every cached block without touching them.
class GcTest : public AllocTest {
 protected:
  void* z = nullptr;
  void tick() { F(A(2 * MiB)); }
};

TEST_F(GcTest, FreesCachedSegmentsOfAboveAverageAge) {
  set_allocator_config("garbage_collection_threshold:0.4");
  alloc->set_memory_limit(200 * MiB);  // gc above 0.4 * 200 = 80 MiB reserved
  alloc->record_history(true, 1000);
  z = A(2 * MiB);  // call 1: 20 MiB segment, 18 MiB remainder
  void* P = A(20 * MiB);  // 2
  void* Q = A(22 * MiB);  // 3
  void* R = A(24 * MiB);  // 4; reserved 86 MiB
  F(P);                   // cached at 4
  tick();                 // 5
  tick();                 // 6
  tick();                 // 7
  F(Q);                   // cached at 7
  tick();                 // 8
  F(R);                   // cached at 8
  EXPECT_EQ(S().all.num_device_free, 0);
  // Call 9 finds nothing for 26 MiB; reserved 86 > 80: target 6 MiB. Ages
  // P 5, Q 2, R 1, average 8/3: only P is at or above it, and its 20 MiB
  // reach the target.
  void* S26 = A(26 * MiB);
  auto st = S();
  EXPECT_EQ(st.all.num_device_free, 1);
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(92 * MiB));
  EXPECT_EQ(st.all.num_alloc_retries, 0);
  Snapshot snap = alloc->snapshot();
  check_snapshot(snap);
  auto frees = of_action(snap.trace, TraceEntry::SEGMENT_FREE);
  ASSERT_EQ(frees.size(), 1u);
  EXPECT_EQ(frees[0].addr, reinterpret_cast<uintptr_t>(P));
  EXPECT_EQ(frees[0].size, 20 * MiB);
  EXPECT_NE(find_block(snap, Q), nullptr);
  EXPECT_NE(find_block(snap, R), nullptr);
  F(S26);
  F(z);
}

TEST_F(GcTest, NoCollectionWithoutAMemoryLimit) {
  set_allocator_config("garbage_collection_threshold:0.4");
  z = A(2 * MiB);
  void* P = A(20 * MiB);
  void* Q = A(22 * MiB);
  void* R = A(24 * MiB);
  F(P);
  tick();
  tick();
  tick();
  F(Q);
  tick();
  F(R);
  void* S26 = A(26 * MiB);
  EXPECT_EQ(S().all.num_device_free, 0);
  EXPECT_EQ(S().all.reserved_bytes.current, int64_t(112 * MiB));
  F(S26);
  F(z);
}

// ---- roundup_power2_divisions (round_size, roundup_power2_next_division,
//      AcceleratorAllocatorConfig::parseRoundUpPower2Divisions) -------------

// test_cuda.py's helper.
size_t power2_div(size_t size, size_t div_factor) {
  size_t pow2 = 1;
  while (pow2 < size) pow2 *= 2;
  if (pow2 == size) return pow2;
  size_t step = pow2 / 2 / div_factor;
  size_t ret = pow2 / 2;
  while (ret < size) ret += step;
  return ret;
}

class RoundupTest : public AllocTest {
 protected:
  void SetUp() override {
    AllocTest::SetUp();
    sim.set_capacity(0, 8 * GiB);  // address space only: nothing is touched
  }
  // Bytes of allocated_bytes one request of n adds (its block size).
  int64_t block_for(size_t n) {
    int64_t before = S().all.allocated_bytes.current;
    int64_t req_before = S().all.requested_bytes.current;
    void* p = A(n);
    int64_t got = S().all.allocated_bytes.current - before;
    EXPECT_EQ(S().all.requested_bytes.current - req_before, int64_t(n));
    F(p);
    alloc->empty_cache();
    return got;
  }
};

TEST_F(RoundupTest, SingleValue) {
  const size_t nbytes = 4 * 21 * MiB;
  EXPECT_EQ(block_for(nbytes), int64_t(nbytes));
  set_allocator_config("roundup_power2_divisions:4");
  EXPECT_EQ(power2_div(nbytes, 4), 96 * MiB);
  EXPECT_EQ(block_for(nbytes), int64_t(power2_div(nbytes, 4)));
  // Setting other keys resets the divisions.
  set_allocator_config("garbage_collection_threshold:0.5,max_split_size_mb:70");
  EXPECT_EQ(block_for(nbytes), int64_t(nbytes));
  // Small sizes: rounded only when size > 512 * divisions; 9000 -> 10240.
  set_allocator_config("roundup_power2_divisions:4");
  EXPECT_EQ(block_for(1000), 1024);
  EXPECT_EQ(block_for(9000), int64_t(power2_div(9000, 4)));
  EXPECT_EQ(block_for(8192), 8192);  // powers of two stay
  // 1 division: no power-of-two rounding (test_roundup_power2_divisions_1).
  set_allocator_config("roundup_power2_divisions:1");
  EXPECT_EQ(block_for(21 * 125 * 125 * 4), int64_t(512 * ((21 * 125 * 125 * 4 + 511) / 512)));
}

TEST_F(RoundupTest, TableSyntax) {
  const size_t nbytes = 4 * 21 * MiB, nbytes_big = 4 * 100 * MiB;
  set_allocator_config(
      "garbage_collection_threshold:0.5,roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]");
  EXPECT_EQ(block_for(nbytes), int64_t(power2_div(nbytes, 8)));          // 88 MiB
  EXPECT_EQ(block_for(nbytes_big), int64_t(power2_div(nbytes_big, 2)));  // 512 MiB
  EXPECT_EQ(power2_div(nbytes, 8), 88 * MiB);
  EXPECT_EQ(power2_div(nbytes_big, 2), 512 * MiB);
}

TEST_F(RoundupTest, TableWithOpenEnd) {
  // Key K (MiB) sets interval log2(K): sizes in [K, 2K) MiB; the first key
  // also covers everything smaller; ">" covers the intervals after the last key.
  AllocatorConfig c = parse_allocator_config("roundup_power2_divisions:[256:1,512:2,>:4]");
  EXPECT_EQ(c.divisions_for(1000), 1u);
  EXPECT_EQ(c.divisions_for(300 * MiB), 1u);
  EXPECT_EQ(c.divisions_for(600 * MiB), 2u);
  EXPECT_EQ(c.divisions_for(1100 * MiB), 4u);
  EXPECT_EQ(c.divisions_for(100 * GiB), 4u);
  set_allocator_config("roundup_power2_divisions:[256:1,512:2,>:4]");
  EXPECT_EQ(block_for(300 * MiB + 1), int64_t(300 * MiB + 512));
  EXPECT_EQ(block_for(600 * MiB), int64_t(768 * MiB));
  EXPECT_EQ(block_for(1100 * MiB), int64_t(1280 * MiB));
  EXPECT_EQ(block_for(512 * MiB), int64_t(512 * MiB));
  // test_roundup_power2_divisions_0: 0 disables rounding in its interval.
  set_allocator_config("roundup_power2_divisions:[128:1,256:0,512:4]");
  EXPECT_EQ(block_for(4 * 67 * MiB), int64_t(4 * 67 * MiB));
  EXPECT_EQ(block_for(4 * 130 * MiB), int64_t(power2_div(4 * 130 * MiB, 4)));
}

TEST_F(AllocTest, BadSettingsThrowAndChangeNothing) {
  set_allocator_config("max_split_size_mb:40");
  for (const char* bad : {"foo:1,bar:2", "garbage_collection_threshold:1.2", "max_split_size_mb:2",
                          "roundup_power2_divisions:3", "expandable_segments:maybe"}) {
    try {
      set_allocator_config(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const tsr::Error& e) {
      EXPECT_EQ(e.status(), TSR_ERR_INVALID_ARGUMENT) << bad;
    }
  }
  EXPECT_EQ(allocator_config()->max_split_size, 40 * MiB);
  EXPECT_EQ(allocator_config()->text, "max_split_size_mb:40");
}

// parseMaxSplitSize: min_allowed_split_size_mb = kLargeBuffer / kMB = 20,
// checked as val_env >= 20.
TEST_F(AllocTest, MaxSplitSizeOf20MiBIsAccepted) {
  EXPECT_NO_THROW(set_allocator_config("max_split_size_mb:20"));
  EXPECT_EQ(allocator_config()->max_split_size, 20 * MiB);
  EXPECT_THROW(set_allocator_config("max_split_size_mb:19"), tsr::Error);
}

// ---- expandable segments (find_expandable_block, map_block, unmap_block,
//      release_expandable_segment; ExpandableSegment maps 2 MiB pages for
//      the small pool, 20 MiB for the large) --------------------------------

TEST_F(AllocTest, ExpandableSegmentsGrowAndShrink) {
  set_allocator_config("expandable_segments:True");
  alloc->record_history(true, 1000);
  Stream s1 = new_stream();
  char* a = static_cast<char*>(A(MiB + 1));
  auto st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(20 * MiB));
  EXPECT_EQ(st.all.num_device_alloc, 1);
  EXPECT_EQ(st.all.segment.current, 0) << "map_block counts reserved bytes, not segments";
  EXPECT_EQ(st.all.inactive_split.current, 0) << "expandable blocks are not inactive_split";
  EXPECT_EQ(sim.counters().reservations, 1);
  EXPECT_EQ(sim.counters().pages_mapped, 10);
  // 30 MiB: the free 19 MiB after a grows by one more 20 MiB page: same segment, contiguous.
  char* b = static_cast<char*>(A(30 * MiB));
  EXPECT_EQ(b, a + MiB + 512);
  st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(40 * MiB));
  EXPECT_EQ(st.all.num_device_alloc, 2);
  EXPECT_EQ(sim.counters().reservations, 1);
  // One reservation per (stream, pool).
  void* c = A(1000);
  void* d = A(MiB + 1, s1);
  EXPECT_EQ(sim.counters().reservations, 3);
  st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(62 * MiB));
  EXPECT_EQ(st.small_pool.reserved_bytes.current, int64_t(2 * MiB));
  {
    Snapshot snap = alloc->snapshot();
    check_snapshot(snap);
    const SegmentSnapshot* seg = find_segment(snap, a);
    ASSERT_NE(seg, nullptr);
    EXPECT_TRUE(seg->is_expandable);
    EXPECT_EQ(seg->total_size, 40 * MiB);
    auto maps = of_action(snap.trace, TraceEntry::SEGMENT_MAP);
    ASSERT_EQ(maps.size(), 4u);
    EXPECT_EQ(maps[0].addr, reinterpret_cast<uintptr_t>(a));
    EXPECT_EQ(maps[0].size, 20 * MiB);
    EXPECT_EQ(maps[1].addr, reinterpret_cast<uintptr_t>(a) + 20 * MiB);
    EXPECT_EQ(maps[1].size, 20 * MiB);
    EXPECT_EQ(maps[2].size, 2 * MiB);
    EXPECT_EQ(maps[3].stream, s1.id);
  }
  // empty_cache unmaps the free whole pages: b's 20 MiB page at the tail.
  F(b);
  int64_t stream_syncs = sim.counters().stream_synchronizes + sim.counters().device_synchronizes;
  alloc->empty_cache();
  check_invariants(*alloc, sim);
  st = S();
  EXPECT_EQ(st.all.reserved_bytes.current, int64_t(42 * MiB));
  EXPECT_EQ(st.all.num_device_free, 1);
  EXPECT_EQ(sim.counters().pages_unmapped, 10);
  // ExpandableSegment::unmapHandles synchronizes the segment's stream first:
  // the pages may still be in use by queued work.
  EXPECT_GT(sim.counters().stream_synchronizes + sim.counters().device_synchronizes, stream_syncs);
  {
    Snapshot snap = alloc->snapshot();
    check_snapshot(snap);
    auto unmaps = of_action(snap.trace, TraceEntry::SEGMENT_UNMAP);
    ASSERT_EQ(unmaps.size(), 1u);
    EXPECT_EQ(unmaps[0].addr, reinterpret_cast<uintptr_t>(a) + 20 * MiB);
    EXPECT_EQ(unmaps[0].size, 20 * MiB);
  }
  // Growing again maps the same addresses again.
  char* b2 = static_cast<char*>(A(30 * MiB));
  EXPECT_EQ(b2, b);
  F(b2);
  F(a);
  F(c);
  F(d);
  alloc->empty_cache();
  check_invariants(*alloc, sim);
  EXPECT_EQ(S().all.reserved_bytes.current, 0);
  EXPECT_EQ(sim.used_bytes(0), 0u);
  EXPECT_EQ(sim.counters().reservations_released, 3);
}

TEST_F(AllocTest, ExpandableSegmentOutOfMemoryIsAnOom) {
  set_allocator_config("expandable_segments:True");
  sim.set_capacity(0, 64 * MiB);
  void* a = A(30 * MiB);  // maps 40 MiB (two 20 MiB pages)
  EXPECT_EQ(S().all.reserved_bytes.current, int64_t(40 * MiB));
  try {
    alloc->allocate_on(40 * MiB, s0);
    FAIL() << "expected out of memory";
  } catch (const tsr::Error& e) {
    EXPECT_EQ(e.status(), TSR_ERR_OUT_OF_MEMORY);
  }
  EXPECT_EQ(S().all.num_ooms, 1);
  check_invariants(*alloc, sim);
  F(a);
}

// ---- history and snapshot (record_trace, TraceEntryRingBuffer, snapshot) ---

TEST_F(AllocTest, HistoryPairsEveryAllocWithItsFrees) {
  alloc->record_history(true, 10000);
  Stream s1 = new_stream();
  set_trace_label("op_a");
  void* p = A(1000);
  set_trace_label("");
  void* q = A(5 * MiB);
  void* r = A(3000, s1);
  F(p);
  F(q);
  F(r);
  alloc->empty_cache();
  Snapshot snap = alloc->snapshot();
  EXPECT_EQ(snap.trace_capacity, 10000u);
  std::vector<TraceEntry> t;
  for (auto& e : snap.trace)
    if (e.action != TraceEntry::SNAPSHOT) t.push_back(e);
  // Every alloc has a free_requested then a free_completed for its address.
  auto allocs = of_action(t, TraceEntry::ALLOC);
  ASSERT_EQ(allocs.size(), 3u);
  for (const auto& al : allocs) {
    int stage = 0;
    for (const auto& e : t) {
      if (e.addr != al.addr) continue;
      if (stage == 0 && e.action == TraceEntry::ALLOC) stage = 1;
      else if (stage == 1 && e.action == TraceEntry::FREE_REQUESTED) stage = 2;
      else if (stage == 2 && e.action == TraceEntry::FREE_COMPLETED) stage = 3;
    }
    EXPECT_EQ(stage, 3) << "alloc at " << al.addr;
  }
  // Sizes: alloc, free_requested and free_completed carry the requested size.
  EXPECT_EQ(allocs[0].size, 1000u);
  EXPECT_EQ(allocs[0].label, "op_a");
  EXPECT_EQ(allocs[1].size, 5 * MiB);
  EXPECT_EQ(allocs[1].label, "");
  EXPECT_EQ(allocs[2].stream, s1.id);
  EXPECT_EQ(allocs[0].stream, 0);
  // segment_alloc / segment_free pairs.
  std::multiset<std::pair<uintptr_t, size_t>> segs, freed;
  for (auto& e : of_action(t, TraceEntry::SEGMENT_ALLOC)) segs.insert({e.addr, e.size});
  for (auto& e : of_action(t, TraceEntry::SEGMENT_FREE)) freed.insert({e.addr, e.size});
  EXPECT_EQ(segs.size(), 3u);
  EXPECT_EQ(segs, freed);
  EXPECT_EQ(of_action(t, TraceEntry::SEGMENT_ALLOC)[0].label, "op_a");
  // Order and times.
  EXPECT_EQ(t.front().action, TraceEntry::SEGMENT_ALLOC);
  EXPECT_EQ(t[1].action, TraceEntry::ALLOC);
  for (size_t i = 1; i < t.size(); ++i) EXPECT_GE(t[i].time_us, t[i - 1].time_us);
  EXPECT_GT(t.front().time_us, 0);

  alloc->record_history(false, 0);
  Snapshot off = alloc->snapshot();
  EXPECT_TRUE(off.trace.empty());
  EXPECT_EQ(off.trace_capacity, 0u);
}

TEST_F(AllocTest, HistoryRingKeepsTheNewest) {
  alloc->record_history(true, 5);
  struct Want {
    TraceEntry::Action action;
    uintptr_t addr;
  };
  std::vector<Want> all;
  for (int i = 0; i < 4; ++i) {
    void* p = A(1000);
    if (i == 0) all.push_back({TraceEntry::SEGMENT_ALLOC, reinterpret_cast<uintptr_t>(p)});
    all.push_back({TraceEntry::ALLOC, reinterpret_cast<uintptr_t>(p)});
    F(p);
    all.push_back({TraceEntry::FREE_REQUESTED, reinterpret_cast<uintptr_t>(p)});
    all.push_back({TraceEntry::FREE_COMPLETED, reinterpret_cast<uintptr_t>(p)});
  }
  Snapshot snap = alloc->snapshot();
  ASSERT_EQ(snap.trace.size(), 5u);
  // This snapshot's own entry may or may not be in what it returns.
  std::vector<TraceEntry> t = snap.trace;
  if (t.back().action == TraceEntry::SNAPSHOT) t.pop_back();
  ASSERT_LE(t.size(), all.size());
  for (size_t i = 0; i < t.size(); ++i) {
    const Want& w = all[all.size() - t.size() + i];
    EXPECT_EQ(t[i].action, w.action) << i;
    EXPECT_EQ(t[i].addr, w.addr) << i;
  }
}

TEST_F(AllocTest, SnapshotOfAMixedState) {
  Stream s1 = new_stream();
  sim.hold(s1);
  void* a = A(1000);
  void* b = A(3 * MiB);
  void* c = A(12 * MiB);
  void* d = A(700, s1);
  void* e = A(5000);
  alloc->record_stream(e, s1);
  F(e);  // pending
  F(b);  // cached inside a split segment
  Snapshot snap = alloc->snapshot();
  check_snapshot(snap);
  EXPECT_EQ(snap.device, sim.device(0));
  EXPECT_EQ(find_block(snap, e)->state, BlockSnapshot::ACTIVE_PENDING_FREE);
  EXPECT_EQ(find_block(snap, e)->requested_size, 5000u);
  EXPECT_EQ(find_block(snap, b)->state, BlockSnapshot::INACTIVE);
  EXPECT_EQ(find_block(snap, c)->requested_size, 12 * MiB);
  EXPECT_TRUE(find_segment(snap, a)->small_pool);
  EXPECT_FALSE(find_segment(snap, c)->small_pool);
  EXPECT_EQ(find_segment(snap, d)->stream, s1.id);
  sim.release(s1);
  sim.synchronize_stream(s1);
  F(a);
  F(c);
  F(d);
}

// ---- lifetime and threads ----------------------------------------------------

TEST_F(AllocTest, DestructorReturnsEverything) {
  Stream s1 = new_stream();
  A(1000);
  A(30 * MiB);
  void* p = A(5 * MiB, s1);
  alloc->record_stream(p, s0);
  alloc->free(p);
  EXPECT_GT(sim.used_bytes(0), 0u);
  alloc.reset();
  EXPECT_EQ(sim.used_bytes(0), 0u);
  EXPECT_EQ(sim.live_segments(0), 0u);
  EXPECT_EQ(sim.live_events(), 0u) << "events the allocator created are destroyed with it";
}

TEST_F(AllocTest, ConcurrentAllocateAndFree) {
  std::vector<Stream> streams = {s0, new_stream(), new_stream()};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      std::vector<void*> live;
      uint32_t x = 12345u + t;
      for (int i = 0; i < 300; ++i) {
        x = x * 1664525u + 1013904223u;
        size_t n = (x >> 8) % 3 == 0 ? (x >> 4) % (12 * MiB) + 1 : (x >> 4) % (64 * KiB) + 1;
        live.push_back(alloc->allocate_on(n, streams[t]));
        if (live.size() > 8 || (x & 1)) {
          alloc->free(live.front());
          live.erase(live.begin());
        }
      }
      for (void* p : live) alloc->free(p);
    });
  for (auto& th : threads) th.join();
  check_invariants(*alloc, sim);
  EXPECT_EQ(S().all.allocated_bytes.current, 0);
  alloc->empty_cache();
  EXPECT_EQ(S().all.reserved_bytes.current, 0);
}

}  // namespace
}  // namespace tsr::alloc::testing
