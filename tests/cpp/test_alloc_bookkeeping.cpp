// The caching allocator's bookkeeping costs no heap allocation once warm:
// a block keeps its free-set and active-map nodes for life, and blocks
// merged away are kept (SpareBlocks) for the next split. This executable
// counts heap allocations (counting_new.h); the statistics are checked to
// be what they were before (the same as a fresh allocator's for the same
// calls).
#include "alloc_test_util.h"
#include "counting_new.h"

namespace tsr::alloc::testing {
namespace {

// One round: three small blocks split off a segment, freed in an order that
// merges each with its neighbours; then a large split and merge.
void round_trip(CachingAllocator& a, Stream s) {
  void* p1 = a.allocate_on(1000, s);
  void* p2 = a.allocate_on(3000, s);
  void* p3 = a.allocate_on(512, s);
  a.free(p2);
  a.free(p1);
  a.free(p3);
  void* big = a.allocate_on(3 * MiB, s);
  void* big2 = a.allocate_on(2 * MiB, s);
  a.free(big);
  a.free(big2);
}

TEST_F(AllocTest, SplitAndMergeAllocateNothingOnceWarm) {
  round_trip(*alloc, s0);  // warm: segments and the first blocks made
  const DeviceStats before = S();
  EXPECT_EQ(tsr::heap_count::news_during([&] {
              for (int i = 0; i < 100; ++i) round_trip(*alloc, s0);
            }),
            0)
      << "heap allocations in 100 warm rounds";
  check_invariants(*alloc, sim);
  // The same calls on a fresh allocator give the same counters per round.
  const DeviceStats after = S();
  EXPECT_EQ(after.all.num_device_alloc, before.all.num_device_alloc);
  EXPECT_EQ(after.all.allocation.allocated - before.all.allocation.allocated, 100 * 5);
  EXPECT_EQ(after.all.allocation.current, 0);
  EXPECT_EQ(after.all.inactive_split.current, before.all.inactive_split.current);
  EXPECT_EQ(after.all.inactive_split_bytes.current, before.all.inactive_split_bytes.current);
  EXPECT_EQ(after.all.reserved_bytes.current, before.all.reserved_bytes.current);
  Snapshot snap = alloc->snapshot();
  check_snapshot(snap);
}

// A spare block reused for a split is a fresh block in every field the
// snapshot shows (address, size, state, requested bytes).
TEST_F(AllocTest, ReusedBlocksSnapshotLikeNewOnes) {
  round_trip(*alloc, s0);
  char* p1 = static_cast<char*>(A(1000));
  char* p2 = static_cast<char*>(A(700));
  EXPECT_EQ(p2, p1 + 1024);
  Snapshot snap = alloc->snapshot();
  check_snapshot(snap);
  bool found = false;
  for (const SegmentSnapshot& seg : snap.segments)
    for (const BlockSnapshot& b : seg.blocks)
      if (b.address == uintptr_t(p2)) {
        found = true;
        EXPECT_EQ(b.size, 1024u);
        EXPECT_EQ(b.requested_size, 700u);
        EXPECT_EQ(b.state, BlockSnapshot::ACTIVE_ALLOCATED);
      }
  EXPECT_TRUE(found);
  F(p1);
  F(p2);
  EXPECT_EQ(S().all.inactive_split.current, 0);
}

}  // namespace
}  // namespace tsr::alloc::testing
