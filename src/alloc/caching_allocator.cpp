// PyTorch's DeviceCachingAllocator (c10/cuda/CUDACachingAllocator.cpp) over
// a DeviceBackend. The rules are summarised in caching_allocator.h; the
// comments below name the PyTorch function each part follows.
#include "alloc/caching_allocator.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

// Free memory is poisoned under ASan (the macros are no-ops otherwise), so a
// use after free, or a read past the requested bytes into the rounding slack,
// is reported although the memory stays mapped in the cache.
// Only on the CPU, whose work is synchronous: on a device with streams a
// freed block may still be written by work queued before the free (stream-
// ordered reuse), which is correct and must not be reported.
#include <sanitizer/asan_interface.h>
#define TSR_POISON_FREE(device, p, n)                                  \
  do {                                                                 \
    if ((device).type == TSR_DEVICE_CPU) ASAN_POISON_MEMORY_REGION(p, n); \
  } while (0)

#include "alloc/block.h"
#include "alloc/describe_bytes.h"
#include "core/error.h"

namespace tsr::alloc {
namespace {

constexpr size_t kMinBlockSize = 512;        // every size rounds up to a multiple
constexpr size_t kSmallSize = 1 << 20;       // largest request of the small pool
constexpr size_t kSmallBuffer = 2 << 20;     // segment size of the small pool
constexpr size_t kLargeBuffer = 20 << 20;    // shared segment for 1-10 MiB requests
constexpr size_t kMinLargeAlloc = 10 << 20;  // from here a request gets its own segment,
constexpr size_t kRoundLarge = 2 << 20;      // rounded up to a multiple of this
// Largest request considered: the roundings below cannot overflow size_t.
constexpr size_t kMaxRequest = size_t(PTRDIFF_MAX);

size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// PyTorch's roundup_power2_next_division.
size_t roundup_power2_next_division(size_t size, size_t divisions) {
  if (std::has_single_bit(size)) return size;
  const size_t power2_floor = std::bit_floor(size);
  const size_t power2_division = power2_floor >> (63 - std::countl_zero(uint64_t(divisions)));
  if (power2_division == 0) return power2_floor << 1;
  const size_t round_size_floor = size & ~(power2_division - 1);
  return round_size_floor == size ? size : round_size_floor + power2_division;
}

// PyTorch's round_size.
size_t round_size(size_t size, const AllocatorConfig& config) {
  if (size < kMinBlockSize) return kMinBlockSize;
  const size_t divisions = config.divisions_for(size);
  if (divisions > 1 && size > kMinBlockSize * divisions)
    return roundup_power2_next_division(size, divisions);
  return round_up(size, kMinBlockSize);
}

// PyTorch's get_allocation_size.
size_t segment_size_for(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return round_up(size, kRoundLarge);
}

// "CPU", "CUDA": how PyTorch's messages begin ("CUDA out of memory.").
std::string upper_device_type(Device d) {
  std::string name = device_name(d);
  name = name.substr(0, name.find(':'));
  for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What one allocation is looking for (PyTorch's AllocParams).
struct Request {
  size_t size;     // rounded block size
  size_t nbytes;   // what the caller asked for
  size_t segment;  // segment size a new segment would have
  int64_t stream;
  BlockPool* pool;
  Block* block = nullptr;  // what the search or the device gave
  std::string why;         // the device's reason for its last refusal
  bool limited = false;    // the last refusal was the memory limit
};

}  // namespace

struct CachingAllocator::Impl {
  Impl(DeviceBackend& b, int32_t index) : backend(b), device{b.type(), index} {}

  DeviceBackend& backend;
  const Device device;

  std::mutex mutex;  // guards everything below
  BlockPool small_blocks{true};
  BlockPool large_blocks{false};
  ActiveMap active_blocks;  // allocated or awaiting events
  SpareBlocks spare_blocks;  // merged-away blocks for the next split
  // Per stream, the events recorded at free time and their blocks, oldest
  // first (PyTorch's cuda_events).
  std::map<int64_t, std::deque<std::pair<EventHandle, Block*>>> outstanding_events;
  std::vector<EventHandle> event_pool;  // recorded-and-completed events for reuse
  std::vector<std::unique_ptr<ExpandableSegment>> expandable_segments;
  DeviceStats stats;
  size_t limit = 0;                // cap on reserved bytes; 0: none
  size_t reserved = 0;             // PyTorch's total_allocated_memory
  TraceRing trace;
  std::shared_ptr<const AllocatorConfig> config;
  uint64_t config_generation = ~uint64_t(0);

  // ---- settings -----------------------------------------------------------
  // Re-reads the settings when tsr_set_allocator_settings changed them;
  // throws the TSR_ALLOC_CONF parse error while that is invalid.
  const AllocatorConfig& settings() {
    const uint64_t g = allocator_config_generation();
    if (!config || g != config_generation) {
      config = allocator_config();
      config_generation = g;
    }
    return *config;
  }

  // PyTorch's `set_fraction && garbage_collection_threshold > 0`: garbage
  // collection (and the block ages it needs) only under a memory limit.
  bool gc_enabled(const AllocatorConfig& config) const {
    return limit != 0 && config.garbage_collection_threshold > 0;
  }
  // True when `bytes` more reserved memory would pass the memory limit.
  bool would_pass_limit(size_t bytes) const {
    return limit != 0 && (reserved > limit || bytes > limit - reserved);
  }

  BlockPool& pool_of(bool small) { return small ? small_blocks : large_blocks; }
  void add_free(Block* b) {
    BlockPool& pool = pool_of(b->small);
    b->gc_count_base = pool.get_free_blocks_call_count;
    b->node.value() = entry_of(b);
    (b->mapped ? pool.blocks : pool.unmapped).insert(std::move(b->node));
  }
  void take_free(Block* b) {
    BlockPool& pool = pool_of(b->small);
    b->node = (b->mapped ? pool.blocks : pool.unmapped).extract(entry_of(b));
  }
  // A new block for a split: a spare one when there is one.
  std::unique_ptr<Block> new_block(char* ptr, size_t size, int64_t stream, bool small) {
    return spare_blocks.take(ptr, size, stream, small);
  }

  void record_trace(TraceEntry::Action action, uintptr_t addr, size_t size, int64_t stream) {
    if (!trace.enabled()) return;
    trace.push({action, addr, size, stream, now_us(), trace_label()});
  }

  void* allocate(size_t nbytes, int64_t stream);
  bool get_free_block(Request& r, const AllocatorConfig& config);
  bool alloc_block(Request& r, bool is_retry, const AllocatorConfig& config);
  Block* try_allocate_expandable_block(Request& r);
  Block* find_expandable_block(Request& r);
  bool map_block(Block* to_map, size_t size, Request& r);
  void* alloc_found_block(Block* block, Request& r, const AllocatorConfig& config);
  void free(Block* block) noexcept;
  void free_block(Block* block) noexcept;
  size_t try_merge_blocks(Block* dst, Block* src) noexcept;
  void garbage_collect_cached_blocks(const AllocatorConfig& config) noexcept;
  bool release_available_cached_blocks(const Request& r, const AllocatorConfig& config) noexcept;
  void release_cached_blocks() noexcept;
  void release_blocks(BlockPool& pool) noexcept;
  void release_block(Block* block) noexcept;
  void unmap_block(Block* block) noexcept;
  void release_expandable_segment(Block* block) noexcept;
  void insert_events(Block* block);
  void process_events() noexcept;
  void synchronize_and_free_events() noexcept;
  EventHandle take_event();
  std::string out_of_memory_message(const Request& r);
  Snapshot snapshot();
  void release_everything() noexcept;
};

// ---- allocation (PyTorch's malloc) -----------------------------------------

void* CachingAllocator::Impl::allocate(size_t nbytes, int64_t stream) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  const AllocatorConfig& config = settings();
  TSR_CHECK(nbytes <= kMaxRequest, TSR_ERR_OUT_OF_MEMORY, upper_device_type(device),
            " out of memory. Tried to allocate ", describe_bytes(nbytes),
            ", more than the address space holds.");
  // Blocks whose streams have finished with them are free again first.
  process_events();
  const size_t size = round_size(nbytes, config);
  Request r{size, nbytes, segment_size_for(size), stream, &pool_of(size <= kSmallSize), nullptr,
            {}, false};

  if (!get_free_block(r, config)) {
    if (gc_enabled(config)) garbage_collect_cached_blocks(config);
    const bool found =
        alloc_block(r, false, config) ||
        // Free cached oversize blocks enough for this request, retry.
        (release_available_cached_blocks(r, config) && alloc_block(r, false, config)) ||
        // Free every cached whole segment, retry.
        (release_cached_blocks(), alloc_block(r, true, config));
    if (!found) {
      ++stats.all.num_ooms;
      const DeviceMemoryInfo info = backend.memory_info(device.index);
      record_trace(TraceEntry::OOM, info.free_bytes, r.size, stream);
      fail(TSR_ERR_OUT_OF_MEMORY, out_of_memory_message(r));
    }
  }
  return alloc_found_block(r.block, r, config);
}

// PyTorch's get_free_block: the best fit of the request's stream, except
// that oversize blocks serve only requests close to their size.
bool CachingAllocator::Impl::get_free_block(Request& r, const AllocatorConfig& config) {
  BlockPool& pool = *r.pool;
  if (gc_enabled(config)) ++pool.get_free_blocks_call_count;
  auto it = pool.blocks.lower_bound({r.stream, r.size, nullptr, nullptr});
  const auto end = pool.blocks.end();
  if (it == end || it->stream != r.stream) return false;
  if (it->block->expandable) {
    if (config.expandable_segments) {
      // A free block at the end of the mapped part can grow into the
      // unmapped range after it: best fit compares what blocks can become.
      auto expandable_size = [](const Block* b) {
        return b->size + (b->next && !b->next->mapped ? b->next->size : 0);
      };
      for (auto next = std::next(it); it->block->expandable && next != end &&
                                      next->stream == r.stream &&
                                      expandable_size(next->block) < expandable_size(it->block);
           ++next)
        it = next;
    } else {
      // expandable_segments was turned off after some were made: use them
      // no more.
      do ++it;
      while (it != end && it->block->expandable && it->stream == r.stream);
      if (it == end || it->stream != r.stream) return false;
    }
  }
  if (r.size < config.max_split_size && it->size >= config.max_split_size) return false;
  if (r.size >= config.max_split_size && it->size >= r.size + kLargeBuffer) return false;
  r.block = it->block;
  take_free(r.block);
  return true;
}

// PyTorch's alloc_block: a new segment from the device (or more pages of an
// expandable segment). False when the device or the memory limit refuses.
bool CachingAllocator::Impl::alloc_block(Request& r, bool is_retry, const AllocatorConfig& config) {
  if (is_retry) ++stats.all.num_alloc_retries;
  if (config.expandable_segments && backend.page_granularity(device.index) != 0) {
    r.block = try_allocate_expandable_block(r);
    return r.block != nullptr;
  }
  const size_t size = r.segment;
  if (would_pass_limit(size)) {
    r.limited = true;
    return false;
  }
  // The block first: if it cannot be made there is no segment to undo.
  std::unique_ptr<Block> block = make_block(nullptr, size, r.stream, r.pool->small);
  void* p = backend.allocate_segment(device.index, size, &r.why);
  if (!p) {
    r.limited = false;
    return false;
  }
  TSR_POISON_FREE(device, p, size);
  block->ptr = static_cast<char*>(p);
  reserved += size;
  stats.update(&MemoryStats::segment, r.pool->small, 1);
  stats.update(&MemoryStats::reserved_bytes, r.pool->small, int64_t(size));
  if (size >= config.max_split_size) stats.all.oversize_segments.update(1);
  ++stats.all.num_device_alloc;
  record_trace(TraceEntry::SEGMENT_ALLOC, uintptr_t(p), size, r.stream);
  r.block = block.release();
  return true;
}

// PyTorch's alloc_found_block: takes r.size bytes from the front of the
// block (which is in no free set) and returns them.
void* CachingAllocator::Impl::alloc_found_block(Block* block, Request& r,
                                                const AllocatorConfig& config) {
  const size_t size = r.size;
  const size_t rest_size = block->size - size;
  // PyTorch's should_split: a small-pool rest of one minimum block is useful;
  // in the large pool a rest of at most 1 MiB would only serve small requests
  // (which never come here) and would fragment the segment. Expandable
  // segments can always give whole pages back, so they split as small.
  const bool split = block->small || config.expandable_segments
                         ? rest_size >= kMinBlockSize
                         : size < config.max_split_size && rest_size > kSmallSize;

  // What may throw (bad_alloc) comes first; on failure the block goes back.
  std::unique_ptr<Block> rest;
  try {
    if (split) rest = new_block(block->ptr + size, rest_size, block->stream, block->small);
    // The block's parked node: no allocation unless the map grows its
    // buckets (which may throw; the node then stays with the block).
    block->active_node.key() = block->ptr;
    block->active_node.mapped() = block;
    active_blocks.insert(std::move(block->active_node));
  } catch (...) {
    add_free(block);
    throw;
  }

  const bool was_split = block->is_split();
  const bool small = block->small;
  if (rest) {
    rest->expandable = block->expandable;
    block->size = size;
    rest->prev = block;
    rest->next = block->next;
    if (block->next) block->next->prev = rest.get();
    block->next = rest.get();
    add_free(rest.release());
    // inactive_split is not kept for expandable blocks (nor in PyTorch):
    // their free pages can always be given back.
    if (!block->expandable) {
      if (was_split) {
        stats.update(&MemoryStats::inactive_split_bytes, small, -int64_t(size));
      } else {
        stats.update(&MemoryStats::inactive_split, small, 1);
        stats.update(&MemoryStats::inactive_split_bytes, small, int64_t(rest_size));
      }
    }
  } else if (was_split && !block->expandable) {
    stats.update(&MemoryStats::inactive_split, small, -1);
    stats.update(&MemoryStats::inactive_split_bytes, small, -int64_t(block->size));
  }
  block->allocated = true;
  block->requested = r.nbytes;
  stats.update(&MemoryStats::allocation, small, 1);
  stats.update(&MemoryStats::active, small, 1);
  stats.update(&MemoryStats::allocated_bytes, small, int64_t(block->size));
  stats.update(&MemoryStats::active_bytes, small, int64_t(block->size));
  stats.update(&MemoryStats::requested_bytes, small, int64_t(r.nbytes));
  if (block->size >= config.max_split_size) stats.all.oversize_allocations.update(1);
  // Trace sizes are the caller's bytes, as PyTorch records them.
  record_trace(TraceEntry::ALLOC, uintptr_t(block->ptr), r.nbytes, block->stream);
  ASAN_UNPOISON_MEMORY_REGION(block->ptr, r.nbytes);
  return block->ptr;
}

// ---- expandable segments ---------------------------------------------------

// PyTorch's find_expandable_block: a run of free and unmapped blocks of the
// request's stream with room for it, or a fresh reservation.
Block* CachingAllocator::Impl::find_expandable_block(Request& r) {
  BlockPool& pool = *r.pool;
  auto allocatable = [](const Block* b) {
    return b && b->expandable && !b->allocated && b->event_count == 0 && b->stream_uses.empty();
  };
  auto has_room = [&](const Block* b) {
    size_t bytes = 0;
    for (; bytes < r.size && allocatable(b); b = b->next) bytes += b->size;
    return bytes >= r.size;
  };
  for (auto it = pool.unmapped.lower_bound({r.stream, 0, nullptr, nullptr});
       it != pool.unmapped.end() && it->stream == r.stream; ++it) {
    Block* c = it->block;
    // A free mapped block right before the unmapped range grows into it.
    if (allocatable(c->prev)) c = c->prev;
    if (has_room(c)) return c;
  }
  // A new reservation of the device's memory and an eighth more (PyTorch),
  // mapped in units of the pool's segment size.
  const size_t granularity = backend.page_granularity(device.index);
  const size_t page = round_up(pool.small ? kSmallBuffer : kLargeBuffer, granularity);
  const size_t total = backend.memory_info(device.index).total_bytes;
  const size_t bytes = round_up(std::max(total + total / 8, r.size), page);
  auto segment = std::make_unique<ExpandableSegment>();
  std::unique_ptr<Block> block = make_block(nullptr, bytes, r.stream, pool.small);
  expandable_segments.reserve(expandable_segments.size() + 1);
  void* base = backend.reserve_address_space(device.index, bytes);
  if (!base) {
    r.why = "could not reserve address space for an expandable segment";
    return nullptr;
  }
  *segment = {static_cast<char*>(base), bytes, page, r.stream, pool.small};
  block->ptr = segment->base;
  block->mapped = false;
  block->expandable = segment.get();
  expandable_segments.push_back(std::move(segment));
  Block* b = block.release();
  add_free(b);
  return b;
}

// PyTorch's try_allocate_expandable_block.
Block* CachingAllocator::Impl::try_allocate_expandable_block(Request& r) {
  Block* candidate = find_expandable_block(r);
  if (!candidate) return nullptr;
  if (!candidate->mapped && !map_block(candidate, std::min(candidate->size, r.size), r))
    return nullptr;
  while (candidate->size < r.size) {
    // Invariant: a free mapped block, then an unmapped one. Mapping the
    // latter merges the two.
    Block* next = candidate->next;
    if (!map_block(next, std::min(r.size - candidate->size, next->size), r)) return nullptr;
    candidate = next;
  }
  take_free(candidate);
  return candidate;
}

// PyTorch's map_block: backs the first `size` bytes (rounded up to pages) of
// an unmapped block with memory and merges it with free neighbours.
bool CachingAllocator::Impl::map_block(Block* to_map, size_t size, Request& r) {
  const ExpandableSegment& es = *to_map->expandable;
  const size_t bytes = std::min(round_up(size, es.page), to_map->size);
  if (would_pass_limit(bytes)) {
    r.limited = true;
    return false;
  }
  std::unique_ptr<Block> rest;
  if (bytes < to_map->size)
    rest = new_block(to_map->ptr + bytes, to_map->size - bytes, to_map->stream, to_map->small);
  if (!backend.map_pages(device.index, to_map->ptr, bytes, &r.why)) {
    r.limited = false;
    return false;
  }
  TSR_POISON_FREE(device, to_map->ptr, bytes);
  const uintptr_t mapped = uintptr_t(to_map->ptr);  // before merges move ptr
  take_free(to_map);
  to_map->mapped = true;
  if (rest) {
    rest->mapped = false;
    rest->expandable = to_map->expandable;
    rest->prev = to_map;
    rest->next = to_map->next;
    if (to_map->next) to_map->next->prev = rest.get();
    to_map->next = rest.get();
    to_map->size = bytes;
    add_free(rest.release());
  }
  try_merge_blocks(to_map, to_map->prev);
  try_merge_blocks(to_map, to_map->next);
  add_free(to_map);
  reserved += bytes;
  stats.update(&MemoryStats::reserved_bytes, to_map->small, int64_t(bytes));
  ++stats.all.num_device_alloc;
  record_trace(TraceEntry::SEGMENT_MAP, mapped, bytes, to_map->stream);
  return true;
}

// PyTorch's unmap_block: gives back the whole pages inside a free block.
void CachingAllocator::Impl::unmap_block(Block* block) noexcept {
  const ExpandableSegment& es = *block->expandable;
  const size_t offset = size_t(block->ptr - es.base);
  char* begin = es.base + round_up(offset, es.page);
  char* end = es.base + (offset + block->size) / es.page * es.page;
  if (begin >= end) return;
  take_free(block);
  const size_t before = size_t(begin - block->ptr);
  const size_t after = size_t(block->ptr + block->size - end);
  if (before > 0) {
    Block* b = make_block(block->ptr, before, block->stream, block->small).release();
    b->expandable = block->expandable;
    b->prev = block->prev;
    b->next = block;
    if (b->prev) b->prev->next = b;
    block->prev = b;
    add_free(b);
  }
  if (after > 0) {
    Block* a = make_block(end, after, block->stream, block->small).release();
    a->expandable = block->expandable;
    a->prev = block;
    a->next = block->next;
    if (a->next) a->next->prev = a;
    block->next = a;
    add_free(a);
  }
  const size_t bytes = size_t(end - begin);
  // Work queued on the segment's stream may still use the pages (PyTorch's
  // ExpandableSegment::unmapHandles synchronizes the stream first).
  try {
    backend.synchronize_stream(Stream{device, block->stream});
  } catch (...) {
  }
  ASAN_UNPOISON_MEMORY_REGION(begin, bytes);
  backend.unmap_pages(device.index, begin, bytes);
  block->ptr = begin;
  block->size = bytes;
  block->mapped = false;
  try_merge_blocks(block, block->prev);
  try_merge_blocks(block, block->next);
  add_free(block);
  reserved -= bytes;
  stats.update(&MemoryStats::reserved_bytes, block->small, -int64_t(bytes));
  ++stats.all.num_device_free;
  record_trace(TraceEntry::SEGMENT_UNMAP, uintptr_t(begin), bytes, block->stream);
}

// A reservation that is one unmapped block again goes back to the device.
void CachingAllocator::Impl::release_expandable_segment(Block* block) noexcept {
  ExpandableSegment* es = block->expandable;
  take_free(block);
  backend.release_address_space(device.index, es->base, es->reserved);
  std::erase_if(expandable_segments, [es](const auto& p) { return p.get() == es; });
  delete block;
}

// ---- freeing -----------------------------------------------------------------

// PyTorch's free: the caller is done; streams that used the block may not be.
void CachingAllocator::Impl::free(Block* block) noexcept {
  const bool small = block->small;
  block->allocated = false;
  stats.update(&MemoryStats::allocation, small, -1);
  stats.update(&MemoryStats::allocated_bytes, small, -int64_t(block->size));
  record_trace(TraceEntry::FREE_REQUESTED, uintptr_t(block->ptr), block->requested, block->stream);
  if (config && block->size >= config->max_split_size) stats.all.oversize_allocations.update(-1);
  if (block->stream_uses.empty()) {
    free_block(block);
    return;
  }
  try {
    insert_events(block);
    // Events that completed when recorded (every CPU event) free the block
    // now rather than at the next allocation: on the CPU, record_stream
    // leaves no block pending (active == allocation, nothing for
    // empty_cache to wait for). Elsewhere this is one poll per stream.
    process_events();
  } catch (...) {
    // No event could be recorded: wait for the device instead, which is
    // what the events would have told.
    try {
      backend.synchronize_device(device.index);
    } catch (...) {
    }
    block->stream_uses.clear();
    if (block->event_count == 0) free_block(block);
  }
}

// PyTorch's free_block: back into the free set, merged with free neighbours.
void CachingAllocator::Impl::free_block(Block* block) noexcept {
  const bool small = block->small;
  const size_t original_size = block->size;
  if (auto node = active_blocks.extract(block->ptr)) block->active_node = std::move(node);
  TSR_POISON_FREE(device, block->ptr, block->size);
  record_trace(TraceEntry::FREE_COMPLETED, uintptr_t(block->ptr), block->requested, block->stream);

  // Merged neighbours stop being inactive split blocks; the merged block is
  // one if its segment is still split.
  int64_t split_blocks = 0, split_bytes = 0;
  for (Block* neighbour : {block->prev, block->next}) {
    if (const size_t subsumed = try_merge_blocks(block, neighbour)) {
      split_blocks -= 1;
      split_bytes -= int64_t(subsumed);
    }
  }
  if (block->is_split()) {
    split_blocks += 1;
    split_bytes += int64_t(block->size);
  }
  if (!block->expandable) {
    stats.update(&MemoryStats::inactive_split, small, split_blocks);
    stats.update(&MemoryStats::inactive_split_bytes, small, split_bytes);
  }
  stats.update(&MemoryStats::active, small, -1);
  stats.update(&MemoryStats::active_bytes, small, -int64_t(original_size));
  stats.update(&MemoryStats::requested_bytes, small, -int64_t(block->requested));
  block->requested = 0;
  add_free(block);
}

// PyTorch's try_merge_blocks: absorbs src into dst (dst in no set) when src
// is free (not allocated, not awaiting events) and mapped alike. Returns the
// bytes absorbed, 0 when it did not merge.
size_t CachingAllocator::Impl::try_merge_blocks(Block* dst, Block* src) noexcept {
  if (!src || src->allocated || src->event_count > 0 || !src->stream_uses.empty() ||
      dst->mapped != src->mapped)
    return 0;
  BlockPool& pool = pool_of(src->small);
  src->node = (src->mapped ? pool.blocks : pool.unmapped).extract(entry_of(src));
  if (dst->prev == src) {
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next) dst->next->prev = dst;
  }
  const size_t subsumed = src->size;
  dst->size += subsumed;
  spare_blocks.give(src);
  return subsumed;
}

// ---- streams and events ----------------------------------------------------

EventHandle CachingAllocator::Impl::take_event() {
  if (!event_pool.empty()) {
    EventHandle e = event_pool.back();
    event_pool.pop_back();
    return e;
  }
  return backend.create_event(device.index, /*timing=*/false);
}

// PyTorch's insert_events: one event per stream that used the block,
// recorded now; the block is free when all have completed.
void CachingAllocator::Impl::insert_events(Block* block) {
  std::vector<int64_t> streams = std::move(block->stream_uses);
  block->stream_uses.clear();
  for (int64_t s : streams) {
    EventHandle e = take_event();
    try {
      backend.record_event(e, Stream{device, s});
      outstanding_events[s].emplace_back(e, block);
    } catch (...) {
      backend.destroy_event(e);
      throw;
    }
    ++block->event_count;
  }
}

// PyTorch's process_events: polls each stream's events in order; the first
// incomplete one ends that stream's scan. Never waits.
void CachingAllocator::Impl::process_events() noexcept {
  for (auto it = outstanding_events.begin(); it != outstanding_events.end();) {
    auto& queue = it->second;
    while (!queue.empty()) {
      auto [event, block] = queue.front();
      bool done;
      try {
        done = backend.query_event(event);
      } catch (...) {
        done = false;
      }
      if (!done) break;
      queue.pop_front();
      try {
        event_pool.push_back(event);
      } catch (...) {
        backend.destroy_event(event);
      }
      if (--block->event_count == 0) free_block(block);
    }
    it = queue.empty() ? outstanding_events.erase(it) : std::next(it);
  }
}

// PyTorch's synchronize_and_free_events: waits for every outstanding event
// (empty_cache, and before giving up on an allocation).
// Counted only when there were events to wait for (PyTorch counts every
// call): on the CPU, where events complete at once, the count stays 0.
void CachingAllocator::Impl::synchronize_and_free_events() noexcept {
  if (outstanding_events.empty()) return;
  ++stats.all.num_sync_all_streams;
  for (auto& [stream, queue] : outstanding_events) {
    for (auto [event, block] : queue) {
      try {
        backend.synchronize_event(event);
      } catch (...) {
      }
      backend.destroy_event(event);
      if (--block->event_count == 0) free_block(block);
    }
  }
  outstanding_events.clear();
}

// ---- giving memory back ------------------------------------------------------

// PyTorch's garbage_collect_cached_blocks: frees whole cached segments of
// the large pool whose age is at least the average, until reserved bytes
// are below threshold * limit, without waiting for any stream.
void CachingAllocator::Impl::garbage_collect_cached_blocks(const AllocatorConfig& config) noexcept {
  const size_t gc_threshold = size_t(config.garbage_collection_threshold * double(limit));
  if (reserved <= gc_threshold) return;
  const size_t target = reserved - gc_threshold;
  BlockPool& pool = large_blocks;
  auto age = [&](const Block* b) { return pool.get_free_blocks_call_count - b->gc_count_base; };
  int64_t total_age = 0, freeable = 0;
  for (const FreeEntry& e : pool.blocks)
    if (!e.block->is_split() && !e.block->expandable) {
      total_age += age(e.block);
      ++freeable;
    }
  size_t reclaimed = 0;
  bool freed = true;
  while (reclaimed < target && freed && freeable > 0) {
    const double age_threshold = double(total_age) / double(freeable);
    freed = false;
    // Not stopping at the target: this should not run again soon.
    for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
      Block* b = it->block;
      ++it;
      if (!b->is_split() && !b->expandable && double(age(b)) >= age_threshold) {
        freed = true;
        reclaimed += b->size;
        total_age -= age(b);
        --freeable;
        release_block(b);
      }
    }
  }
}

