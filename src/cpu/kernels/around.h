// A C-contiguous tensor seen as [outer, len, inner] around one dim: the loop
// shape of softmax, log_softmax and normalisations along a dim.
#pragma once

#include "core/shape.h"

namespace tsr::kernels {

struct Around {
  int64_t outer = 1, len = 1, inner = 1;
};

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
