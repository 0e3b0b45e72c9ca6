// A caching allocator for CPU memory after PyTorch's CUDACachingAllocator
// (c10/cuda/CUDACachingAllocator.cpp, native backend, default settings):
//
// - Memory comes from the OS in segments (mmap) and goes out in blocks carved
//   from them. A freed block returns to a free set, not to the OS, so the next
//   request of a similar size costs a set lookup instead of system calls and
//   page faults.
// - Sizes round up to 512 B. Requests <= 1 MiB use the small pool, packed into
//   2 MiB segments; larger ones the large pool: 1-10 MiB requests get a 20 MiB
//   segment that later requests can share, >= 10 MiB requests a segment of
//   their own size rounded up to 2 MiB.
// - Lookup is best fit: the smallest free block that is large enough, lowest
//   address among equal sizes (the free set is ordered by (size, address)).
// - A larger block is split when the rest is worth keeping: >= 512 B in the
//   small pool, > 1 MiB in the large pool. A smaller rest stays with the block,
//   so allocated bytes may exceed the rounded request, as in PyTorch.
// - A freed block merges with free neighbours of its segment, so a segment
//   whose blocks are all free is one block again and can go back to the OS.
// - When the OS refuses a segment (or the memory limit would be passed), every
//   cached unused segment goes back to the OS and the request is retried once;
//   then TSR_ERR_OUT_OF_MEMORY.
// Not modelled: streams and events (CPU work here is synchronous),
// max_split_size and the other PYTORCH_CUDA_ALLOC_CONF options, expandable
// segments, snapshots.
#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <unordered_map>

// Free memory is poisoned under ASan (the macros are no-ops otherwise), so a
// use after free, or a read past the requested bytes into the rounding slack,
// is reported although the memory stays mapped in the cache.
#include <sanitizer/asan_interface.h>

#include "alloc/cpu_allocator.h"
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

// Segments from mmap are page aligned and block offsets are multiples of
// kMinBlockSize, so every block is kCpuAlignment aligned.
static_assert(kMinBlockSize % kCpuAlignment == 0);

size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// PyTorch's round_size (without roundup_power2_divisions).
size_t block_size_for(size_t nbytes) { return round_up(nbytes, kMinBlockSize); }

// PyTorch's get_allocation_size.
size_t segment_size_for(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return round_up(size, kRoundLarge);
}

struct Block;

// An entry of a free set, ordered by (size, address). The key is copied into
// the entry rather than read through the block, so a lookup touches one
// cache line per tree level instead of two (random alloc/free with 1000
// blocks live: 1.5 -> 1.2 us per pair).
struct FreeEntry {
  size_t size;
  const char* ptr;
  Block* block;
  bool operator<(const FreeEntry& o) const {
    if (size != o.size) return size < o.size;
    return std::less<const char*>()(ptr, o.ptr);
  }
};
using FreeSet = std::set<FreeEntry>;

// A range of a segment, allocated or free. The blocks of a segment form a
// list in address order; a block without neighbours is a whole segment.
struct Block {
  Block(char* p, size_t s, bool in_small_pool) : ptr(p), size(s), small(in_small_pool) {}

  char* ptr;
  size_t size;           // bytes, a multiple of kMinBlockSize
  size_t requested = 0;  // bytes the caller asked for, while allocated
  bool small;            // pool: small (requests <= 1 MiB) or large
  bool allocated = false;
  Block* prev = nullptr;
  Block* next = nullptr;
  // The block's node of the free set, made with the block and kept for its
  // life: inside the set while the block is free, parked here while it is
  // allocated. Putting a block back into the set (in free(), which must not
  // fail) therefore never allocates.
  FreeSet::node_type node;

  bool is_split() const { return prev != nullptr || next != nullptr; }
};

FreeEntry entry_of(Block* b) { return {b->size, b->ptr, b}; }

// A block with its free-set node (the only memory a block needs).
std::unique_ptr<Block> make_block(char* ptr, size_t size, bool small) {
  auto block = std::make_unique<Block>(ptr, size, small);
  FreeSet scratch;
  scratch.insert(entry_of(block.get()));
  block->node = scratch.extract(scratch.begin());
  return block;
}

// "18.00 MiB (18874368 bytes)": readable for people, exact for tools and
// tests; below 1 KiB just "512 bytes". Units as PyTorch's format_size.
std::string describe_bytes(size_t n) {
  if (n < 1024) return str(n, " bytes");
  const char* unit = "KiB";
  double v = double(n) / 1024;
  for (const char* u : {"MiB", "GiB", "TiB", "PiB", "EiB"}) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%.2f %s", v, unit);
  return str(buf, " (", n, " bytes)");
}

