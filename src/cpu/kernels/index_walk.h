// Walking an index tensor's positions with the element offsets of the
// tensors read or written there: the loop gather, scatter and their
// relatives share (indexing.cpp, scatter.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "core/error.h"
#include "core/layout.h"
#include "core/tensor.h"
#include "cpu/kernels/copy.h"

namespace tsr::kernels {

// Visits every position of `sizes` in C order, passing each operand's
// element offset there (operand k read through strides[k]).
template <size_t N, typename F>
void walk(const Shape& sizes, const std::array<Shape, N>& strides, F&& f) {
  const size_t nd = sizes.size();
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  std::vector<int64_t> pos(nd, 0);
  std::array<int64_t, N> off{};
  for (int64_t k = 0; k < total; ++k) {
    f(off);
    for (size_t d = nd; d-- > 0;) {
      if (++pos[d] < sizes[d]) {
        for (size_t n = 0; n < N; ++n) off[n] += strides[n][d];
        break;
      }
      for (size_t n = 0; n < N; ++n) off[n] -= strides[n][d] * (sizes[d] - 1);
      pos[d] = 0;
    }
  }
}

// t's strides over `nd` dims (a 0-dim t is seen as [1]), with dim's
// stride zeroed when `drop` (the indexed dim, whose offset comes from the
// index instead).
inline Shape strides_for(const Tensor& t, size_t nd, int64_t drop = -1) {
  Shape s = t.ndim() ? t.strides() : Shape(nd, 0);
  if (drop >= 0) s[size_t(drop)] = 0;
  return s;
}

// t as a C-contiguous tensor of dtype d: t itself when it already is one
// (an index or a mask is read, never written, so no copy is needed).
inline Tensor contiguous_as(const Tensor& t, tsr_dtype d) {
  return t.dtype() == d && is_contiguous_strides(t.sizes(), t.strides()) ? t : contiguous_copy(t, d);
}

// The index's values as a contiguous int64 vector.
inline std::vector<int64_t> index_values(const Tensor& index) {
  const Tensor c = contiguous_as(index, TSR_INT64);
  const int64_t* p = c.data<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// x's size along dim, 1 for a 0-dim x (ATen's ensure_nonempty_size).
inline int64_t size_or_one(const Tensor& x, int64_t dim) { return x.ndim() ? x.sizes()[size_t(dim)] : 1; }

// Checks every index of a gather/scatter against size n, before any write.
inline void check_gather_indices(const Tensor& index, int64_t dim, int64_t n) {
  const Tensor idx = contiguous_as(index, TSR_INT64);
  const int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i)
    TSR_CHECK(p[i] >= 0 && p[i] < n, TSR_ERR_INDEX_OUT_OF_RANGE, "index ", p[i], " is out of bounds for dimension ",
              dim, " with size ", n);
}

}  // namespace tsr::kernels
