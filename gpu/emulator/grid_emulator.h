// The CPU grid emulator: runs a kernel body over every (blockIdx,
// threadIdx) of a 1-D launch of grid_dim blocks of block_dim threads, as
// the GPU would, one thread after another. The body is the same
// TSR_HOST_DEVICE code the __global__ wrappers run (thread_ctx.cuh), so
// grid-stride loops, tails and index math are exercised without a GPU.
// Host only; no thread runs concurrently, so it checks what a launch
// computes, not its races.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "kernels/thread_ctx.cuh"

namespace tsr::gpu {

// A 1-D launch shape: block_dim threads per block, at most max_grid blocks
// (a grid-stride loop covers the rest).
struct LaunchShape {
  uint32_t block_dim = 256;
  uint32_t max_grid = 65535;
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

}  // namespace tsr::gpu
