// Software prefetch for kernels whose reads the hardware prefetcher does not
// see coming: short runs in many pages (transpose blocks, columns of a
// reduction), or the next block of a loop whose blocks are called one by one.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tsr::kernels {

constexpr int64_t kCacheLine = 64;

// Asks for the lines of [a, a + bytes) in the cache. A hint: the
// instruction (x86 PREFETCHT0, Arm PRFM) never faults, so a may lie past
// the end of an allocation (the "next block" after the last one); the
// address is an integer so that no out-of-bounds pointer is formed.
[[gnu::always_inline]] inline void prefetch_bytes_at(uintptr_t a, int64_t bytes) {
  for (int64_t off = 0; off < bytes; off += kCacheLine)
    __builtin_prefetch(reinterpret_cast<const void*>(a + uintptr_t(off)));
}

// For a loop over rows: with each row, `bytes` bytes at `offset` bytes past
// it (a row some way on, or the same row of the block after this one).
// bytes 0: none.
struct RowPrefetch {
  int64_t offset = 0, bytes = 0;
  [[gnu::always_inline]] void operator()(const void* row) const {
    prefetch_bytes_at(reinterpret_cast<uintptr_t>(row) + uintptr_t(offset), bytes);
  }
};

// The row ahead_bytes on (at least the next one) in rows row_bytes apart.
inline RowPrefetch rows_ahead(int64_t row_bytes, int64_t ahead_bytes, int64_t bytes) {
  const int64_t rows = std::max<int64_t>(1, ahead_bytes / std::max<int64_t>(1, row_bytes));
  return {rows * row_bytes, bytes};
}

// rows runs of row_bytes bytes, stride bytes apart.
inline void prefetch_rows(const void* p, int64_t rows, int64_t row_bytes, int64_t stride) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (int64_t r = 0; r < rows; ++r) prefetch_bytes_at(a + uintptr_t(r * stride), row_bytes);
}

}  // namespace tsr::kernels