class CachingAllocator {
 public:
  void* allocate(size_t nbytes);
  void free(void* ptr) noexcept;

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.reset_peak();
  }
  void reset_accumulated() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.reset_accumulated();
  }
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached_segments();
  }
  void set_limit(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
  }
  size_t limit() {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
  }

 private:
  FreeSet& pool(bool small) { return small ? small_blocks_ : large_blocks_; }
  // Moves a block's node into / out of its free set; neither allocates.
  void add_free(Block* b) {
    b->node.value() = entry_of(b);
    pool(b->small).insert(std::move(b->node));
  }
  void take_free(Block* b) { b->node = pool(b->small).extract(entry_of(b)); }
  Block* best_fit(size_t size, bool small);
  Block* new_segment(size_t size, bool small, int* os_errno);
  void* hand_out(Block* block, size_t size, size_t nbytes);
  void merge(Block* block, Block* neighbour) noexcept;
  void release_cached_segments() noexcept;
  std::string out_of_memory_message(size_t nbytes, size_t segment, int os_errno) const;

  std::mutex mutex_;  // guards everything below
  FreeSet small_blocks_;
  FreeSet large_blocks_;
  std::unordered_map<void*, Block*> allocated_;  // for free(ptr)
  MemoryStats stats_;
  size_t limit_ = 0;  // cap on reserved bytes; 0: none
};

void* CachingAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  TSR_CHECK(nbytes <= kMaxRequest, TSR_ERR_OUT_OF_MEMORY, "CPU out of memory. Tried to allocate ",
            describe_bytes(nbytes), ", more than the address space holds.");
  const size_t size = block_size_for(nbytes);
  const bool small = size <= kSmallSize;

  std::lock_guard<std::mutex> lock(mutex_);
  Block* block = best_fit(size, small);
  if (!block) {
    const size_t segment = segment_size_for(size);
    int os_errno = 0;
    block = new_segment(segment, small, &os_errno);
    if (!block) {
      // As PyTorch: return every cached unused segment to the OS, retry once.
      release_cached_segments();
      ++stats_.num_alloc_retries;
      block = new_segment(segment, small, &os_errno);
    }
    if (!block) {
      ++stats_.num_ooms;
      fail(TSR_ERR_OUT_OF_MEMORY, out_of_memory_message(nbytes, segment, os_errno));
    }
  }
  return hand_out(block, size, nbytes);
}

Block* CachingAllocator::best_fit(size_t size, bool small) {
  FreeSet& set = pool(small);
  auto it = set.lower_bound({size, nullptr, nullptr});  // first of this size or larger
  return it == set.end() ? nullptr : it->block;
}

// A new segment, entered in its pool as one free block. nullptr when the
// memory limit would be passed (*os_errno = 0) or the OS refuses (its errno).
Block* CachingAllocator::new_segment(size_t size, bool small, int* os_errno) {
  const size_t reserved = size_t(stats_.reserved_bytes.current);
  if (limit_ != 0 && (reserved > limit_ || size > limit_ - reserved)) {
    *os_errno = 0;
    return nullptr;
  }
  // The block first: if it cannot be made there is no mapping to undo.
  std::unique_ptr<Block> block = make_block(nullptr, size, small);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    *os_errno = errno;
    return nullptr;
  }
  ASAN_POISON_MEMORY_REGION(p, size);
  block->ptr = static_cast<char*>(p);
  add_free(block.get());
  stats_.segment.update(1);
  stats_.reserved_bytes.update(int64_t(size));
  ++stats_.num_device_alloc;
  return block.release();
}

// Takes `size` bytes from the front of the free block and returns them;
// the split and the statistics follow PyTorch's alloc_found_block.
void* CachingAllocator::hand_out(Block* block, size_t size, size_t nbytes) {
  const size_t rest_size = block->size - size;
  // PyTorch's should_split: a small-pool rest of one minimum block is useful;
  // in the large pool a rest of at most 1 MiB would only serve small requests
  // (which never come here) and would fragment the segment.
  const bool split = block->small ? rest_size >= kMinBlockSize : rest_size > kSmallSize;

  // What may throw (bad_alloc) comes first, so a failure changes nothing.
  std::unique_ptr<Block> rest;
  if (split) rest = make_block(block->ptr + size, rest_size, block->small);
  allocated_.emplace(block->ptr, block);

  const bool was_split = block->is_split();
  take_free(block);  // out of the set before its key (size) changes
  if (rest) {
    block->size = size;
    rest->prev = block;
    rest->next = block->next;
    if (block->next) block->next->prev = rest.get();
    block->next = rest.get();
    add_free(rest.release());
    if (was_split) {
      // An inactive split block shrinks by `size`.
      stats_.inactive_split_bytes.update(-int64_t(size));
    } else {
      // A whole segment becomes split: its rest is a new inactive split block.
      stats_.inactive_split.update(1);
      stats_.inactive_split_bytes.update(int64_t(rest_size));
    }
  } else if (was_split) {
    stats_.inactive_split.update(-1);
    stats_.inactive_split_bytes.update(-int64_t(block->size));
  }
  block->allocated = true;
  block->requested = nbytes;
  stats_.allocation.update(1);
  stats_.active.update(1);
  stats_.allocated_bytes.update(int64_t(block->size));
  stats_.active_bytes.update(int64_t(block->size));
  stats_.requested_bytes.update(int64_t(nbytes));
  ASAN_UNPOISON_MEMORY_REGION(block->ptr, nbytes);
  return block->ptr;
}

