// Which elements an elementwise kernel call writes: the offsets of its
// output operand over the iteration shape. On a GPU every element of one
// launch runs at once, so a call whose output reaches an element twice is
// a race (lost updates for a read-modify-write); the device tests check
// that no call src/device makes has one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/device_kernels.h"

namespace tsr::devtest {

// Element offsets of out over shape, in iteration order.
inline std::vector<int64_t> written_offsets(const KernelShape& shape, const KernelOperand& out) {
  std::vector<int64_t> offsets;
  if (shape.numel() == 0) return offsets;
  int64_t idx[kMaxKernelDims] = {};
  while (true) {
    int64_t off = 0;
    for (int32_t d = 0; d < shape.ndim; ++d) off += idx[d] * out.strides[d];
    offsets.push_back(off);
    int32_t d = shape.ndim;
    while (d > 0 && ++idx[d - 1] == shape.sizes[d - 1]) idx[--d] = 0;
    if (d == 0) return offsets;
  }
}

inline bool writes_an_element_twice(const KernelShape& shape, const KernelOperand& out) {
  std::vector<int64_t> offsets = written_offsets(shape, out);
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

}  // namespace tsr::devtest
