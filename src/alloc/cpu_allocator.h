// The CPU allocator every tessera-owned CPU storage comes from: a caching
// allocator modelled on PyTorch's CUDACachingAllocator (see
// cpu_caching_allocator.cpp). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tsr::alloc {

// Alignment of every block handed out, in bytes.
constexpr size_t kCpuAlignment = 64;

// Returns nbytes of 64-byte-aligned memory, or throws tsr::Error with
// TSR_ERR_OUT_OF_MEMORY (message gives requested/allocated/reserved bytes).
// nbytes == 0 returns nullptr.
void* cpu_allocate(size_t nbytes);
// Returns a block to the cache. nullptr is ignored.
void cpu_free(void* ptr) noexcept;

}  // namespace tsr::alloc
