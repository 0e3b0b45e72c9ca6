#include "cpu/kernels/copy.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/cache_size.h"
#include "cpu/kernels/convert_run.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/prefetch.h"
#include "cpu/kernels/stream_store.h"
#include "cpu/kernels/strided_loop.h"
#include "cpu/kernels/strided_split.h"
#include "cpu/kernels/transpose_tiles.h"

namespace tsr::kernels {

namespace {

// Tiles of at most this many source bytes are copied whole, one block, and
// prefetch the next tile (try_tiled_copy).
constexpr int64_t kPrefetchTileBytes = 16384;

// A block: `rows` source rows (along a) of `row_bytes` each (along b); a
// block of shorter rows keeps a multiple of `round` rows (its micro-tile).
struct BlockShape {
  int64_t rows, row_bytes, round;
};
// For the 8x8 (AVX, 4-byte), 4x4 (AVX 8-byte, SSE2) and plain tiles.
constexpr BlockShape kNarrowBlocks{32, 2048, 8};
// For the AVX-512 16x16 tiles, which read and write whole lines: taller
// blocks give each destination row a longer run per block. Standalone
// loops over a float32 4096^2 transpose, one thread, 2-core EPYC (Zen 4),
// against 32 x 2 KiB blocks of 8x8 tiles (4.7-5.3 ms): 16x16 tiles in
// 32 x 2 KiB blocks 5.0-5.1, 64 x 1 KiB 4.4-4.5, 128 x 1 KiB 4.0-4.3,
// 256 x 1 KiB 4.1-4.3, 128 x 2 KiB 4.7-4.8; memcpy 3.2-3.3. Streamed
// stores of a transpose's rows in its block order alone: 64-byte runs per
// destination row 6.9 ms, 128-byte 2.7, 256-byte 1.6-1.8 (sequential 1.7).
constexpr BlockShape kWideBlocks{128, 1024, 16};

// Source rows per block of a tiled copy whose tile is na rows of row_bytes.
// A tile of at most kPrefetchTileBytes (a 5-D permute's 32 x 32) is one
// block, written in one pass and prefetched whole before it is copied.
// Larger ones are cut into blocks of shape.rows rows, which prefetch each
// other; when the rows are shorter than shape.row_bytes (channels_last to
// contiguous: 64 channels, 256 bytes), into blocks of as many bytes, so
// each destination row still gets a run of shape.rows * shape.row_bytes /
// row_bytes elements per block (32 rows there gave 128-byte runs and 1.7x
// memcpy instead of 1.3x).
int64_t block_rows_for(int64_t na, int64_t row_bytes, const BlockShape& shape) {
  if (na * row_bytes <= kPrefetchTileBytes) return na;
  if (row_bytes >= shape.row_bytes) return shape.rows;
  return std::min(na, shape.rows * shape.row_bytes / row_bytes / shape.round * shape.round);
}

using MicroTile = void (*)(char* d, int64_t ldd, const char* s, int64_t lds);

// One whole block, its size known at compile time, so the tile loops unroll
// and the prefetch schedule is constants: after each micro-tile, the next
// few lines of `next` (the following block's source, or null), spread evenly
// so the last lands with the last tile.
//
// Why prefetch: the source is the bottleneck. A block's rows are short runs
// in as many pages, where the hardware prefetcher barely starts: reading a
// 4096^2 float32 source in block order alone took 5.3 ms on the 2-core EPYC
// (Zen 4) against 2.1 ms in memory order. Prefetched a block ahead, the
// lines arrive before their tiles need them. Standalone loops over that
// matrix, one thread, several processes (page placements), x memcpy of the
// same bytes: the former 128 x 128 blocks without prefetch 1.8-2.0x, with
// it 1.29-1.37x; 32 x 512 blocks 1.42-1.53x without, 1.21-1.30x with
// (16 x 1024 with it 1.73-1.86x: too short a run per destination line).
template <typename T, int M, MicroTile micro, BlockShape Shape, int64_t BA>
[[gnu::always_inline]] inline void copy_full_block(char* d, const char* s, int64_t dsb, int64_t ssa,
                                                   const char* next) {
  constexpr int64_t es = sizeof(T), BB = Shape.row_bytes / es;
  constexpr int64_t lines_per_row = Shape.row_bytes / kCacheLine, tiles = (BA / M) * (BB / M);
  constexpr int64_t per_tile = (BA * lines_per_row + tiles - 1) / tiles;
  int64_t line = 0;
  for (int64_t b = 0; b < BB; b += M)
    for (int64_t a = 0; a < BA; a += M) {
      micro(d + a * es + b * dsb, dsb, s + a * ssa + b * es, ssa);
      if (next)
        for (int64_t k = 0; k < per_tile; ++k, ++line)
          __builtin_prefetch(next + line / lines_per_row * ssa + line % lines_per_row * kCacheLine);
    }
}

// Copies a 2-D transpose: rows along dim a (dst-contiguous, dsa == sizeof T),
// columns along dim b (src-contiguous, ssb == sizeof T); dsb/ssa are the
// other byte strides. Blocks of block_rows x (Shape.row_bytes / sizeof T)
// elements, micro-tiles of M x M inside, a plain loop for the ragged edges;
// blocks Shape.row_bytes wide of Shape.rows rows, or of half as many (the
// last band, or all of a 64-channel tile of the 128-row wide blocks), take
// the unrolled, prefetching copy_full_block.
// Only the blocks whose a0 / block_rows lies in [blk_begin, blk_end) are
// copied: a thread's share. Always inlined, so that in copy_tile_avx the
// AVX micro-tile inlines too (a call per 8 x 8 tile cost 10%).
//
// Loop order: inside a block, consecutive micro-tiles step along a, so the
// two 32-byte halves of each destination line are written back to back (the
// streaming stores' write-combining buffers then flush whole lines), while
// only M source rows are live, within the L1's 8 ways even when the source
// row stride is a multiple of 4 KiB and every row maps to one cache set.
// Measured earlier: the block loop swapped (b0 outside) 10-17 ms against
// 9.0; 16x16 tile groups that finish each source line first 12-25 ms,
// because they keep 16 destination lines open at once (bench/HISTORY.md,
// "Conversions and layout copies").
template <typename T, int M, MicroTile micro, BlockShape Shape = kNarrowBlocks>
[[gnu::always_inline]] inline void copy_tile_micro(char* d, const char* s, int64_t na, int64_t nb,
                                                   int64_t dsb, int64_t ssa, int64_t block_rows,
                                                   int64_t blk_begin, int64_t blk_end) {
  constexpr int64_t es = sizeof(T), BB = Shape.row_bytes / es;
  const int64_t BA = block_rows;
  auto plain = [&](int64_t a0, int64_t ae, int64_t b0, int64_t be) {
    for (int64_t b = b0; b < be; ++b)
      for (int64_t a = a0; a < ae; ++a) std::memcpy(d + a * es + b * dsb, s + a * ssa + b * es, es);
  };
  const int64_t a_end = std::min(na, blk_end * BA);
  for (int64_t a0 = blk_begin * BA; a0 < a_end; a0 += BA)
    for (int64_t b0 = 0; b0 < nb; b0 += BB) {
      const int64_t ae = std::min(na, a0 + BA), be = std::min(nb, b0 + BB);
      const int64_t rows = ae - a0;
      if (be - b0 == BB && (rows == Shape.rows || rows == Shape.rows / 2)) {
        // The next block in this share's order; prefetched when it has as
        // many rows and whole ones.
        const int64_t na0 = b0 + BB < nb ? a0 : a0 + BA, nb0 = b0 + BB < nb ? b0 + BB : 0;
        const bool next_whole = na0 < a_end && std::min(na, na0 + BA) - na0 == rows && nb0 + BB <= nb;
        char* db = d + a0 * es + b0 * dsb;
        const char* sb = s + a0 * ssa + b0 * es;
        const char* next = next_whole ? s + na0 * ssa + nb0 * es : nullptr;
        if (rows == Shape.rows)
          copy_full_block<T, M, micro, Shape, Shape.rows>(db, sb, dsb, ssa, next);
        else
          copy_full_block<T, M, micro, Shape, Shape.rows / 2>(db, sb, dsb, ssa, next);
        continue;
      }
      const int64_t am = a0 + (ae - a0) / M * M, bm = b0 + (be - b0) / M * M;
      for (int64_t b = b0; b < bm; b += M)
        for (int64_t a = a0; a < am; a += M) micro(d + a * es + b * dsb, dsb, s + a * ssa + b * es, ssa);
      plain(am, ae, b0, be);
      plain(a0, am, bm, be);
    }
}

#if defined(__x86_64__)
// T: 4-byte elements in 8x8 tiles, 8-byte ones in 4x4.
template <typename T, bool Stream>
__attribute__((target("avx"))) void copy_tile_avx(char* d, const char* s, int64_t na, int64_t nb,
                                                   int64_t dsb, int64_t ssa, int64_t block_rows,
                                                   int64_t blk_begin, int64_t blk_end) {
  if constexpr (sizeof(T) == 4)
    copy_tile_micro<T, 8, micro_tile_avx_8x8<Stream>>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end);
  else
    copy_tile_micro<T, 4, micro_tile_avx_4x4_64<Stream>>(d, s, na, nb, dsb, ssa, block_rows, blk_begin,
                                                          blk_end);
}

// 4-byte elements in streamed 16x16 tiles, blocks of kWideBlocks.
__attribute__((target("avx512f"))) void copy_tile_avx512(char* d, const char* s, int64_t na, int64_t nb,
                                                         int64_t dsb, int64_t ssa, int64_t block_rows,
                                                         int64_t blk_begin, int64_t blk_end) {
  copy_tile_micro<uint32_t, 16, micro_tile_avx512_16x16<true>, kWideBlocks>(d, s, na, nb, dsb, ssa,
                                                                           block_rows, blk_begin, blk_end);
}
#endif

// Whether a tiled copy of es-byte elements into dst rows dsb bytes apart
// takes copy_tile_avx512 (and kWideBlocks): 4-byte elements, streamed, on
// a CPU with AVX-512, every destination row 64-byte aligned (`dst_aligned`:
// the base and the strides between tiles are multiples of 64 bytes).
bool wide_tiles(int64_t es, int64_t dsb, bool dst_aligned, bool stream) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && es == 4 && stream && dst_aligned && dsb % 64 == 0;
#else
  (void)es, (void)dsb, (void)dst_aligned, (void)stream;
  return false;
#endif
}

