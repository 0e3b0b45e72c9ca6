#include "cpu/kernels/reduce_plan.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace tsr::kernels {

ReducePlan make_reduce_plan(const Tensor& t, const std::vector<bool>& mask) {
  const int64_t n = t.ndim();
  const Shape& sizes = t.sizes();
  const Shape& strides = t.strides();
  // Memory order, innermost first: by |stride| ascending; ties keep C order
  // (later dims inner), as strided_loop.h's make_geometry.
  Shape order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  stable_sort_small(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::abs(strides[a]) < std::abs(strides[b]);
  });
  ReducePlan plan;
  // Dims of size 1 in the keepdim sizes (the reduced ones among them) take
  // their C-order stride, which places nothing: an accumulator whose kept
  // dims are in C order then has exactly the C-contiguous strides torch
  // gives a reduction's result, and is returned without a copy.
  Shape keepdim_sizes(sizes);
  for (int64_t d = 0; d < n; ++d)
    if (mask[d]) keepdim_sizes[d] = 1;
  plan.acc_strides = contiguous_strides(keepdim_sizes);
  int64_t next = 1;
  for (int64_t d : order)
    if (!mask[d] && sizes[d] != 1) {
      plan.acc_strides[d] = next;
      next *= sizes[d];
    }
  const int64_t esize = t.element_size();
  for (int64_t d : order) {
    if (sizes[d] == 1) continue;
    ReduceDim rd{sizes[d], strides[d] * esize, mask[d] ? 0 : plan.acc_strides[d], bool(mask[d])};
    if (!plan.dims.empty()) {
      ReduceDim& in = plan.dims.back();
      if (in.reduced == rd.reduced && rd.in_stride == in.in_stride * in.size &&
          rd.acc_stride == in.acc_stride * in.size) {
        in.size *= rd.size;
        continue;
      }
    }
    plan.dims.push_back(rd);
  }
  return plan;
}

}  // namespace tsr::kernels
