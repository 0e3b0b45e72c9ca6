// Results of outer reductions written straight into torch's layout.
//
// An outer reduction (reduce_plan.h) runs over the kept dims in memory
// order, so that each work item's columns are contiguous in its
// accumulator. torch returns C-contiguous results whatever the input's
// layout, and the two orders differ when the input's memory order is not
// its C order among the kept dims: a channels_last tensor reduced over N,
// H or W. Copying the whole accumulator into the C-ordered result
// afterwards read and wrote it once more through the last-level cache (a
// fifth of max over dim 0 of a channels_last float32 [32, 64, 56, 56]);
// instead the kernels compute a batch of columns into a small scratch
// buffer and ResultScatter writes it to its places in the result while it
// is still in L1/L2.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/shape.h"
#include "cpu/kernels/reduce_plan.h"

namespace tsr::kernels {

class ResultScatter {
 public:
  // sizes: the keepdim sizes of the result; plan: its reduction's plan.
  ResultScatter(const Shape& sizes, const ReducePlan& plan);

  // The strides to allocate the result (and accumulator) with: C order for
  // an outer reduction, which lays it out itself; the plan's memory-order
  // accumulator strides for a reduction along rows.
  const Shape& result_strides() const { return result_strides_; }

  // True for an outer reduction whose memory order is not the result's C
  // order: its kernel computes columns into scratch and calls this.
  bool needed() const { return needed_; }

  // Only when needed(). For t < n: the element of accumulator index m0 + t
  // goes from src[t] to its C-order place in dst (the result's first
  // element). Elements of es bytes (1, 2, 4 or 8); src holds n of them,
  // contiguous. Runs along the accumulator's innermost kept dim that land
  // on neighbouring rows of the result go through the tiled transpose of
  // copy.h.
  void operator()(void* dst, const void* src, int64_t m0, int64_t n, int64_t es) const;

 private:
  struct Dim {
    int64_t size;
    int64_t stride;  // in the C-contiguous result, elements
  };
  // The kept dims in the accumulator's order, innermost first, merged where
  // the result is contiguous across them too.
  SmallVector<Dim, 6> dims_;
  Shape result_strides_;
  bool needed_ = false;
};

// An outer reduction's work items: item i is the columns
// [first(i), first(i) + width(i)) of the inner kept dim (cols columns in
// blocks of `block`) for the outer index outer(i).
struct ColumnBlocks {
  int64_t cols, block, blocks;
  ColumnBlocks(int64_t cols_, int64_t block_) : cols(cols_), block(block_), blocks((cols_ + block_ - 1) / block_) {}
  int64_t outer(int64_t item) const { return item / blocks; }
  int64_t first(int64_t item) const { return (item % blocks) * block; }
  int64_t width(int64_t item) const { return std::min(block, cols - first(item)); }
};

// Items [b, e) in runs of consecutive items of at most one block of
// columns in all (at least one item): compute(item, at) for each, which
// computes the item's columns into scratch + at (at: the columns of the
// run before it) and returns the accumulator index of its first column;
// then flush(m0, columns) with the run's first index and its columns.
// Consecutive items are consecutive ranges of the accumulator, which is
// dense in memory order, so a run is one range [m0, m0 + columns).
template <class Compute, class Flush>
void for_each_batch(const ColumnBlocks& items, int64_t b, int64_t e, Compute&& compute, Flush&& flush) {
  for (int64_t item = b; item < e;) {
    const int64_t m0 = compute(item, 0);
    int64_t columns = items.width(item++);
    for (; item < e && columns + items.width(item) <= items.block; columns += items.width(item++))
      compute(item, columns);
    flush(m0, columns);
  }
}

}  // namespace tsr::kernels