template <typename T>
void copy_tile(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa,
               int64_t block_rows, int64_t blk_begin, int64_t blk_end, bool stream) {
#if defined(__x86_64__)
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    static const bool avx = __builtin_cpu_supports("avx");
    // Streaming stores need 32-byte aligned rows; tiles start at multiples
    // of 32 bytes along a, so the base and the row stride decide.
    if (avx && stream && reinterpret_cast<uintptr_t>(d) % 32 == 0 && dsb % 32 == 0)
      return copy_tile_avx<T, true>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end);
    if (avx) return copy_tile_avx<T, false>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end);
    if constexpr (sizeof(T) == 4)
      return copy_tile_micro<T, 4, micro_tile_sse2_4x4>(d, s, na, nb, dsb, ssa, block_rows, blk_begin,
                                                        blk_end);
  }
#endif
  constexpr int M = sizeof(T) == 8 ? 4 : 8;
  copy_tile_micro<T, M, micro_tile<T, M>>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end);
}

// copy_tile for elements of es = 1, 2, 4 or 8 bytes; copy_tile_avx512 when
// `wide` (wide_tiles said so).
void copy_tile_bytes(int64_t es, char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa,
                     int64_t block_rows, int64_t blk_begin, int64_t blk_end, bool stream, bool wide) {
#if defined(__x86_64__)
  if (wide) return copy_tile_avx512(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end);
#endif
  switch (es) {
    case 1: return copy_tile<uint8_t>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end, stream);
    case 2: return copy_tile<uint16_t>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end, stream);
    case 4: return copy_tile<uint32_t>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end, stream);
    default: return copy_tile<uint64_t>(d, s, na, nb, dsb, ssa, block_rows, blk_begin, blk_end, stream);
  }
}

