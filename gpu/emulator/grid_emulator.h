// The CPU grid emulator: runs a kernel body over every (blockIdx,
// threadIdx) of a 1-D launch of grid_dim blocks of block_dim threads, as
// the GPU would, one thread after another. The body is the same
// TSR_HOST_DEVICE code the __global__ wrappers run (thread_ctx.cuh), so
// grid-stride loops, tails and index math are exercised without a GPU.
// Host only; no thread runs concurrently, so it checks what a launch
// computes, not its races.
//
// Block-cooperative kernels (row kernels, kernels/block_rows.cuh; tiled
// copies, kernels/tiled_copy.cuh; attention's tiles,
// kernels/attention_functors.cuh) are emulated block synchronously: every
// thread of a block runs one step (the code between two __syncthreads of
// the __global__ wrapper) before any thread runs the next, with an emulated
// shared-memory array per block. The steps are the kernel's, in its order,
// calling the same phase functors; the barriers themselves are this file's,
// so a barrier missing from the __global__ wrapper would not show here.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "kernels/block_rows.cuh"
#include "kernels/thread_ctx.cuh"
#include "kernels/tiled_copy.cuh"

namespace tsr::gpu {

// A 1-D launch shape: block_dim threads per block, at most max_grid blocks
// (a grid-stride loop covers the rest); column blocks of row kernels
// (row_path.h) up to column_block_dim threads. The defaults are the CUDA
// launcher's (cuda_launch.cuh).
struct LaunchShape {
  uint32_t block_dim = 256;
  uint32_t max_grid = 65535;
  uint32_t column_block_dim = 1024;
};

// The grid a launch of n elements gets: enough blocks for one element per
// thread, capped at max_grid.
inline uint32_t grid_for(int64_t n, const LaunchShape& s) {
  const int64_t blocks = (n + s.block_dim - 1) / s.block_dim;
  return uint32_t(std::min<int64_t>(std::max<int64_t>(blocks, 1), s.max_grid));
}

// body(ThreadCtx) for every thread of a grid_dim x block_dim launch.
template <typename Body>
void emulate_grid(uint32_t grid_dim, uint32_t block_dim, const Body& body) {
  TSR_CHECK(grid_dim > 0 && block_dim > 0, TSR_ERR_INVALID_ARGUMENT, "emulate_grid: empty launch (",
            grid_dim, " blocks of ", block_dim, " threads)");
  for (uint32_t b = 0; b < grid_dim; ++b)
    for (uint32_t t = 0; t < block_dim; ++t) body(ThreadCtx{b, block_dim, t, grid_dim});
}

// f(i) for i in [0, n) as the grid-stride kernel would run it.
template <typename F>
void emulate_grid_stride(int64_t n, const LaunchShape& s, const F& f) {
  emulate_grid(grid_for(n, s), s.block_dim, [&](const ThreadCtx& t) { grid_stride(t, n, f); });
}

// cuda_block_rows.cuh's block_rows_kernel<F>(rows, width, f) launched as
// grid_dim blocks of block_dim threads (width rows per block, block_dim /
// width threads each). Each block's shared array starts as garbage, as a
// GPU's would: 0x5a bytes, huge positive floats and integers that no sum
// or max survives, an invalid bool that UBSan reports, so a step reading a
// slot no thread wrote shows in the results. Each thread's results of the
// passes (`done`, registers on a GPU) are poisoned the same way before
// every row group.
template <typename F>
void emulate_block_rows(int64_t rows, uint32_t grid_dim, uint32_t block_dim, uint32_t width, const F& f) {
  using P = typename F::Partial;
  TSR_CHECK(grid_dim > 0 && width > 0 && block_dim >= width && block_dim % width == 0, TSR_ERR_INVALID_ARGUMENT,
            "emulate_block_rows: bad launch (", grid_dim, " blocks of ", block_dim, " threads, ", width,
            " rows per block)");
  std::vector<P> slots(block_dim);                          // the block's shared memory
  std::vector<std::array<P, F::kPasses>> done(block_dim);  // each thread's registers
  const uint32_t first = tree_first_stride(block_dim / width);
  for (uint32_t b = 0; b < grid_dim; ++b) {
    std::memset(static_cast<void*>(slots.data()), 0x5a, slots.size() * sizeof(P));
    for (int64_t g = b; g * width < rows; g += grid_dim) {
      // One step of every live thread (lanes past the last row skip the
      // step but, on a GPU, still reach the barrier after it).
      auto each_thread = [&](auto&& step) {
        for (uint32_t x = 0; x < block_dim; ++x) {
          const BlockSeat seat = block_seat(x, block_dim, width);
          const int64_t r = g * width + seat.lane;
          if (r < rows) step(r, seat, slots.data() + seat.lane, done[x].data());
        }
      };
      std::memset(static_cast<void*>(done.data()), 0x5a, done.size() * sizeof(done[0]));
      for (int p = 0; p < F::kPasses; ++p) {
        each_thread([&](int64_t r, BlockSeat s, P* row, P* d) { row[s.t.tid * width] = f.partial(r, p, s.t, d); });
        for (uint32_t st = first; st > 0; st >>= 1)
          each_thread([&](int64_t, BlockSeat s, P* row, P*) { tree_level(f, p, row, width, s.t, st); });
        each_thread([&](int64_t, BlockSeat, P* row, P* d) { d[p] = row[0]; });
      }
      each_thread([&](int64_t r, BlockSeat s, P*, P* d) { f.finish(r, s.t, d); });
    }
  }
}

// cuda_launch.cuh's tiles_kernel<F>(tiles, f) launched as grid_dim blocks
// of kTileThreads threads: per tile, every thread's load, then every
// thread's store (the barrier between them). The block's shared tile
// starts as 0x5a garbage, so a store of an element no load wrote shows.
template <typename F>
void emulate_tiles(int64_t tiles, uint32_t grid_dim, const F& f) {
  TSR_CHECK(grid_dim > 0, TSR_ERR_INVALID_ARGUMENT, "emulate_tiles: empty launch");
  typename F::Tile shared;
  for (uint32_t b = 0; b < grid_dim; ++b) {
    std::memset(static_cast<void*>(&shared), 0x5a, sizeof shared);
    for (int64_t i = b; i < tiles; i += grid_dim) {
      for (uint32_t t = 0; t < kTileThreads; ++t) f.load(i, t, shared);
      for (uint32_t t = 0; t < kTileThreads; ++t) f.store(i, t, shared);
    }
  }
}

// cuda_launch.cuh's block_tiles_kernel<F>(f) launched as grid_dim blocks of
// F::kRows threads: per block, start for every thread, then per tile load
// for every thread and consume for every thread (the barriers between),
// then finish. Shared memory starts poisoned (0x5a bytes: huge values no
// max or sum survives), each thread's State lives across the steps.
template <typename F>
void emulate_block_tiles(uint32_t grid_dim, const F& f, size_t shared_bytes) {
  TSR_CHECK(grid_dim > 0, TSR_ERR_INVALID_ARGUMENT, "emulate_block_tiles: empty launch");
  using Shared = typename F::Shared;
  std::vector<Shared> shared((shared_bytes + sizeof(Shared) - 1) / sizeof(Shared) + 1);
  std::vector<typename F::State> states(F::kRows);
  for (uint32_t b = 0; b < grid_dim; ++b) {
    std::memset(static_cast<void*>(shared.data()), 0x5a, shared.size() * sizeof(Shared));
    for (int64_t blk = b; blk < f.blocks(); blk += grid_dim) {
      for (uint32_t t = 0; t < F::kRows; ++t) f.start(blk, t, states[t]);
      const int64_t tiles = f.tiles(blk);
      for (int64_t tile = 0; tile < tiles; ++tile) {
        for (uint32_t t = 0; t < F::kRows; ++t) f.load(blk, tile, t, shared.data());
        for (uint32_t t = 0; t < F::kRows; ++t) f.consume(blk, tile, t, shared.data(), states[t]);
      }
      for (uint32_t t = 0; t < F::kRows; ++t) f.finish(blk, t, states[t]);
    }
  }
}

}  // namespace tsr::gpu
