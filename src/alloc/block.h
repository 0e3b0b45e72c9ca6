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
#include <unordered_map>
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
// The allocator's allocated (or awaiting events) blocks by address.
using ActiveMap = std::unordered_map<void*, Block*>;

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
  // Likewise the block's node of the allocator's active map: inside the map
  // while the block is allocated, parked here otherwise, so that neither
  // allocating nor freeing a cached block allocates bookkeeping.
  ActiveMap::node_type active_node;

  bool is_split() const { return prev != nullptr || next != nullptr; }
};

inline FreeEntry entry_of(Block* b) { return {b->stream, b->size, b->ptr, b}; }

// A block with its free-set and active-map nodes (the only memory a block
// needs).
inline std::unique_ptr<Block> make_block(char* ptr, size_t size, int64_t stream, bool small) {
  auto block = std::make_unique<Block>(ptr, size, stream, small);
  FreeSet scratch;
  scratch.insert(entry_of(block.get()));
  block->node = scratch.extract(scratch.begin());
  ActiveMap scratch_active;
  scratch_active.emplace(nullptr, block.get());
  block->active_node = scratch_active.extract(scratch_active.begin());
  return block;
}

// Blocks merged away, kept with their nodes for the next split (a split
// then allocates nothing): a list through Block::next, at most kMaxSpare.
class SpareBlocks {
 public:
  static constexpr size_t kMaxSpare = 256;
  SpareBlocks() = default;
  SpareBlocks(const SpareBlocks&) = delete;
  SpareBlocks& operator=(const SpareBlocks&) = delete;
  ~SpareBlocks() {
    while (head_) {
      Block* b = head_;
      head_ = b->next;
      delete b;
    }
  }
  // A block as make_block gives it: from the list, or a new one.
  std::unique_ptr<Block> take(char* ptr, size_t size, int64_t stream, bool small) {
    if (!head_) return make_block(ptr, size, stream, small);
    Block* b = head_;
    head_ = b->next;
    --count_;
    b->ptr = ptr;
    b->size = size;
    b->stream = stream;
    b->small = small;
    b->next = nullptr;
    return std::unique_ptr<Block>(b);
  }
  // Takes a block that is in no set, no map and no segment list. A block
  // without both nodes parked in it (or one past kMaxSpare) is deleted.
  void give(Block* b) noexcept {
    if (count_ >= kMaxSpare || b->node.empty() || b->active_node.empty()) {
      delete b;
      return;
    }
    b->requested = 0;
    b->allocated = false;
    b->mapped = true;
    b->prev = nullptr;
    b->stream_uses.clear();
    b->event_count = 0;
    b->gc_count_base = 0;
    b->expandable = nullptr;
    b->next = head_;
    head_ = b;
    ++count_;
  }

 private:
  Block* head_ = nullptr;
  size_t count_ = 0;
};

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
