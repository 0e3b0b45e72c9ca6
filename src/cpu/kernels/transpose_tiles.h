// Register-level transposes of small square tiles, the inner step of the
// tiled transpose copy in copy.cpp. A tile is M source rows of M elements
// (row stride lds bytes) written as M destination rows (row stride ldd).
#pragma once

#include <cstdint>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tsr::kernels {

// Transposes one M x M micro-tile through registers: M loads of M
// source-contiguous elements, M stores of M destination-contiguous ones.
// Only M source rows are live at once: when the row stride is a multiple of
// 4 KiB (a 4096-float matrix), all rows fall in one L1 set of 8 ways, so a
// taller column of reads evicts itself before the next column reuses its
// cache lines.
template <typename T, int M>
inline void micro_tile(char* d, int64_t ldd, const char* s, int64_t lds) {
  T r[M][M];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) std::memcpy(&r[i][j], s + i * lds + j * int64_t(sizeof(T)), sizeof(T));
  for (int j = 0; j < M; ++j)
    for (int i = 0; i < M; ++i) std::memcpy(d + j * ldd + i * int64_t(sizeof(T)), &r[i][j], sizeof(T));
}

#if defined(__x86_64__)
// 4-byte elements: SSE2 (baseline x86-64) 4x4 shuffle transpose.
inline void micro_tile_sse2_4x4(char* d, int64_t ldd, const char* s, int64_t lds) {
  __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(s));
  __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(s + lds));
  __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(s + 2 * lds));
  __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(s + 3 * lds));
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(reinterpret_cast<float*>(d), r0);
  _mm_storeu_ps(reinterpret_cast<float*>(d + ldd), r1);
  _mm_storeu_ps(reinterpret_cast<float*>(d + 2 * ldd), r2);
  _mm_storeu_ps(reinterpret_cast<float*>(d + 3 * ldd), r3);
}
// The 8x8 float transpose in registers: s points at 8 rows of 8 floats,
// ls floats apart; c[k] = column k of them (s[0][k], ..., s[7][k]). Shared
// by the copy tiles below and by ops that use the transposed rows at once
// (transposed_binary.cpp).
__attribute__((target("avx"))) inline void transpose_regs_avx_8x8(const float* s, int64_t ls, __m256 c[8]) {
  __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + ls), r2 = _mm256_loadu_ps(s + 2 * ls),
         r3 = _mm256_loadu_ps(s + 3 * ls), r4 = _mm256_loadu_ps(s + 4 * ls), r5 = _mm256_loadu_ps(s + 5 * ls),
         r6 = _mm256_loadu_ps(s + 6 * ls), r7 = _mm256_loadu_ps(s + 7 * ls);
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  c[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  c[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  c[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  c[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  c[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  c[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  c[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  c[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
// The 4x4 double transpose in registers, as the 8x8 one: two unpacks and a
// 128-bit permute per column.
__attribute__((target("avx"))) inline void transpose_regs_avx_4x4_64(const double* s, int64_t ls, __m256d c[4]) {
  const __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + ls), r2 = _mm256_loadu_pd(s + 2 * ls),
                r3 = _mm256_loadu_pd(s + 3 * ls);
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  c[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  c[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  c[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  c[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

// 4-byte elements: AVX 8x8 transpose (chosen at run time). Stream: the
// eight 32-byte rows go out as non-temporal stores (d and ldd must then be
// multiples of 32); the tile loop writes the two halves of each destination
// line back to back, so the write-combining buffers see whole lines.
template <bool Stream>
__attribute__((target("avx"))) inline void micro_tile_avx_8x8(char* d, int64_t ldd,
                                                             const char* s, int64_t lds) {
  __m256 c[8];
  transpose_regs_avx_8x8(reinterpret_cast<const float*>(s), lds / 4, c);
  float* o = reinterpret_cast<float*>(d);
  const int64_t ld = ldd / 4;
  for (int k = 0; k < 8; ++k) {
    if constexpr (Stream) _mm256_stream_ps(o + k * ld, c[k]);
    else _mm256_storeu_ps(o + k * ld, c[k]);
  }
}
// 8-byte elements: AVX 4x4 transpose (chosen at run time), as the 8x8 one:
// four 32-byte rows in, two unpacks and a 128-bit permute per output row.
// Against the plain element loop (one thread of the 2-core EPYC, Zen 4): a
// transposed int64 [4096, 4096] made contiguous in 9.1 ms instead of 14.2,
// the [3136, 64] indices of a channels_last max over dim 0 in 0.052 ms
// instead of 0.056.
template <bool Stream>
__attribute__((target("avx"))) inline void micro_tile_avx_4x4_64(char* d, int64_t ldd,
                                                                const char* s, int64_t lds) {
  __m256d c[4];
  transpose_regs_avx_4x4_64(reinterpret_cast<const double*>(s), lds / 8, c);
  for (int k = 0; k < 4; ++k) {
    double* o = reinterpret_cast<double*>(d + k * ldd);
    if constexpr (Stream) _mm256_stream_pd(o, c[k]);
    else _mm256_storeu_pd(o, c[k]);
  }
}
// 4-byte elements: AVX-512 16x16 transpose (chosen at run time), for the
// streamed copies of large transposes. Each load is one whole source line
// and each store one whole destination line, so no line is touched twice:
// the 8x8 tile reads every source line in two halves, the second after the
// tile column below it has gone by (from L2 when the rows alias in L1), and
// its streaming stores need two tiles to fill a line. Four rounds of 16
// shuffles: 32-bit, then 64-bit interleaves inside each 128-bit lane, then
// two rounds of 128-bit lane shuffles. Stream: non-temporal stores (d and
// ldd must then be multiples of 64).
//
// GCC 12's unpack and lane-shuffle intrinsics start from
// _mm512_undefined_ps(), which it then reports as used uninitialized (GCC
// bug 105593, fixed in 13); the pragma silences that false report here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
template <bool Stream>
__attribute__((target("avx512f"))) inline void micro_tile_avx512_16x16(char* d, int64_t ldd,
                                                                     const char* s, int64_t lds) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(reinterpret_cast<const float*>(s + i * lds));
  // t[2i], t[2i+1]: rows 2i and 2i+1 interleaved element by element.
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  // r[4q + k]: column 4L + k of rows 4q..4q+3, in each 128-bit lane L.
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  // Then gather the four lanes of each column across the row groups.
  for (int k = 0; k < 4; ++k) {
    t[k] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88);
    t[4 + k] = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xDD);
    t[8 + k] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
    t[12 + k] = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xDD);
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm512_shuffle_f32x4(t[k], t[8 + k], 0x88);
    r[8 + k] = _mm512_shuffle_f32x4(t[k], t[8 + k], 0xDD);
    r[4 + k] = _mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0x88);
    r[12 + k] = _mm512_shuffle_f32x4(t[4 + k], t[12 + k], 0xDD);
  }
  for (int j = 0; j < 16; ++j) {
    float* o = reinterpret_cast<float*>(d + j * ldd);
    if constexpr (Stream)
      _mm512_stream_ps(o, r[j]);
    else
      _mm512_storeu_ps(o, r[j]);
  }
}
#pragma GCC diagnostic pop
#endif

}  // namespace tsr::kernels