// PyTorch's release_available_cached_blocks: with max_split_size set, frees
// one cached oversize segment large enough for the request, or else the
// largest ones of the request's stream until enough is freed.
bool CachingAllocator::Impl::release_available_cached_blocks(const Request& r,
                                                             const AllocatorConfig& config) noexcept {
  if (config.max_split_size == std::numeric_limits<size_t>::max()) return false;
  FreeSet& set = r.pool->blocks;
  const size_t key_size = std::max(r.size, config.max_split_size);
  auto it = set.lower_bound({r.stream, key_size, nullptr, nullptr});
  if (it == set.end() || it->stream != r.stream || it->block->expandable) {
    if (it == set.begin()) return false;
    size_t released = 0;
    --it;  // the largest block of the request's stream, if any
    while (released < key_size && it->size >= config.max_split_size && it->stream == r.stream) {
      auto cur = it;
      const bool is_first = cur == set.begin();
      if (!is_first) --it;
      Block* b = cur->block;
      if (!b->expandable) {
        released += b->size;
        release_block(b);
      }
      if (is_first) break;
    }
    return released >= key_size;
  }
  release_block(it->block);
  return true;
}

// PyTorch's release_cached_blocks: every cached whole segment goes back.
void CachingAllocator::Impl::release_cached_blocks() noexcept {
  synchronize_and_free_events();
  release_blocks(large_blocks);
  release_blocks(small_blocks);
}

