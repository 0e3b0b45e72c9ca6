// Which elements an elementwise kernel call writes: the offsets of its
// output operand over the iteration shape. On a GPU every element of one
// launch runs at once, so a call whose output reaches an element twice is
// a race (lost updates for a read-modify-write). The CPU grid emulator runs
// threads one after another and cannot show it, so the emulated devices
// (tests/cpp/emulated_device.h, the emulated CUDA plugin) check every
// launch src/device makes with writes_an_element_twice.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/device_kernels.h"

namespace tsr::gpu {

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

// True when no two elements can share an offset: with the dims of size > 1
// sorted by |stride|, each stride exceeds the span of the smaller ones (the
// common case, decided without listing offsets).
inline bool provably_one_to_one(const KernelShape& shape, const KernelOperand& out) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (int32_t d = 0; d < shape.ndim; ++d)
    if (shape.sizes[d] > 1) dims.emplace_back(std::llabs(out.strides[d]), shape.sizes[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;  // largest offset the smaller dims reach
  for (const auto& [stride, size] : dims) {
    if (stride <= span) return false;
    span += stride * (size - 1);
  }
  return true;
}

inline bool writes_an_element_twice(const KernelShape& shape, const KernelOperand& out) {
  if (provably_one_to_one(shape, out)) return false;
  std::vector<int64_t> offsets = written_offsets(shape, out);
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

}  // namespace tsr::gpu
