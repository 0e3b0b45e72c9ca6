// for_each_run (strided_loop.h) over a part of the iteration space: the
// elements [begin, end) in the geometry's order (innermost fastest), so a
// copy can be cut into chunks for threads at any element, not only at whole
// runs. The first and last runs of a part may be partial.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/strided_loop.h"

namespace tsr::kernels {

template <size_t N, typename Body>
void for_each_run_in(const LoopGeometry<N>& g, std::array<char*, N> base, int64_t begin,
                     int64_t end, Body&& body) {
  const size_t nd = g.sizes.size();
  std::array<int64_t, N> inner{};
  if (nd == 0) {  // scalar-like: one element
    if (begin == 0 && end >= 1) body(base.data(), inner.data(), int64_t(1));
    return;
  }
  for (size_t k = 0; k < N; ++k) inner[k] = g.strides[k][0];
  // The counters of element `begin` and the pointers there.
  Shape counter(nd, 0);
  std::array<char*, N> ptr = base;
  int64_t rest = begin;
  for (size_t d = 0; d < nd; ++d) {
    counter[d] = rest % g.sizes[d];
    rest /= g.sizes[d];
    for (size_t k = 0; k < N; ++k) ptr[k] += counter[d] * g.strides[k][d];
  }
  int64_t left = end - begin;
  const int64_t n0 = g.sizes[0];
  while (left > 0) {
    const int64_t len = std::min(n0 - counter[0], left);
    body(ptr.data(), inner.data(), len);
    left -= len;
    if (left == 0) return;
    // The run ended at the end of dim 0: back to its start, carry outwards.
    for (size_t k = 0; k < N; ++k) ptr[k] -= counter[0] * inner[k];
    counter[0] = 0;
    for (size_t d = 1; d < nd; ++d) {
      for (size_t k = 0; k < N; ++k) ptr[k] += g.strides[k][d];
      if (++counter[d] < g.sizes[d]) break;
      for (size_t k = 0; k < N; ++k) ptr[k] -= g.strides[k][d] * g.sizes[d];
      counter[d] = 0;
    }
  }
}

// for_each_run over `numel` elements of the geometry, cut into chunks of
// parallel_for (grain kGrainSize, as TensorIterator's elementwise loops):
// for bodies that compute each element alone from its operands (the
// elementwise ops), so the result is the same on any thread count.
template <size_t N, typename Body>
void parallel_for_each_run(const LoopGeometry<N>& g, std::array<char*, N> base, int64_t numel, Body&& body) {
  parallel_for(numel, kGrainSize,
               [&](int64_t begin, int64_t end) { for_each_run_in<N>(g, base, begin, end, body); });
}

}  // namespace tsr::kernels