void CachingAllocator::Impl::release_blocks(BlockPool& pool) noexcept {
  std::vector<Block*> to_unmap;
  for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
    Block* b = it->block;
    ++it;
    if (b->expandable) {
      // Unmapping changes the set: gather first.
      try {
        to_unmap.push_back(b);
      } catch (...) {
      }
    } else if (!b->is_split()) {
      release_block(b);
    }
  }
  for (Block* b : to_unmap) {
    unmap_block(b);
    if (!b->mapped && !b->is_split()) release_expandable_segment(b);
  }
}

// PyTorch's release_block: a whole free segment back to the device.
void CachingAllocator::Impl::release_block(Block* block) noexcept {
  take_free(block);
  ASAN_UNPOISON_MEMORY_REGION(block->ptr, block->size);
  backend.release_segment(device.index, block->ptr, block->size);
  reserved -= block->size;
  stats.update(&MemoryStats::segment, block->small, -1);
  stats.update(&MemoryStats::reserved_bytes, block->small, -int64_t(block->size));
  if (config && block->size >= config->max_split_size) stats.all.oversize_segments.update(-1);
  ++stats.all.num_device_free;
  record_trace(TraceEntry::SEGMENT_FREE, uintptr_t(block->ptr), block->size, block->stream);
  delete block;
}

