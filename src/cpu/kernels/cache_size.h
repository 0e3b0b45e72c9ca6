// The size of the largest CPU cache, for deciding when a kernel's output is
// too large to stay in cache and is better written with non-temporal
// (streaming) stores, as glibc's memcpy does past its own threshold.
#pragma once

#include <cstdint>

namespace tsr::kernels {

// Bytes of the last-level cache (read once). Linux's sysfs is preferred to
// sysconf(_SC_LEVEL3_CACHE_SIZE): under some hypervisors glibc's CPUID-based
// figure is 10x the real L3 (320 MiB for a 32 MiB AMD L3 seen here).
int64_t last_level_cache_bytes();

// Whether a kernel that moves `bytes` through the cache (its output plus the
// span of its inputs it reads) should write with streaming stores: once
// that exceeds the last-level cache, the kernel's own reads evict its output
// before anyone reads it, and a normal store would first read each
// destination line from memory (a third of the traffic of a copy). Counting
// the output alone left a 24.5 MiB channels_last copy from a 24.5 MiB
// source (32 MiB L3) on cached stores: 1.8x memcpy in a standalone loop,
// 1.2-1.7x streamed (bench/HISTORY.md, "Conversions and layout copies").
inline bool use_streaming_stores(int64_t bytes) { return bytes > last_level_cache_bytes(); }

}  // namespace tsr::kernels
