// The CPU allocator every tessera-owned CPU storage comes from: a caching
// allocator modelled on PyTorch's CUDACachingAllocator (see
// cpu_caching_allocator.cpp). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "alloc/memory_stats.h"

namespace tsr::alloc {

// Alignment of every block handed out, in bytes.
constexpr size_t kCpuAlignment = 64;

// Returns nbytes of 64-byte-aligned memory, or throws tsr::Error with
// TSR_ERR_OUT_OF_MEMORY (message gives requested/allocated/reserved bytes).
// nbytes == 0 returns nullptr.
void* cpu_allocate(size_t nbytes);
// Returns a block to the cache. nullptr is ignored.
void cpu_free(void* ptr) noexcept;

// A consistent copy of the statistics (taken under the allocator's lock).
MemoryStats cpu_memory_stats();
void cpu_reset_peak_memory_stats();
void cpu_reset_accumulated_memory_stats();
// Returns every cached segment that holds no allocated block to the OS.
void cpu_empty_cache();
// Caps reserved bytes (segments held): a new segment that would pass the cap
// is treated as a refusal by the OS. 0 removes the cap. Lowering the cap
// below what is reserved frees nothing by itself.
void cpu_set_memory_limit(size_t bytes);
size_t cpu_memory_limit();

}  // namespace tsr::alloc