// Tiled copies of at most this many bytes run on one thread. Waking the
// pool's sleeping helper costs more than it saves below it: one thread ->
// two, a transposed float32 n x n made contiguous (2-core EPYC, Zen 4,
// streamed): n = 768 (2.25 MiB) 0.045 -> 0.055 ms, 1024 (4 MiB) 0.094 ->
// 0.110, 1200 (5.5 MiB) 0.136 -> 0.115, 1448 (8 MiB) 0.48 -> 0.21.
constexpr int64_t kSerialTiledCopyBytes = int64_t{4} << 20;

// Whether a tiled copy streams its stores below the last-level cache
// threshold too. Its ordinary stores read each destination line in (for
// ownership) before writing it, and lose many of them before their second
// half comes: rows a multiple of 2 KiB apart (a 512, 1024 or 2048 float32
// square transposed) put every 8x8 tile's eight destination lines into one
// L1 set. Streaming stores allocate no line. One thread, 2-core EPYC (Zen
// 4), a transposed float32 n x n made contiguous, cached -> streamed, warm
// source (then after an 8 MiB memcpy that evicts part of it):
// - rows 2 KiB multiples: n = 512 0.081 -> 0.041 ms, 1024 0.68 -> 0.175,
//   2048 2.99 -> 0.93;
// - other rows, from a 2 MiB destination on (since the 16x16 tiles):
//   768 0.056 -> 0.043 (0.17 -> 0.05), 1000 0.12-0.19 -> 0.10 (0.35 ->
//   0.24), 1200 0.40-0.46 -> 0.12-0.15 (0.48 -> 0.20-0.23), 1448 0.71-0.76
//   -> 0.46-0.52, 1800 1.13-1.14 -> 0.71-0.76; at 724 (2.0 MiB) even,
//   below it (520, 600) 0.025 -> 0.029 and 0.031 -> 0.036 warm.
bool stream_tiled_destination(int64_t dst_row_bytes, int64_t dst_bytes) {
  constexpr int64_t MiB = int64_t{1} << 20;
  return dst_bytes >= 2 * MiB || (dst_row_bytes % 2048 == 0 && dst_bytes >= MiB);
}

