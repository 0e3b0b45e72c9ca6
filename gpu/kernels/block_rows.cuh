// The pieces of a row kernel shared by its two shapes and by the CPU grid
// emulator. A row op is written as *phase functors* (row_functors.cuh):
//
//   partial(r, pass, t, done)  phase 1: thread t's partial result of pass
//                              `pass` over its elements t, t + n, t + 2n, ...
//                              of row r (n threads); `done` holds the block's
//                              results of the earlier passes
//   combine(pass, a, b)        phase 2: two partials folded into one
//   finish(r, t, done)         thread t's share of row r's writes, once
//                              every pass is done
//
// with a trivially copyable `Partial` and `kPasses` reductions per row. Two
// ways to run them:
//   - one thread per row (OneThreadRows below): a "block" of one thread,
//     which walks the row in order, the CPU kernels' order;
//   - blocks (cuda_block_rows.cuh on a GPU, emulate_block_rows in
//     gpu/emulator/grid_emulator.h on the host): `width` rows side by side
//     (width 1: one block per row; more: column blocks, row_path.h), each
//     row split over `depth` threads; every thread's partial goes to shared
//     memory, then a tree combine per row, one barrier per level
//     (tree_level).
// The emulator and the __global__ wrapper call exactly these functions; only
// the barriers and the shared array are theirs.
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace tsr::gpu {

// Thread `tid` of the `nthreads` working on one row.
struct BlockThread {
  uint32_t tid, nthreads;
};

// Where thread x of a block of width x depth threads works: lane x % width
// (its row among the block's width rows) as thread x / width of that row.
// Its partial lives in shared slot x = tid * width + lane, so the slots of
// one row are width apart.
struct BlockSeat {
  uint32_t lane;
  BlockThread t;
};
TSR_HOST_DEVICE inline BlockSeat block_seat(uint32_t x, uint32_t block_threads, uint32_t width) {
  return {x % width, BlockThread{x / width, block_threads / width}};
}

// The first stride of the tree combine over n slots: the largest power of
// two below n (0 when n <= 1: nothing to combine). n need not be a power of
// two: a level skips the slots it would pair beyond n.
TSR_HOST_DEVICE inline uint32_t tree_first_stride(uint32_t n) {
  uint32_t s = 1;
  while (s < n) s <<= 1;
  return s >> 1;
}

// One level of one row's tree: its partials are row_slots[k * width], k <
// t.nthreads; thread t < stride folds partial t + stride into partial t. A
// level writes only partials below `stride` and reads only those from
// `stride` up, so its threads never race; the barrier after it orders it
// before the next level. After the last level (stride 1) row_slots[0]
// holds the combination of all the row's partials.
template <typename F, typename P>
TSR_HOST_DEVICE inline void tree_level(const F& f, int pass, P* row_slots, uint32_t width,
                                       const BlockThread& t, uint32_t stride) {
  if (t.tid < stride && t.tid + stride < t.nthreads)
    row_slots[t.tid * width] = f.combine(pass, row_slots[t.tid * width], row_slots[(t.tid + stride) * width]);
}

// A thread's share of a row, elements j = first, first + step, ... < n,
// visited in that order, exactly as the plain loop would (so sums add in
// the same order and a max scan meets the same first maximum), but loaded
// kShareLoads at a time before any is used: a GPU thread then has that many
// loads in flight instead of one, which is what bounds a long row's time.
// load(j) gives element j (one typed load when the dtype is a template
// argument); visit(v, j) returns false to stop the scan (a max after a
// NaN). kUnroll 1: one load at a time (for loads that switch on a run-time
// dtype, whose values in flight would only cost registers).
constexpr int kShareLoads = 8;
template <int kUnroll = kShareLoads, typename Load, typename Visit>
TSR_HOST_DEVICE inline void scan_share(int64_t first, int64_t n, int64_t step, const Load& load,
                                       const Visit& visit) {
  int64_t j = first;
  if constexpr (kUnroll > 1) {
    for (; j + (kUnroll - 1) * step < n; j += kUnroll * step) {
      decltype(load(j)) v[kUnroll];
      for (int u = 0; u < kUnroll; ++u) v[u] = load(j + u * step);
      for (int u = 0; u < kUnroll; ++u)
        if (!visit(v[u], j + u * step)) return;
    }
  }
  for (; j < n; j += step)
    if (!visit(load(j), j)) return;
}

// The one-thread-per-row kernel body of a phase functor: f(r) runs every
// pass and the writes of row r in one thread, in element order.
template <typename F>
struct OneThreadRows {
  F f;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const BlockThread self{0, 1};
    typename F::Partial done[F::kPasses];
    for (int p = 0; p < F::kPasses; ++p) done[p] = f.partial(r, p, self, done);
    f.finish(r, self, done);
  }
};

}  // namespace tsr::gpu
