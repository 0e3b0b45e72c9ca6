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
//   enough to hide latency with coalesced reads.
// - Fewer long strided rows whose neighbours are adjacent in memory (sum
//   over dim 0 of a matrix) run as *column blocks*: kWarp neighbouring rows
//   per block, one lane each, and `depth` threads per row splitting it, so
//   a warp reads 32 adjacent elements at a time and the block still
//   divides each row (ATen's reduction over an outer dim splits the block
//   the same two ways). On an H200 a [4096, 4096] float32 sum over dim 0
//   took 0.127 ms with a block per (uncoalesced) row, torch 0.042 ms.
// - Other long strided rows take a block per row anyway: uncoalesced but
//   parallel beats coalesced but nearly idle.
// kBlockRowMinLength and kManyRows are still estimates: the GPU runs so
// far timed [4096, 4096] reductions and softmax only (bench/README.md).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/block_rows.cuh"

namespace tsr::gpu {

constexpr int64_t kBlockRowMinLength = 64;
constexpr int64_t kManyRows = 65536;
constexpr uint32_t kWarp = 32;
// Elements each thread of a column block gets at least, before the block
// grows deeper.
constexpr int64_t kColumnShare = 8;

enum class RowPath { OneThread, BlockPerRow, Columns };

// The path for `rows` rows of `len` elements. unit_stride: consecutive
// elements of a row are adjacent in memory; rows_adjacent: rows r and r + 1
// start at adjacent elements.
inline RowPath row_path(int64_t rows, int64_t len, bool unit_stride, bool rows_adjacent) {
  if (len < kBlockRowMinLength) return RowPath::OneThread;
  if (unit_stride) return RowPath::BlockPerRow;
  if (rows >= kManyRows) return RowPath::OneThread;
  return rows_adjacent ? RowPath::Columns : RowPath::BlockPerRow;
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

// A column block: `width` rows side by side (the fast-moving lanes), each
// split over `depth` threads; width * depth <= max_block.
struct ColumnShape {
  uint32_t width, depth;
};
inline ColumnShape column_shape(int64_t len, uint32_t max_block) {
  const uint32_t width = std::min(kWarp, max_block);
  const int64_t by_len = std::max<int64_t>(len / kColumnShare, 1);
  return {width, uint32_t(std::min<int64_t>(max_block / width, by_len))};
}

// Blocks for `rows` rows in groups of `width`: one per group, up to
// max_grid (the kernel's loop, g += gridDim.x, covers the rest).
inline uint32_t block_row_grid(int64_t rows, uint32_t width, uint32_t max_grid) {
  const int64_t groups = (rows + width - 1) / width;
  return uint32_t(std::min<int64_t>(std::max<int64_t>(groups, 1), max_grid));
}

// The names a row op's launches go by, one per path, so tests can tell
// which ran: "<op>", "<op>_block", "<op>_columns".
struct RowNames {
  const char *one_thread, *block, *columns;
};

// f over `rows` rows of `len` elements, on the path row_path picks:
// launcher.launch(names.one_thread, rows, OneThreadRows) for a thread per
// row, launcher.launch_rows(name, rows, width, depth, f) for blocks
// (width 1: a block per row, width > 1: column blocks).
template <typename Launcher, typename F>
void launch_rows(Launcher& l, const RowNames& names, int64_t rows, int64_t len, bool unit_stride,
                 bool rows_adjacent, const F& f) {
  if (rows == 0) return;
  switch (row_path(rows, len, unit_stride, rows_adjacent)) {
    case RowPath::OneThread: l.launch(names.one_thread, rows, OneThreadRows<F>{f}); return;
    case RowPath::BlockPerRow:
      l.launch_rows(names.block, rows, 1, block_row_threads(len, l.max_block()), f);
      return;
    case RowPath::Columns: {
      const ColumnShape c = column_shape(len, l.max_column_block());
      l.launch_rows(names.columns, rows, c.width, c.depth, f);
      return;
    }
  }
}

}  // namespace tsr::gpu
