// The one-block-per-row __global__ kernel: the phase functors of
// block_rows.cuh with the block's partials in shared memory and a barrier
// after each step. gpu/emulator/grid_emulator.h's emulate_block_rows runs
// the same steps in the same order; a change to one is a change to both.
// Include only from .cu files.
#pragma once

#include <cstdint>

#include "kernels/block_rows.cuh"

namespace tsr::cuda {

// Row groups blockIdx.x, blockIdx.x + gridDim.x, ... of f: group g is rows
// g * width ... g * width + width - 1, one per lane, each split over
// blockDim.x / width threads (block_rows.cuh's block_seat). Lanes past the
// last row still reach every barrier. Dynamic shared memory: blockDim.x
// partials.
template <typename F>
__global__ void block_rows_kernel(int64_t rows, uint32_t width, F f) {
  using P = typename F::Partial;
  // Raw bytes, cast: kernels of different F share one extern array.
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const gpu::BlockSeat seat = gpu::block_seat(threadIdx.x, blockDim.x, width);
  const gpu::BlockThread t = seat.t;
  P* row_slots = reinterpret_cast<P*>(shared_bytes) + seat.lane;
  const uint32_t first = gpu::tree_first_stride(t.nthreads);
  for (int64_t g = blockIdx.x; g * width < rows; g += gridDim.x) {
    const int64_t r = g * width + seat.lane;
    const bool live = r < rows;
    P done[F::kPasses];
    for (int p = 0; p < F::kPasses; ++p) {
      if (live) row_slots[t.tid * width] = f.partial(r, p, t, done);  // phase 1
      __syncthreads();
      for (uint32_t s = first; s > 0; s >>= 1) {  // phase 2
        if (live) gpu::tree_level(f, p, row_slots, width, t, s);
        __syncthreads();
      }
      if (live) done[p] = row_slots[0];
      __syncthreads();  // row_slots[0] read by all before the next pass or group writes it
    }
    if (live) f.finish(r, t, done);
  }
}

}  // namespace tsr::cuda
