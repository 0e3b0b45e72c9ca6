// Which shape a row kernel (reductions, (log_)softmax, its backward, nll
// loss) is launched in, and how wide its blocks are, and the launch both
// launchers share. Host code only; the choice is the same for the CUDA
// launcher and the emulator, so tests see the path a GPU would take.
//
// One thread per row walks the row serially; it suits many short rows, and
// many rows whose elements lie far apart while neighbouring rows are
// neighbours in memory (a reduction over a non-last dim, softmax over a
// dim with inner > 1): adjacent threads then read adjacent addresses. One
// block per row (block_rows.cuh) suits long rows: a single long row (mean
// of a whole tensor) would otherwise run on one thread.
//
// - kBlockRowMinLength = 64, two warps: a shorter row gives each thread
//   of even a one-warp block at most one element, and the block's tree
//   (five barriers for a warp) and shared-memory round trip then cost more
//   than the serial loop they replace. Short rows also mostly come many at
//   a time (softmax over classes), which one thread per row fills a GPU
//   with.
// - Long rows whose elements are strided (the reduced dim is not the
//   innermost) stay on one thread per row when there are kManyRows of
//   them: a quarter of the threads an H100 keeps resident (132 SMs x 2048),
//   enough to hide latency with coalesced reads, whereas a block would read
//   each element from a different memory segment. Fewer such rows take
//   the block path anyway: uncoalesced but parallel beats coalesced but
//   nearly idle.
// Both numbers are estimates: no row kernel has been timed on a GPU yet.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/block_rows.cuh"

namespace tsr::gpu {

constexpr int64_t kBlockRowMinLength = 64;
constexpr int64_t kManyRows = 65536;
constexpr uint32_t kWarp = 32;

// Whether `rows` rows of `len` elements run one block per row. unit_stride:
// consecutive elements of a row are adjacent in memory.
inline bool use_block_rows(int64_t rows, int64_t len, bool unit_stride) {
  return len >= kBlockRowMinLength && (unit_stride || rows < kManyRows);
}

// Threads per block for rows of len elements: about two elements per
// thread for short rows, at least a warp (a GPU schedules no less), at most
// max_block. Not necessarily a power of two when max_block is not one
// (the emulator's tests use such shapes; the tree handles any width).
inline uint32_t block_row_threads(int64_t len, uint32_t max_block) {
  uint32_t t = kWarp;
  while (t < max_block && 4 * int64_t(t) <= len) t *= 2;  // doubled, each thread still gets >= 2
  return std::min(t, max_block);
}

// Blocks for `rows` rows: one each, up to max_grid (the kernel's loop over
// rows, r += gridDim.x, covers the rest).
inline uint32_t block_row_grid(int64_t rows, uint32_t max_grid) {
  return uint32_t(std::min<int64_t>(std::max<int64_t>(rows, 1), max_grid));
}

// f over `rows` rows of `len` elements, on the path use_block_rows picks:
// launcher.launch_rows(name, rows, len, f) for blocks, launcher.launch(name,
// rows, OneThreadRows) for a thread per row. Block launches are named
// "<name>_block" so tests can tell which ran.
template <typename Launcher, typename F>
void launch_rows(Launcher& l, const char* name, const char* block_name, int64_t rows, int64_t len,
                 bool unit_stride, const F& f) {
  if (rows == 0) return;
  if (use_block_rows(rows, len, unit_stride)) l.launch_rows(block_name, rows, len, f);
  else l.launch(name, rows, OneThreadRows<F>{f});
}

}  // namespace tsr::gpu
