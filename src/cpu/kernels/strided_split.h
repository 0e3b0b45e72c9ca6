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
// elementwise ops), so the result is the same on any thread count. Cuts
// fall on multiples of `quantum` elements (numel must be one): a body
// whose math depends on where an element sits in its run (pow_simd's
// blocks of 64 bytes, then a scalar tail, as ATen's vectorized loop) gives
// the one-thread bits when every cut falls on a block boundary of its run.
template <size_t N, typename Body>
void parallel_for_each_run(const LoopGeometry<N>& g, std::array<char*, N> base, int64_t numel, Body&& body,
                           int64_t quantum = 1) {
  parallel_for(numel / quantum, std::max<int64_t>(1, kGrainSize / quantum), [&](int64_t begin, int64_t end) {
    for_each_run_in<N>(g, base, begin * quantum, end * quantum, body);
  });
}

// Cuts of dense operands fall on multiples of this many elements: a
// multiple of every SIMD kernel's blocking (vectors of up to 64 lanes,
// pow's 64-byte blocks, the 16-bit kernels' 1024-element conversion
// chunks), so each element is computed exactly as on one thread.
inline constexpr int64_t kDenseQuantum = 1024;

// body(begin, end) over the elements [0, n) of dense operands, in
// parallel_for chunks cut at multiples of kDenseQuantum, for the SIMD
// kernels that answer false when they do not take a dtype (before writing
// anything). The first chunk runs on the calling thread first: its answer,
// which depends on the dtype only, decides whether the rest run.
template <typename Body>
bool parallel_dense(int64_t n, Body&& body) {
  const int64_t first = std::min(n, kGrainSize);  // a multiple of kDenseQuantum, or all of n
  if (!body(int64_t(0), first)) return false;
  const int64_t units = (n - first + kDenseQuantum - 1) / kDenseQuantum;
  parallel_for(units, kGrainSize / kDenseQuantum, [&](int64_t b, int64_t e) {
    body(first + b * kDenseQuantum, std::min(n, first + e * kDenseQuantum));
  });
  return true;
}

}  // namespace tsr::kernels
