// The launcher kernel_dispatch.h drives in the CUDA plugin: a functor run
// by a grid-stride __global__ kernel, a row op's phase functors by one
// block per row (cuda_block_rows.cuh), or a tiled copy's steps by one block
// per tile, on the stream's cudaStream_t.
// Include only from .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.h"
#include "cuda_streams.h"
#include "kernels/cuda_block_rows.cuh"
#include "kernels/row_path.h"
#include "kernels/thread_ctx.cuh"
#include "kernels/tiled_copy.cuh"

namespace tsr::cuda {

template <typename F>
__global__ void grid_stride_kernel(int64_t n, F f) {
  gpu::grid_stride(gpu::ThreadCtx{blockIdx.x, blockDim.x, threadIdx.x, gridDim.x}, n, f);
}

// Tiles blockIdx.x, blockIdx.x + gridDim.x, ... of a tiled copy
// (tiled_copy.cuh), kTileThreads threads per block. The emulator's
// emulate_tiles (gpu/emulator/grid_emulator.h) runs the same two steps.
template <typename F>
__global__ void tiles_kernel(int64_t tiles, F f) {
  __shared__ typename F::Tile tile;
  for (int64_t i = blockIdx.x; i < tiles; i += gridDim.x) {
    f.load(i, threadIdx.x, tile);
    __syncthreads();
    f.store(i, threadIdx.x, tile);
    __syncthreads();  // every read of this tile before the next tile's load
  }
}

// Blocks blockIdx.x, blockIdx.x + gridDim.x, ... of a block-tiled kernel
// (attention_functors.cuh's SdpaForwardTiles), F::kRows threads per block,
// `shared` bytes of dynamic shared memory. The emulator's
// emulate_block_tiles (gpu/emulator/grid_emulator.h) runs the same steps.
template <typename F>
__global__ void block_tiles_kernel(F f) {
  extern __shared__ __align__(16) unsigned char block_tiles_shared[];
  auto* shared = reinterpret_cast<typename F::Shared*>(block_tiles_shared);
  for (int64_t blk = blockIdx.x; blk < f.blocks(); blk += gridDim.x) {
    typename F::State st;
    f.start(blk, threadIdx.x, st);
    const int64_t tiles = f.tiles(blk);
    for (int64_t tile = 0; tile < tiles; ++tile) {
      f.load(blk, tile, threadIdx.x, shared);
      __syncthreads();
      f.consume(blk, tile, threadIdx.x, shared, st);
      __syncthreads();  // every read of this tile before the next tile's load
    }
    f.finish(blk, threadIdx.x, st);
  }
}

// Throws TSR_ERR_INTERNAL naming the kernel when the last launch failed
// (cudaGetLastError also clears the error for the next call).
inline void check_launch(const char* name) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw Error(TSR_ERR_INTERNAL, runtime_error_text(str("launch of kernel ", name).c_str(), e));
}

// Launches on tessera stream s: s's device is current (DeviceGuard) while
// the launcher lives, kernels go to s's cudaStream_t.
class CudaLauncher {
 public:
  explicit CudaLauncher(Stream s) : guard_(s.device.index), stream_(native_stream(s)) {}
  cudaStream_t stream() const { return stream_; }

  static constexpr uint32_t kBlock = 256;
  // Enough blocks to fill the device several times over; the grid-stride
  // loop covers the rest.
  static constexpr int64_t kMaxGrid = 65535;

  template <typename F>
  void launch(const char* name, int64_t n, const F& f) {
    const int64_t blocks = std::min<int64_t>((n + kBlock - 1) / kBlock, kMaxGrid);
    grid_stride_kernel<F><<<unsigned(blocks), kBlock, 0, stream_>>>(n, f);
    check_launch(name);
  }

  // Phase functor f over `rows` rows in blocks of width rows x depth
  // threads (row_path.h's launch_rows), a partial per thread in shared
  // memory. A block per row is at most kBlock threads; column blocks up to
  // kColumnBlock, fewer when the kernel's registers allow fewer
  // (cudaFuncGetAttributes, once per kernel): then each row gets fewer
  // threads, which changes only how a floating sum rounds.
  static constexpr uint32_t kColumnBlock = 1024;
  uint32_t max_block() const { return kBlock; }
  uint32_t max_column_block() const { return kColumnBlock; }
  template <typename F>
  void launch_rows(const char* name, int64_t rows, uint32_t width, uint32_t depth, const F& f) {
    static const uint32_t kernel_limit = [] {
      cudaFuncAttributes a{};
      return cudaFuncGetAttributes(&a, block_rows_kernel<F>) == cudaSuccess ? uint32_t(a.maxThreadsPerBlock)
                                                                            : kBlock;
    }();
    depth = std::max<uint32_t>(1, std::min(depth, kernel_limit / width));
    const uint32_t threads = width * depth;
    const uint32_t blocks = gpu::block_row_grid(rows, width, uint32_t(kMaxGrid));
    const size_t shared = size_t(threads) * sizeof(typename F::Partial);
    block_rows_kernel<F><<<blocks, threads, shared, stream_>>>(rows, width, f);
    check_launch(name);
  }

  // A block-tiled kernel's f.blocks() blocks of F::kRows threads with
  // `shared` bytes of shared memory each.
  template <typename F>
  void launch_block_tiles(const char* name, const F& f, size_t shared) {
    const int64_t blocks = std::min<int64_t>(f.blocks(), kMaxGrid);
    block_tiles_kernel<F><<<unsigned(blocks), F::kRows, shared, stream_>>>(f);
    check_launch(name);
  }

  // A tiled copy's `tiles` tiles, one block of gpu::kTileThreads each.
  template <typename F>
  void launch_tiles(const char* name, int64_t tiles, const F& f) {
    const int64_t blocks = std::min<int64_t>(tiles, kMaxGrid);
    tiles_kernel<F><<<unsigned(blocks), gpu::kTileThreads, 0, stream_>>>(tiles, f);
    check_launch(name);
  }

 private:
  DeviceGuard guard_;
  cudaStream_t stream_;
};

}  // namespace tsr::cuda