// Same-dtype copy whose innermost dst dim is not innermost in src: iterate
// the remaining dims and copy 2-D tiles over (dst-inner, src-inner). `g` is
// the copy's geometry (dst operand 0), shared with the plain loop. Threads
// take (outer index, block row) pairs.
bool try_tiled_copy(const LoopGeometry<2>& g, const Tensor& dst, const Tensor& src, bool stream) {
  const int64_t es = dst.element_size();
  // A broadcast source along dst's inner dim (stride 0) is a fill per run,
  // which convert_run does at memset speed; no tiles for it.
  if (g.sizes.size() < 2 || g.strides[0][0] != es || g.strides[1][0] == es ||
      g.strides[1][0] == 0)
    return false;
  size_t b = 1;
  while (b < g.sizes.size() && g.strides[1][b] != es) ++b;
  if (b == g.sizes.size() || g.sizes[0] < 16 || g.sizes[b] < 16) return false;
  // Outer dims: all but 0 and b, after a size-1 leading dim that stands for
  // for_each_run_in's inner run (one tile per element).
  LoopGeometry<2> outer{{1}, {{{0}, {0}}}};
  int64_t outer_n = 1;
  for (size_t d = 1; d < g.sizes.size(); ++d)
    if (d != b) {
      outer.sizes.push_back(g.sizes[d]);
      outer_n *= g.sizes[d];
      for (int k = 0; k < 2; ++k) outer.strides[k].push_back(g.strides[k][d]);
    }
  const int64_t na = g.sizes[0], nb = g.sizes[b];
  // The checks above made dst's stride on dim 0 and src's on dim b == es.
  const int64_t dsb = g.strides[0][b], ssa = g.strides[1][0];
  stream = stream || stream_tiled_destination(dsb, dst.nbytes());
  const int64_t row_bytes = nb * es;
  const bool small_tile = na * row_bytes <= kPrefetchTileBytes;
  bool dst_aligned = reinterpret_cast<uintptr_t>(dst.data_ptr()) % 64 == 0;
  for (int64_t stride : outer.strides[0]) dst_aligned = dst_aligned && stride % 64 == 0;
  const bool wide = wide_tiles(es, dsb, dst_aligned, stream);
  const int64_t block_rows = block_rows_for(na, row_bytes, wide ? kWideBlocks : kNarrowBlocks);
  const int64_t blocks = (na + block_rows - 1) / block_rows;
  const std::array<char*, 2> base{static_cast<char*>(dst.data_ptr()),
                                  static_cast<char*>(src.data_ptr())};
  // Work item i: outer element i / blocks, block row i % blocks.
  const int64_t item_elems = std::min(na, block_rows) * nb;
  auto tiles = [&](char** p, int64_t b0, int64_t b1) {
    copy_tile_bytes(es, p[0], p[1], na, nb, dsb, ssa, block_rows, b0, b1, stream, wide);
  };
  const int64_t grain =
      std::max({int64_t{1}, kGrainSize / item_elems, kSerialTiledCopyBytes / (item_elems * es)});
  parallel_for(outer_n * blocks, grain,
               [&](int64_t begin, int64_t end) {
                 if (blocks == 1) {
                   // One block per outer element: one walk over the outer
                   // elements, pointers advancing by strides. Small tiles
                   // prefetch the next one's source: each starts a new page,
                   // where the hardware prefetcher starts over (1.68-1.71x ->
                   // 1.48-1.54x memcpy, bench/HISTORY.md).
                   const bool prefetch = small_tile && outer.sizes.size() > 1;
                   const int64_t next = prefetch ? outer.strides[1][1] : 0;
                   for_each_run_in<2>(outer, base, begin, end, [&](char** p, const int64_t*, int64_t) {
                     if (prefetch) prefetch_rows(p[1] + next, na, row_bytes, ssa);
                     tiles(p, 0, 1);
                   });
                 } else {
                   for (int64_t i = begin; i < end;) {
                     const int64_t o = i / blocks, b0 = i % blocks;
                     const int64_t b1 = std::min(blocks, b0 + (end - i));
                     for_each_run_in<2>(outer, base, o, o + 1,
                                        [&](char** p, const int64_t*, int64_t) { tiles(p, b0, b1); });
                     i += b1 - b0;
                   }
                 }
                 if (stream) store_fence();
               });
  return true;
}

}  // namespace

