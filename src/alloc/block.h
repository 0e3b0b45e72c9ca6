// The caching allocator's bookkeeping: blocks (ranges of a segment), the
// free sets they sit in, and the expandable segments they may belong to.
// PyTorch's Block, BlockPool and ExpandableSegment
// (c10/cuda/CUDACachingAllocator.cpp), over any DeviceBackend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <vector>

namespace tsr::alloc {

struct Block;
struct ExpandableSegment;

// An entry of a free set, ordered by (stream, size, address): a lookup for
// (stream, size) lands on the best fit of that stream. The key is copied
// into the entry rather than read through the block, so a lookup touches one
// cache line per tree level instead of two.
struct FreeEntry {
  int64_t stream;
  size_t size;
  const char* ptr;
  Block* block;
  bool operator<(const FreeEntry& o) const {
    if (stream != o.stream) return stream < o.stream;
    if (size != o.size) return size < o.size;
    return std::less<const char*>()(ptr, o.ptr);
  }
};
using FreeSet = std::set<FreeEntry>;

// A range of a segment: allocated, free (in its pool's free set), or, in an
// expandable segment, not backed by memory (unmapped; in the pool's
// unmapped set). The blocks of a segment form a list in address order; a
// block without neighbours is a whole segment.
struct Block {
  Block(char* p, size_t s, int64_t stream_id, bool in_small_pool)
      : ptr(p), size(s), stream(stream_id), small(in_small_pool) {}

  char* ptr;
  size_t size;           // bytes, a multiple of 512
  size_t requested = 0;  // bytes the caller asked for, while allocated
  int64_t stream;        // the stream it was allocated on (its pool's key)
  bool small;            // pool: small (requests <= 1 MiB) or large
  bool allocated = false;
  bool mapped = true;    // false: an unmapped range of an expandable segment
  Block* prev = nullptr;
  Block* next = nullptr;
  // Other streams the block was used on (record_stream), and the events
  // recorded on them at free time that must complete before reuse.
  std::vector<int64_t> stream_uses;
  int event_count = 0;
  // The pool's get_free_block call count when the block was cached: its
  // age for garbage collection is the count now minus this.
  int64_t gc_count_base = 0;
  ExpandableSegment* expandable = nullptr;
  // The block's node of the free set, made with the block and kept for its
  // life: inside the set while the block is free, parked here otherwise.
  // Putting a block back into the set (in free(), which must not fail)
  // therefore never allocates.
  FreeSet::node_type node;

  bool is_split() const { return prev != nullptr || next != nullptr; }
};

inline FreeEntry entry_of(Block* b) { return {b->stream, b->size, b->ptr, b}; }

// A block with its free-set node (the only memory a block needs).
inline std::unique_ptr<Block> make_block(char* ptr, size_t size, int64_t stream, bool small) {
  auto block = std::make_unique<Block>(ptr, size, stream, small);
  FreeSet scratch;
  scratch.insert(entry_of(block.get()));
  block->node = scratch.extract(scratch.begin());
  return block;
}

// A free set and what garbage collection counts about it.
struct BlockPool {
  explicit BlockPool(bool is_small) : small(is_small) {}
  FreeSet blocks;    // free, mapped blocks
  FreeSet unmapped;  // unmapped ranges of expandable segments
  bool small;
  int64_t get_free_blocks_call_count = 0;
};

// An address-space reservation of one (stream, pool) whose pages are mapped
// on demand (expandable_segments).
struct ExpandableSegment {
  char* base;
  size_t reserved;  // bytes of address space
  size_t page;      // mapping granularity in bytes
  int64_t stream;
  bool small;
};

}  // namespace tsr::alloc
