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
//   - one block per row (cuda_block_rows.cuh on a GPU,
//     emulate_block_rows in gpu/emulator/grid_emulator.h on the host): every
//     thread's partial goes to shared memory, then a tree combine, one
//     barrier per level (tree_level).
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

// The first stride of the tree combine over n slots: the largest power of
// two below n (0 when n <= 1: nothing to combine). n need not be a power of
// two: a level skips the slots it would pair beyond n.
TSR_HOST_DEVICE inline uint32_t tree_first_stride(uint32_t n) {
  uint32_t s = 1;
  while (s < n) s <<= 1;
  return s >> 1;
}

// One level of the tree: thread t < stride folds slot t + stride into slot
// t. A level writes only slots below `stride` and reads only slots from
// `stride` up, so its threads never race; the barrier after it orders it
// before the next level. After the last level (stride 1) slot 0 holds the
// combination of all n partials.
template <typename F, typename P>
TSR_HOST_DEVICE inline void tree_level(const F& f, int pass, P* slots, const BlockThread& t,
                                       uint32_t stride) {
  if (t.tid < stride && t.tid + stride < t.nthreads)
    slots[t.tid] = f.combine(pass, slots[t.tid], slots[t.tid + stride]);
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
