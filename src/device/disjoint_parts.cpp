#include "device/disjoint_parts.h"

#include <algorithm>

namespace tsr::device {

std::vector<DimSplit> disjoint_splits(const Shape& sizes, const Shape& strides) {
  std::vector<size_t> order;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) order.push_back(d);
  // By stride; among equal strides the larger dim first, so that the split
  // falls on the smaller one (fewer parts: an unfold with step 1 is split
  // by its window size, not by its window count).
  auto magnitude = [&](size_t d) { return strides[d] < 0 ? -strides[d] : strides[d]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (magnitude(a) != magnitude(b)) return magnitude(a) < magnitude(b);
    return sizes[a] > sizes[b];
  });
  // span: the largest offset difference the dims walked so far can make.
  // Two indices that differ in the current dim (stride > span) and possibly
  // in earlier ones can then never meet; later dims are checked the same way.
  std::vector<DimSplit> splits;
  int64_t span = 0;
  for (size_t d : order) {
    const int64_t s = magnitude(d), n = sizes[d];
    if (s > span) {
      span += (n - 1) * s;
      continue;
    }
    // Parts k apart: stride k * s > span, at most one index per part.
    const int64_t k = s == 0 ? n : std::min(n, span / s + 1);
    splits.push_back({d, k});
    const int64_t longest = (n + k - 1) / k;  // part 0's length
    span += (longest - 1) * k * s;
  }
  return splits;
}

}  // namespace tsr::device
