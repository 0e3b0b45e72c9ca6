// How a reduction walks its input, as TensorIterator orders a reduction:
// the input's dims in memory order (smallest stride innermost), size-1 dims
// dropped, neighbours merged where both the input and the accumulator are
// contiguous across them. Then the innermost dim says which loop to run:
// - reduced ("inner reduction"): each output sums a contiguous run; rows
//   are summed with vector accumulators (cascade_sum);
// - kept ("outer reduction"): whole rows of the kept inner dim are added
//   into a row buffer of accumulators while the loop streams over the
//   reduced dim, so memory is read sequentially instead of one column at
//   a 16 KiB stride.
// The accumulator has the output's keepdim sizes and strides that follow
// the input's memory order, so its inner kept dim is contiguous too.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

struct ReduceDim {
  int64_t size;
  int64_t in_stride;   // bytes
  int64_t acc_stride;  // elements; 0 on reduced dims
  bool reduced;
};

// Innermost first; up to 6 inline (no heap allocation per reduction).
using ReduceDims = SmallVector<ReduceDim, 6>;

struct ReducePlan {
  Shape acc_strides;            // of the keepdim-sized accumulator, elements (size-1 dims: C order)
  ReduceDims dims;  // innermost first, coalesced
};

ReducePlan make_reduce_plan(const Tensor& t, const std::vector<bool>& mask);

// The dims an outer loop walks: index k of their product gives byte offset
// into the input and element offset into the accumulator.
struct OuterDims {
  ReduceDims dims;  // innermost first
  int64_t count() const {
    int64_t n = 1;
    for (const auto& d : dims) n *= d.size;
    return n;
  }
  // Calls f(in_offset, acc_offset) for k in [begin, end), in order: one
  // division per dim at `begin`, then an odometer.
  template <typename F>
  void for_range(int64_t begin, int64_t end, F&& f) const {
    const size_t nd = dims.size();
    // Called once per output by the inner loops: no heap for usual ranks.
    int64_t small[8];
    std::vector<int64_t> big(nd > 8 ? nd : 0);
    int64_t* idx = nd > 8 ? big.data() : small;
    int64_t in = 0, acc = 0, rem = begin;
    for (size_t d = 0; d < nd; ++d) {
      idx[d] = rem % dims[d].size;
      rem /= dims[d].size;
      in += idx[d] * dims[d].in_stride;
      acc += idx[d] * dims[d].acc_stride;
    }
    for (int64_t k = begin; k < end; ++k) {
      f(in, acc);
      for (size_t d = 0; d < nd; ++d) {
        in += dims[d].in_stride;
        acc += dims[d].acc_stride;
        if (++idx[d] < dims[d].size) break;
        in -= dims[d].in_stride * dims[d].size;
        acc -= dims[d].acc_stride * dims[d].size;
        idx[d] = 0;
      }
    }
  }
};

}  // namespace tsr::kernels
