// Iteration over N operands that share one shape but have their own strides
// (in bytes), the core of TensorIterator reduced to what tessera needs:
// dims of size 1 are dropped, dims are ordered by operand 0's strides
// (smallest innermost, TensorIterator's rule), and neighbouring dims that
// are contiguous for every operand are merged. The body is called once per
// innermost run: body(char* ptrs[N], const int64_t strides[N], int64_t n).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// Element strides times an element size: the byte strides the loops take.
inline Shape scaled_strides(Shape strides, int64_t bytes) {
  for (auto& s : strides) s *= bytes;
  return strides;
}
inline Shape byte_strides(const Tensor& t) {
  return scaled_strides(t.strides(), t.element_size());
}

template <size_t N>
struct LoopGeometry {
  // Shapes: up to 6 dims on the stack, no heap allocation per loop.
  Shape sizes;                     // innermost first
  std::array<Shape, N> strides;    // bytes, innermost first
};

// Builds the coalesced, reordered geometry. `strides[k]` are operand k's
// byte strides for `sizes` (outermost first, as tensors store them).
template <size_t N>
LoopGeometry<N> make_geometry(const Shape& sizes, const std::array<Shape, N>& strides) {
  SmallVector<size_t, 6> dims;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) dims.push_back(d);
  // Innermost first: sort by operand 0's |stride| ascending (operand 0 is
  // the output, which never overlaps itself); equal strides keep C order,
  // i.e. later dims inner, which stable sort over reversed dims gives.
  std::reverse(dims.begin(), dims.end());
  stable_sort_small(dims.begin(), dims.end(), [&](size_t a, size_t b) {
    return std::abs(strides[0][a]) < std::abs(strides[0][b]);
  });
  LoopGeometry<N> g;
  for (size_t d : dims) {
    if (!g.sizes.empty()) {
      bool mergeable = true;
      for (size_t k = 0; k < N; ++k)
        if (strides[k][d] != g.strides[k].back() * g.sizes.back()) mergeable = false;
      if (mergeable) {
        g.sizes.back() *= sizes[d];
        continue;
      }
    }
    g.sizes.push_back(sizes[d]);
    for (size_t k = 0; k < N; ++k) g.strides[k].push_back(strides[k][d]);
  }
  return g;
}

// Runs body over every innermost run of the geometry.
template <size_t N, typename Body>
void for_each_run(const LoopGeometry<N>& g, std::array<char*, N> base, Body&& body) {
  const size_t nd = g.sizes.size();
  std::array<int64_t, N> inner{};
  if (nd == 0) {  // scalar-like: one element
    body(base.data(), inner.data(), int64_t(1));
    return;
  }
  for (size_t k = 0; k < N; ++k) inner[k] = g.strides[k][0];
  const int64_t n = g.sizes[0];
  Shape counter(nd, 0);
  std::array<char*, N> ptr = base;
  while (true) {
    body(ptr.data(), inner.data(), n);
    size_t d = 1;
    for (; d < nd; ++d) {
      for (size_t k = 0; k < N; ++k) ptr[k] += g.strides[k][d];
      if (++counter[d] < g.sizes[d]) break;
      for (size_t k = 0; k < N; ++k) ptr[k] -= g.strides[k][d] * g.sizes[d];
      counter[d] = 0;
    }
    if (d >= nd) return;
  }
}

}  // namespace tsr::kernels
