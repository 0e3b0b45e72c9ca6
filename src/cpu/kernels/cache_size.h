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

// Whether a kernel writing `bytes` should use streaming stores: the output
// exceeds the last-level cache, so it would evict everything and be evicted
// itself before anyone reads it, and a normal store would first read each
// destination line from memory (a third of the traffic of a copy).
inline bool use_streaming_stores(int64_t bytes) { return bytes > last_level_cache_bytes(); }

}  // namespace tsr::kernels