// PyTorch's message names the request, the device's capacity, the cause, and
// how the reserved memory splits into allocated and reserved-but-unallocated
// (fragmentation), then where to look next.
std::string CachingAllocator::Impl::out_of_memory_message(const Request& r) {
  const size_t allocated = size_t(stats.all.allocated_bytes.current);
  const DeviceMemoryInfo info = backend.memory_info(device.index);
  const std::string name = device_name(device);
  const std::string upper = upper_device_type(device);
  const std::string cause =
      r.limited ? str("A new segment of ", describe_bytes(r.segment),
                      " would pass the memory limit of ", describe_bytes(limit),
                      " set by tsr_set_memory_limit.")
                : str("The system refused a new segment of ", describe_bytes(r.segment), ": ",
                      r.why, ".");
  return str(upper, " out of memory. Tried to allocate ", describe_bytes(r.nbytes), ". ", cause,
             " Device ", name, " has a total capacity of ", describe_bytes(info.total_bytes),
             " of which ", describe_bytes(info.free_bytes), " is free",
             limit != 0 ? str("; ", describe_bytes(limit), " allowed by tsr_set_memory_limit")
                        : std::string(),
             ". Of the ",
             describe_bytes(reserved), " reserved by tessera, ", describe_bytes(allocated),
             " is allocated and ", describe_bytes(reserved - allocated),
             " is reserved but unallocated. If reserved but unallocated memory is large, try "
             "TSR_ALLOC_CONF=expandable_segments:True to avoid fragmentation. "
             "tsr_memory_snapshot lists the segments and blocks; record history first "
             "(tsr_memory_record_history) to see which allocations led here.");
}

