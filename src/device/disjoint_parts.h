// Splitting an elementwise launch whose output reaches one element several
// times (an unfold window view with step < size, as_strided with small
// strides, a stride-0 dim) into launches whose outputs do not.
//
// Why: a device runs every element of one launch at once, so two threads of
// one launch writing one address race; a read-modify-write such as
// `dst += src` then loses updates. The CPU walks the same elements one after
// another and accumulates them all. Launches queued on one stream run one
// after another, so launches that are each free of repeated outputs give
// every contribution, in an order fixed by the split (deterministic).
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace tsr::device {

// Dim `dim` of an iteration walked as k interleaved parts: part r takes the
// indices r, r + k, r + 2k, ... (k <= the dim's size).
struct DimSplit {
  size_t dim;
  int64_t k;
};

// The splits after which the element map of `strides` over `sizes` (the
// output's) is one-to-one in every part; none when it already is.
// Sufficient test, as PyTorch's _maybe_overlapping_memory: walking the dims
// of size > 1 by increasing stride, each stride must exceed the span the
// dims before it reach, sum((size - 1) * stride). A dim that fails is split
// into the fewest parts k whose stride k * stride does, so an unfold of
// windows of `size` with `step` gives ceil(size / step) parts and a stride-0
// dim of size n gives n. Conservative: a layout this cannot prove one-to-one
// is split although it may not overlap (never the reverse).
std::vector<DimSplit> disjoint_splits(const Shape& sizes, const Shape& strides);

}  // namespace tsr::device
