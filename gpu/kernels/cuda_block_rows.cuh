// The one-block-per-row __global__ kernel: the phase functors of
// block_rows.cuh with the block's partials in shared memory and a barrier
// after each step. gpu/emulator/grid_emulator.h's emulate_block_rows runs
// the same steps in the same order; a change to one is a change to both.
// Include only from .cu files.
#pragma once

#include <cstdint>

#include "kernels/block_rows.cuh"

namespace tsr::cuda {

// Rows blockIdx.x, blockIdx.x + gridDim.x, ... of f, each by the whole
// block. Dynamic shared memory: blockDim.x partials.
template <typename F>
__global__ void block_rows_kernel(int64_t rows, F f) {
  using P = typename F::Partial;
  // Raw bytes, cast: kernels of different F share one extern array.
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  P* slots = reinterpret_cast<P*>(shared_bytes);
  const gpu::BlockThread t{threadIdx.x, blockDim.x};
  const uint32_t first = gpu::tree_first_stride(t.nthreads);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    P done[F::kPasses];
    for (int p = 0; p < F::kPasses; ++p) {
      slots[t.tid] = f.partial(r, p, t, done);  // phase 1
      __syncthreads();
      for (uint32_t s = first; s > 0; s >>= 1) {  // phase 2
        gpu::tree_level(f, p, slots, t, s);
        __syncthreads();
      }
      done[p] = slots[0];
      __syncthreads();  // slot 0 read by all before the next pass or row writes it
    }
    f.finish(r, t, done);
  }
}

}  // namespace tsr::cuda