// ---- snapshot (PyTorch's snapshot) -----------------------------------------

Snapshot CachingAllocator::Impl::snapshot() {
  record_trace(TraceEntry::SNAPSHOT, 0, 0, 0);
  // Segment heads: mapped blocks with no mapped block before them (an
  // expandable segment shows one segment per mapped range, as PyTorch).
  std::vector<const Block*> heads;
  auto consider = [&](const Block* b) {
    if (b->mapped && !(b->prev && b->prev->mapped)) heads.push_back(b);
  };
  for (const FreeSet* set : {&small_blocks.blocks, &large_blocks.blocks})
    for (const FreeEntry& e : *set) consider(e.block);
  for (const auto& [ptr, b] : active_blocks) consider(b);
  std::sort(heads.begin(), heads.end(),
            [](const Block* a, const Block* b) { return std::less<const char*>()(a->ptr, b->ptr); });

  // The settings of the last allocation (defaults before any): a snapshot
  // still works while TSR_ALLOC_CONF is invalid.
  Snapshot s{device, {}, trace.entries(), trace.capacity(), config ? *config : AllocatorConfig{},
             stats, limit};
  for (const Block* head : heads) {
    SegmentSnapshot seg{uintptr_t(head->ptr), 0, head->stream, head->small,
                        head->expandable != nullptr, 0, 0, 0, {}};
    for (const Block* b = head; b && b->mapped; b = b->next) {
      const bool pending = !b->allocated && (b->event_count > 0 || !b->stream_uses.empty());
      const auto state = b->allocated ? BlockSnapshot::ACTIVE_ALLOCATED
                         : pending    ? BlockSnapshot::ACTIVE_PENDING_FREE
                                      : BlockSnapshot::INACTIVE;
      seg.blocks.push_back({uintptr_t(b->ptr), b->size, b->requested, state});
      seg.total_size += b->size;
      if (b->allocated) seg.allocated_size += b->size;
      if (state != BlockSnapshot::INACTIVE) {
        seg.active_size += b->size;
        seg.requested_size += b->requested;
      }
    }
    s.segments.push_back(std::move(seg));
  }
  return s;
}

