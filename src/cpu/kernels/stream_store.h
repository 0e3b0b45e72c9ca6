// Byte-level fills and copies with optional non-temporal (streaming) stores,
// for outputs larger than the last-level cache (cache_size.h): a streaming
// store writes a whole line without first reading it, and leaves the cache
// to the data that will be read again. x86-64 only (SSE2 is baseline there);
// elsewhere they are memset/memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tsr::kernels {

// Orders this thread's streaming stores before its later stores (and before
// another thread that synchronises with it reads them).
inline void store_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

// n bytes from s to d (non-overlapping).
inline void copy_bytes(char* d, const char* s, int64_t n, bool stream) {
  if (n <= 0) return;
#if defined(__x86_64__)
  if (stream && n >= 256) {
    const int64_t head = int64_t((16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
    std::memcpy(d, s, size_t(head));
    int64_t i = head;
    for (; i + 64 <= n; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + i, s + i, size_t(n - i));
    return;
  }
#endif
  std::memcpy(d, s, size_t(n));
}

// n elements of `size` bytes (1, 2, 4 or 8) at d, each a copy of *value.
inline void fill_elements(char* d, const void* value, int64_t size, int64_t n, bool stream) {
  if (n <= 0) return;
  if (size == 1) return void(std::memset(d, *static_cast<const unsigned char*>(value), size_t(n)));
  // A 64-byte block of the pattern, then whole-block copies: memcpy of a
  // fixed 64 bytes compiles to vector moves, whatever the element size.
  alignas(64) char block[64];
  for (int64_t k = 0; k < 64; k += size) std::memcpy(block + k, value, size_t(size));
  const int64_t bytes = n * size;
  int64_t i = 0;
#if defined(__x86_64__)
  if (stream && bytes >= 256 && reinterpret_cast<uintptr_t>(d) % size_t(size) == 0) {
    // Whole elements until 16-byte alignment; the pattern then continues at
    // the matching phase (16 is a multiple of every element size).
    for (; (reinterpret_cast<uintptr_t>(d) + size_t(i)) % 16 != 0; i += size)
      std::memcpy(d + i, value, size_t(size));
    const __m128i p = _mm_load_si128(reinterpret_cast<const __m128i*>(block));
    for (; i + 64 <= bytes; i += 64)
      for (int k = 0; k < 64; k += 16) _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + k), p);
  }
#endif
  for (; i + 64 <= bytes; i += 64) std::memcpy(d + i, block, 64);
  std::memcpy(d + i, block, size_t(bytes - i));  // whole elements: bytes - i is a multiple of size
}

}  // namespace tsr::kernels
