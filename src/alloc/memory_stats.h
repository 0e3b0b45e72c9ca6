// The caching allocator's statistics, with the names and update rules of
// PyTorch's c10::CachingDeviceAllocator::DeviceStats (torch.cuda.memory_stats):
// aggregated over both pools ("all") and per pool. The public mirror is
// tsr_memory_stats_t in include/tessera/allocator.h.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tsr::alloc {

// One tracked quantity (a count or a number of bytes).
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;       // highest `current` since start or reset_peak()
  int64_t allocated = 0;  // sum of increases since start or reset_accumulated()
  int64_t freed = 0;      // sum of decreases since start or reset_accumulated()

  // A signed change: PyTorch applies some changes (inactive_split on a merge)
  // as one net amount, so both directions go through here.
  void update(int64_t amount) {
    current += amount;
    peak = std::max(peak, current);
    if (amount > 0) allocated += amount;
    else freed -= amount;
  }
  void reset_peak() { peak = current; }
  void reset_accumulated() { allocated = freed = 0; }
};

struct MemoryStats {
  // Counts.
  Stat allocation;      // blocks handed out and not yet freed
  Stat segment;         // segments obtained from the OS and not yet returned
  Stat active;          // blocks in use (equals allocation on CPU: no streams)
  Stat inactive_split;  // free blocks inside partly used segments
  // Bytes.
  Stat allocated_bytes;       // sizes of allocated blocks (after rounding)
  Stat reserved_bytes;        // sizes of segments held
  Stat active_bytes;          // sizes of active blocks
  Stat inactive_split_bytes;  // sizes of inactive split blocks
  Stat requested_bytes;       // bytes callers asked for (before rounding)
  // Blocks and segments of at least max_split_size bytes (never split).
  Stat oversize_allocations;
  Stat oversize_segments;
  // Events.
  int64_t num_alloc_retries = 0;  // OS refusals retried after freeing the cache
  int64_t num_ooms = 0;           // out-of-memory errors raised
  int64_t num_device_alloc = 0;   // segments obtained from the OS
  int64_t num_device_free = 0;    // segments returned to the OS
  int64_t num_sync_all_streams = 0;  // waits for every outstanding event (empty_cache, OOM)

  template <typename Fn>
  void for_each_stat(Fn&& fn) {
    for (Stat* s : {&allocation, &segment, &active, &inactive_split, &allocated_bytes,
                    &reserved_bytes, &active_bytes, &inactive_split_bytes, &requested_bytes,
                    &oversize_allocations, &oversize_segments})
      fn(*s);
  }
  void reset_peak() {
    for_each_stat([](Stat& s) { s.reset_peak(); });
  }
  // Same set as PyTorch's resetAccumulatedStats: the totals and the events.
  void reset_accumulated() {
    for_each_stat([](Stat& s) { s.reset_accumulated(); });
    num_alloc_retries = num_ooms = num_device_alloc = num_device_free = 0;
    num_sync_all_streams = 0;
  }
};

// PyTorch's StatArray: every stat over both pools and per pool. Only `all`
// holds the event counters and the oversize stats.
struct DeviceStats {
  MemoryStats all;
  MemoryStats small_pool;  // blocks of requests <= 1 MiB, 2 MiB segments
  MemoryStats large_pool;

  // Changes one stat in `all` and in the block's pool.
  void update(Stat MemoryStats::*stat, bool small, int64_t amount) {
    (all.*stat).update(amount);
    // A named reference, not ((small ? small_pool : large_pool).*stat):
    // GCC 12 applies .* to a copy of the conditional's result there, so the
    // per-pool stats stayed 0.
    MemoryStats& pool = small ? small_pool : large_pool;
    (pool.*stat).update(amount);
  }
  void reset_peak() {
    for (MemoryStats* m : {&all, &small_pool, &large_pool}) m->reset_peak();
  }
  void reset_accumulated() {
    for (MemoryStats* m : {&all, &small_pool, &large_pool}) m->reset_accumulated();
  }
};

}  // namespace tsr::alloc
