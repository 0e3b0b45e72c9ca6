// Copies that transpose: the destination is unit-stride along the last
// iteration dim and the source along another one (a matrix transpose,
// NCHW <-> channels_last, most permutes). The element-per-thread copy
// reads such a source 32 cache lines per warp; this one moves 64x64 tiles
// through shared memory, so a warp reads 32 neighbours of the source and
// writes 32 neighbours of the destination (the classic shared-memory
// transpose; ATen has none for copies, it uses the element-per-thread
// kernel). Same dtype only, copied as raw bytes; conversions take CopyFn.
//
// The tile functor has two steps, each run by all kTileThreads threads of
// a block with a barrier after it: load (source -> shared tile) and store
// (shared tile -> destination). cuda_launch.cuh's tiles_kernel and the CPU
// grid emulator's emulate_tiles (grid_emulator.h) run exactly these steps.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/dtype_info.h"
#include "core/host_device.h"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

// A tile is kTileDim x kTileDim elements, moved by kTileDim x 8 threads,
// 8 elements each. On an H200, 64 x 64 tiles ran a 4096^2 float32
// transpose in 0.053 ms (1.24x a device-to-device copy of the bytes) where
// 32 x 32 tiles of 4 elements per thread took 0.067 ms: more loads in
// flight per thread.
constexpr uint32_t kTileDim = 64;
constexpr uint32_t kTileRowsPerStep = 8;
constexpr uint32_t kTileThreads = kTileDim * kTileRowsPerStep;
// Below this many elements along either tile dim the tile would be mostly
// idle threads; the element-per-thread copy takes such shapes.
constexpr int64_t kMinTiledExtent = 16;

// Element (r, c) of tile (batch b, row tile, column tile): r walks the
// source's unit-stride dim ("rows"), c the destination's ("cols", the last
// iteration dim); the other dims are the batch. Index is uint32_t where
// every tile index and element offset fits in 31 bits (fits_32bit): a
// GPU's 64-bit divisions and multiplies cost several 32-bit ones.
template <typename T, typename Index>
struct TiledCopyFn {
  // One extra column: a warp reading a column of the tile touches 32
  // different banks, not one. At most 64 x 65 x 8 bytes = 33 KiB, under
  // the 48 KiB of static shared memory a block may have.
  struct Tile {
    T v[kTileDim][kTileDim + 1];
  };

  OffsetCalc<2, Index> batch;  // dst, src element offsets of batch index b
  Index rows, cols, row_tiles, col_tiles;
  Index dst_row_stride, src_col_stride;
  T* dst;
  const T* src;

  struct Origin {
    Index dst, src, r0, c0;
  };
  TSR_HOST_DEVICE Origin origin(int64_t tile_index) const {
    Index tile = Index(tile_index);
    const Index c_tile = tile % col_tiles;
    tile /= col_tiles;
    const auto base = batch.get(int64_t(tile / row_tiles));
    return {base.v[0], base.v[1], (tile % row_tiles) * kTileDim, c_tile * kTileDim};
  }

  // Step 1: the 32 threads of a warp read 32 neighbouring rows of one
  // column of the source (unit stride: one or two cache lines).
  TSR_HOST_DEVICE void load(int64_t tile, uint32_t thread, Tile& sh) const {
    const Origin o = origin(tile);
    const uint32_t lane = thread % kTileDim;
    const Index r = o.r0 + lane;
    if (r >= rows) return;
    for (uint32_t k = thread / kTileDim; k < kTileDim; k += kTileRowsPerStep) {
      const Index c = o.c0 + k;
      if (c < cols) sh.v[k][lane] = src[o.src + r + c * src_col_stride];
    }
  }

  // Step 2: the 32 threads of a warp write 32 neighbouring columns of one
  // row of the destination (unit stride), reading a column of the tile.
  TSR_HOST_DEVICE void store(int64_t tile, uint32_t thread, const Tile& sh) const {
    const Origin o = origin(tile);
    const uint32_t lane = thread % kTileDim;
    const Index c = o.c0 + lane;
    if (c >= cols) return;
    for (uint32_t k = thread / kTileDim; k < kTileDim; k += kTileRowsPerStep) {
      const Index r = o.r0 + k;
      if (r < rows) dst[o.dst + r * dst_row_stride + c] = sh.v[lane][k];
    }
  }
};

// Which dim of `shape` the source is unit-stride along, when dst <- src is
// a tiled copy: same dtype, destination unit-stride along the last dim and
// the source not, the source unit-stride along another dim, both tile dims
// at least kMinTiledExtent long. -1 when it is not.
inline int32_t tiled_copy_source_dim(const KernelShape& shape, const KernelOperand& dst,
                                     const KernelOperand& src) {
  const int32_t last = shape.ndim - 1;
  if (dst.dtype != src.dtype || last < 1) return -1;
  if (dst.strides[last] != 1 || src.strides[last] == 1 || shape.sizes[last] < kMinTiledExtent) return -1;
  for (int32_t d = last - 1; d >= 0; --d)
    if (src.strides[d] == 1 && shape.sizes[d] >= kMinTiledExtent) return d;
  return -1;
}

// The tile functor for dst <- src over shape, rows along src_dim (Index as
// the caller checked fits: tile_count and every offset).
template <typename T, typename Index>
TiledCopyFn<T, Index> make_tiled_copy(const KernelShape& shape, const KernelOperand& dst,
                                      const KernelOperand& src, int32_t src_dim) {
  const int32_t last = shape.ndim - 1;
  TiledCopyFn<T, Index> f{};
  f.batch.ndim = 0;
  for (int32_t d = 0; d < last; ++d) {
    if (d == src_dim) continue;
    const int32_t b = f.batch.ndim++;
    f.batch.sizes[b] = Index(shape.sizes[d]);
    f.batch.strides[b][0] = Index(dst.strides[d]);
    f.batch.strides[b][1] = Index(src.strides[d]);
  }
  f.rows = Index(shape.sizes[src_dim]);
  f.cols = Index(shape.sizes[last]);
  f.row_tiles = (f.rows + kTileDim - 1) / kTileDim;
  f.col_tiles = (f.cols + kTileDim - 1) / kTileDim;
  f.dst_row_stride = Index(dst.strides[src_dim]);
  f.src_col_stride = Index(src.strides[last]);
  f.dst = static_cast<T*>(dst.data);
  f.src = static_cast<const T*>(src.data);
  return f;
}

// The number of tiles of dst <- src over shape, rows along src_dim: batch
// elements x row tiles x column tiles (the sizes' product, so no overflow).
inline int64_t tile_count(const KernelShape& shape, int32_t src_dim) {
  int64_t n = 1;
  for (int32_t d = 0; d < shape.ndim; ++d)
    n *= d == src_dim || d == shape.ndim - 1 ? (shape.sizes[d] + kTileDim - 1) / kTileDim : shape.sizes[d];
  return n;
}

// fn(T{}) with T the unsigned integer as wide as one element of d.
template <typename Fn>
void with_element_bits(tsr_dtype d, Fn&& fn) {
  switch (element_bytes(d)) {
    case 1: return fn(uint8_t{});
    case 2: return fn(uint16_t{});
    case 4: return fn(uint32_t{});
    default: return fn(uint64_t{});
  }
}

}  // namespace tsr::gpu