void transpose_copy_streamed(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa,
                             int64_t es) {
  if (na <= 0 || nb <= 0) return;
  const int64_t block_rows = block_rows_for(na, nb * es, kNarrowBlocks);
  copy_tile_bytes(es, d, s, na, nb, dsb, ssa, block_rows, 0, (na + block_rows - 1) / block_rows, true, false);
  store_fence();
}

void transpose_block(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa, int64_t es) {
  if (na <= 0 || nb <= 0) return;
  copy_tile_bytes(es, d, s, na, nb, dsb, ssa, na, 0, 1, false, false);
}

void copy_strided(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  auto g = make_geometry<2>(dst.sizes(), {byte_strides(dst), byte_strides(src)});
  // The bytes the copy moves through the cache: dst, and the span of src it
  // reads (a broadcast source reads little; a strided one every line of
  // its span).
  const int64_t src_span = storage_extent(src.sizes(), src.strides()) * src.element_size();
  const bool stream = use_streaming_stores(dst.nbytes() + src_span);
  if (dst.dtype() == src.dtype() && try_tiled_copy(g, dst, src, stream)) return;
  const std::array<char*, 2> base{static_cast<char*>(dst.data_ptr()),
                                  static_cast<char*>(src.data_ptr())};
  dispatch_storage(dst.dtype(), [&]<typename To>() {
    dispatch_storage(src.dtype(), [&]<typename From>() {
      parallel_for(dst.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
        for_each_run_in<2>(g, base, begin, end, [&](char** p, const int64_t* s, int64_t n) {
          convert_run<To, From>(p[0], s[0], p[1], s[1], n, stream);
        });
        if (stream) store_fence();
      });
    });
  });
}