void CachingAllocator::free(void* ptr) noexcept {
  if (!ptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  // Storage frees only what cpu_allocate returned; anything else is not ours.
  if (it == allocated_.end()) return;
  Block* block = it->second;
  allocated_.erase(it);

  stats_.allocation.update(-1);
  stats_.active.update(-1);
  stats_.allocated_bytes.update(-int64_t(block->size));
  stats_.active_bytes.update(-int64_t(block->size));
  stats_.requested_bytes.update(-int64_t(block->requested));
  block->allocated = false;
  block->requested = 0;
  ASAN_POISON_MEMORY_REGION(block->ptr, block->size);

  // Merged neighbours stop being inactive split blocks; the merged block is
  // one if its segment is still split (PyTorch's free_block).
  int64_t split_blocks = 0, split_bytes = 0;
  for (Block* neighbour : {block->prev, block->next}) {
    if (neighbour && !neighbour->allocated) {
      split_blocks -= 1;
      split_bytes -= int64_t(neighbour->size);
      merge(block, neighbour);
    }
  }
  if (block->is_split()) {
    split_blocks += 1;
    split_bytes += int64_t(block->size);
  }
  stats_.inactive_split.update(split_blocks);
  stats_.inactive_split_bytes.update(split_bytes);
  add_free(block);
}

// Absorbs a free neighbour (in the free set) into block (not in the set).
void CachingAllocator::merge(Block* block, Block* neighbour) noexcept {
  pool(block->small).erase(entry_of(neighbour));
  if (neighbour == block->prev) {
    block->ptr = neighbour->ptr;
    block->prev = neighbour->prev;
    if (block->prev) block->prev->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next) block->next->prev = block;
  }
  block->size += neighbour->size;
  delete neighbour;
}

// Returns every free block that is a whole segment to the OS (PyTorch's
// release_cached_blocks). Split segments stay: part of each is in use.
void CachingAllocator::release_cached_segments() noexcept {
  for (FreeSet* set : {&small_blocks_, &large_blocks_}) {
    for (auto it = set->begin(); it != set->end();) {
      Block* block = it->block;
      if (block->is_split()) {
        ++it;
        continue;
      }
      it = set->erase(it);
      // Whoever maps this range next must not find it poisoned.
      ASAN_UNPOISON_MEMORY_REGION(block->ptr, block->size);
      munmap(block->ptr, block->size);
      stats_.segment.update(-1);
      stats_.reserved_bytes.update(-int64_t(block->size));
      ++stats_.num_device_free;
      delete block;
    }
  }
}

// PyTorch's message names the request, the cause, and how the reserved
// memory splits into allocated and reserved-but-unallocated (fragmentation).
std::string CachingAllocator::out_of_memory_message(size_t nbytes, size_t segment,
                                                    int os_errno) const {
  const size_t reserved = size_t(stats_.reserved_bytes.current);
  const size_t allocated = size_t(stats_.allocated_bytes.current);
  std::string cause =
      os_errno == 0
          ? str("A new segment of ", describe_bytes(segment), " would pass the memory limit of ",
                describe_bytes(limit_), " set by tsr_set_memory_limit.")
          : str("The system refused a new segment of ", describe_bytes(segment), ": ",
                std::generic_category().message(os_errno), ".");
  return str("CPU out of memory. Tried to allocate ", describe_bytes(nbytes), ". ", cause,
             " Of the ", describe_bytes(reserved), " reserved by tessera, ",
             describe_bytes(allocated), " is allocated and ", describe_bytes(reserved - allocated),
             " is reserved but unallocated.");
}

// Never destroyed: storages released by other static destructors at exit
// still come back here, and the cached segments stay reachable from it, so
// leak checkers do not report them.
CachingAllocator& cpu_cache() {
  static CachingAllocator* instance = new CachingAllocator();
  return *instance;
}

}  // namespace

void* cpu_allocate(size_t nbytes) { return cpu_cache().allocate(nbytes); }
void cpu_free(void* ptr) noexcept { cpu_cache().free(ptr); }
MemoryStats cpu_memory_stats() { return cpu_cache().stats(); }
void cpu_reset_peak_memory_stats() { cpu_cache().reset_peak(); }
void cpu_reset_accumulated_memory_stats() { cpu_cache().reset_accumulated(); }
void cpu_empty_cache() { cpu_cache().empty_cache(); }
void cpu_set_memory_limit(size_t bytes) { cpu_cache().set_limit(bytes); }
size_t cpu_memory_limit() { return cpu_cache().limit(); }

}  // namespace tsr::alloc