// Everything back to the device, used or not (the allocator's destructor).
void CachingAllocator::Impl::release_everything() noexcept {
  synchronize_and_free_events();
  std::vector<Block*> all;
  for (BlockPool* pool : {&small_blocks, &large_blocks})
    for (FreeSet* set : {&pool->blocks, &pool->unmapped})
      for (const FreeEntry& e : *set) all.push_back(e.block);
  for (const auto& [ptr, b] : active_blocks) all.push_back(b);
  for (Block* b : all) {
    if (b->mapped) {
      ASAN_UNPOISON_MEMORY_REGION(b->ptr, b->size);
      if (b->expandable) backend.unmap_pages(device.index, b->ptr, b->size);
    }
  }
  // Plain segments: each head with its chain's total size.
  for (Block* b : all)
    if (!b->expandable && !b->prev) {
      size_t bytes = 0;
      for (const Block* x = b; x; x = x->next) bytes += x->size;
      backend.release_segment(device.index, b->ptr, bytes);
    }
  for (const auto& es : expandable_segments)
    backend.release_address_space(device.index, es->base, es->reserved);
  for (Block* b : all) delete b;
  for (EventHandle e : event_pool) backend.destroy_event(e);
}

// ---- the public class ------------------------------------------------------

CachingAllocator::CachingAllocator(DeviceBackend& backend, int32_t device_index)
    : impl_(std::make_unique<Impl>(backend, device_index)) {}