void fill(const Tensor& dst, double value) {
  if (dst.numel() == 0) return;
  auto g = make_geometry<1>(dst.sizes(), {byte_strides(dst)});
  dispatch_storage(dst.dtype(), [&]<typename T>() {
    const T v = convert<T>(value);
    for_each_run<1>(g, {static_cast<char*>(dst.data_ptr())},
                    [&](char** p, const int64_t* s, int64_t n) {
                      for (int64_t i = 0; i < n; ++i) std::memcpy(p[0] + i * s[0], &v, sizeof(T));
                    });
  });
}

Tensor contiguous_copy(const Tensor& t, tsr_dtype dtype) {
  Tensor out = empty(t.sizes(), dtype, TSR_CONTIGUOUS_FORMAT, t.device());
  copy_strided(out, t);
  return out;
}

Tensor contiguous_or_self(const Tensor& t) {
  return is_contiguous_strides(t.sizes(), t.strides()) ? t : contiguous_copy(t, t.dtype());
}

bool has_internal_overlap(const Tensor& t) {
  // ATen's has_internal_overlap says Yes only for a dim of size > 1 with
  // stride 0; every other layout is No or TooHard, and in-place ops refuse
  // only Yes. Anything stricter refuses writes torch allows, such as
  // as_strided((2, 3), (3, 2)), whose elements 0 2 4 / 3 5 7 are distinct
  // although no stride exceeds the span of the smaller ones.
  for (int64_t i = 0; i < t.ndim(); ++i)
    if (t.sizes()[i] > 1 && t.strides()[i] == 0) return true;
  return false;
}

bool partial_overlap(const Tensor& a, const Tensor& b) {
  if (a.is_same(b) || a.numel() == 0 || b.numel() == 0) return false;
  if (a.storage().get() != b.storage().get()) return false;
  if (!is_non_overlapping_and_dense(a.sizes(), a.strides()) ||
      !is_non_overlapping_and_dense(b.sizes(), b.strides()))
    return false;  // ATen: TooHard, allowed
  const int64_t ab = a.storage_offset() * a.element_size(), ae = ab + a.nbytes();
  const int64_t bb = b.storage_offset() * b.element_size(), be = bb + b.nbytes();
  if (ab == bb && ae == be) return a.strides() != b.strides();  // same bytes: Full unless reordered
  return ab < be && bb < ae;
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  if (a.storage().get() != b.storage().get()) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset() * t.element_size();
    int64_t hi = lo + storage_extent(t.sizes(), t.strides()) * t.element_size();
    return std::pair{lo, hi};
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  return alo < bhi && blo < ahi;
}

}  // namespace tsr::kernels
