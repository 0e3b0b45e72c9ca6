// A thread's coordinates in a 1-D launch, and the grid-stride loop every
// kernel runs: what a __global__ wrapper reads from blockIdx/threadIdx and
// what the CPU grid emulator (gpu/emulator/grid_emulator.h) hands it, so
// both run the same loop, tails included.
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace tsr::gpu {

struct ThreadCtx {
  uint32_t block_idx, block_dim, thread_idx, grid_dim;
};

// f(i) for i = this thread's first index, then every block_dim * grid_dim
// after it, below n. 64-bit throughout: i may pass 2^31.
template <typename F>
TSR_HOST_DEVICE inline void grid_stride(const ThreadCtx& t, int64_t n, const F& f) {
  const int64_t step = int64_t(t.block_dim) * int64_t(t.grid_dim);
  for (int64_t i = int64_t(t.block_idx) * t.block_dim + t.thread_idx; i < n; i += step) f(i);
}

}  // namespace tsr::gpu