CachingAllocator::~CachingAllocator() { impl_->release_everything(); }

Device CachingAllocator::device() const { return impl_->device; }

void* CachingAllocator::allocate(size_t nbytes) {
  return impl_->allocate(nbytes, current_stream(impl_->device).id);
}

void* CachingAllocator::allocate_on(size_t nbytes, Stream s) {
  TSR_CHECK(s.device == impl_->device, TSR_ERR_DEVICE_MISMATCH, "allocate: stream of device ",
            device_name(s.device), " given to the allocator of ", device_name(impl_->device));
  return impl_->allocate(nbytes, s.id);
}

void CachingAllocator::free(void* ptr) noexcept {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto it = impl_->active_blocks.find(ptr);
  // Only what allocate returned, once; anything else is not ours.
  if (it == impl_->active_blocks.end() || !it->second->allocated) return;
  impl_->free(it->second);
}

// PyTorch's recordStream: nothing to do for the block's own stream.
void CachingAllocator::record_stream(void* ptr, Stream s) {
  TSR_CHECK(s.device == impl_->device, TSR_ERR_DEVICE_MISMATCH, "record_stream: a stream of ",
            device_name(s.device), " for memory of ", device_name(impl_->device));
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto it = impl_->active_blocks.find(ptr);
  TSR_CHECK(it != impl_->active_blocks.end() && it->second->allocated, TSR_ERR_INVALID_ARGUMENT,
            "record_stream: the memory is not an allocated block of ", device_name(impl_->device));
  Block* b = it->second;
  if (s.id == b->stream) return;
  if (std::find(b->stream_uses.begin(), b->stream_uses.end(), s.id) == b->stream_uses.end())
    b->stream_uses.push_back(s.id);
}

DeviceStats CachingAllocator::stats() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}
void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->stats.reset_peak();
}
void CachingAllocator::reset_accumulated() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->stats.reset_accumulated();
}
void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->release_cached_blocks();
}
void CachingAllocator::set_memory_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->limit = bytes;
}
size_t CachingAllocator::memory_limit() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->limit;
}
void CachingAllocator::record_history(bool enabled, size_t max_entries) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->trace.set_capacity(enabled ? max_entries : 0);
}
Snapshot CachingAllocator::snapshot() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->snapshot();
}

}  // namespace tsr::alloc
