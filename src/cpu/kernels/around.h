// A C-contiguous tensor seen as [outer, len, inner] around one dim: the loop
// shape of softmax, log_softmax and normalisations along a dim.
#pragma once

#include <type_traits>

#include "core/shape.h"

namespace tsr::kernels {

struct Around {
  int64_t outer = 1, len = 1, inner = 1;
};

// The accumulator type of these loops: double for float64, float otherwise
// (ATen's opmath type).
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// For a 0-dim tensor every extent is 1.
inline Around around(const Shape& sizes, int64_t dim) {
  Around a;
  for (int64_t i = 0; i < int64_t(sizes.size()); ++i) {
    if (i < dim) a.outer *= sizes[i];
    else if (i == dim) a.len = sizes[i];
    else a.inner *= sizes[i];
  }
  return a;
}

}  // namespace tsr::kernels
