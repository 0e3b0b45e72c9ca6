#include "device/kernel_args.h"

#include <array>

#include "core/dtype.h"
#include "core/error.h"
#include "cpu/kernels/strided_loop.h"
#include "device/disjoint_parts.h"

namespace tsr::device {

Shape broadcast_strides(const Tensor& t, const Shape& sizes) {
  const int64_t n = int64_t(sizes.size()), tn = t.ndim();
  TSR_CHECK(tn <= n, TSR_ERR_SHAPE_MISMATCH, "cannot broadcast ", t.sizes(), " to ", sizes);
  Shape strides(n, 0);
  for (int64_t i = 0; i < tn; ++i) {
    const int64_t d = n - tn + i;
    const int64_t size = t.sizes()[i];
    TSR_CHECK(size == sizes[d] || size == 1, TSR_ERR_SHAPE_MISMATCH, "cannot broadcast ",
              t.sizes(), " to ", sizes);
    strides[d] = size == 1 ? 0 : t.strides()[i];
  }
  return strides;
}

namespace {

// kernels::make_geometry for N operands, turned outermost first.
template <size_t N>
Iteration geometry(const Shape& sizes, std::vector<Shape>& strides) {
  std::array<Shape, N> per_operand;
  for (size_t k = 0; k < N; ++k) per_operand[k] = std::move(strides[k]);
  kernels::LoopGeometry<N> g = kernels::make_geometry<N>(sizes, per_operand);
  Iteration it{Shape(g.sizes.rbegin(), g.sizes.rend()), {}};
  for (const auto& s : g.strides) it.strides.emplace_back(s.rbegin(), s.rend());
  return it;
}

}  // namespace

Iteration coalesce(const Shape& sizes, std::vector<Shape> strides) {
  for (int64_t s : sizes)
    if (s == 0) return {sizes, std::move(strides)};
  switch (strides.size()) {
    case 1: return geometry<1>(sizes, strides);
    case 2: return geometry<2>(sizes, strides);
    case 3: return geometry<3>(sizes, strides);
    case 4: return geometry<4>(sizes, strides);  // where: out, cond, a, b
    case 5: return geometry<5>(sizes, strides);  // bce_with_logits: out, input, target, weight, pos_weight
  }
  fail(TSR_ERR_INTERNAL, "coalesce: ", strides.size(), " operands");
}

KernelShape kernel_shape(const Shape& sizes) {
  TSR_CHECK(int64_t(sizes.size()) <= kMaxKernelDims, TSR_ERR_INTERNAL, "kernel shape of ",
            sizes.size(), " dims");
  KernelShape s{};
  s.ndim = int32_t(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) s.sizes[d] = sizes[d];
  return s;
}

KernelOperand kernel_operand(char* data, tsr_dtype dtype, const Shape& strides) {
  KernelOperand op{};
  op.data = data;
  op.dtype = dtype;
  for (size_t d = 0; d < strides.size() && d < size_t(kMaxKernelDims); ++d) op.strides[d] = strides[d];
  return op;
}

namespace {

// One iteration (no repeated output element) as kernel calls: once when at
// most kMaxKernelDims dims remain, else once per index of the outer dims.
// offsets: each operand's start within it, in elements.
void launch_iteration(const Iteration& it, const std::vector<FlatOperand>& operands,
                      const Shape& offsets, const ElementwiseLaunch& launch) {
  const size_t ndim = it.sizes.size();
  const size_t outer = ndim > size_t(kMaxKernelDims) ? ndim - kMaxKernelDims : 0;
  const Shape inner_sizes(it.sizes.begin() + outer, it.sizes.end());
  const KernelShape shape = kernel_shape(inner_sizes);
  std::vector<Shape> inner_strides;
  for (const Shape& s : it.strides) inner_strides.emplace_back(s.begin() + outer, s.end());
  // Odometer over the outer dims (none in the usual case: one launch).
  Shape index(outer, 0);
  while (true) {
    std::vector<KernelOperand> ops;
    for (size_t k = 0; k < operands.size(); ++k) {
      int64_t offset = offsets[k];
      for (size_t d = 0; d < outer; ++d) offset += index[d] * it.strides[k][d];
      char* data = operands[k].data ? operands[k].data + offset * element_size(operands[k].dtype) : nullptr;
      ops.push_back(kernel_operand(data, operands[k].dtype, inner_strides[k]));
    }
    launch(shape, ops);
    size_t d = outer;
    while (d > 0 && ++index[d - 1] == it.sizes[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

}  // namespace

void for_each_launch(const Shape& sizes, const std::vector<FlatOperand>& operands,
                     const std::vector<Shape>& strides, const ElementwiseLaunch& launch) {
  Iteration it = coalesce(sizes, strides);
  for (int64_t s : it.sizes)
    if (s == 0) return;
  const Shape no_offsets(operands.size(), 0);
  const std::vector<DimSplit> splits = disjoint_splits(it.sizes, it.strides[0]);
  if (splits.empty()) return launch_iteration(it, operands, no_offsets, launch);
  // The output reaches an element more than once: one iteration per
  // combination of the split dims' parts, queued in a fixed order
  // (device/disjoint_parts.h).
  Shape part_of(splits.size(), 0);
  while (true) {
    Iteration part = it;
    Shape offsets = no_offsets;
    for (size_t j = 0; j < splits.size(); ++j) {
      const size_t d = splits[j].dim;
      const int64_t k = splits[j].k, r = part_of[j];
      part.sizes[d] = (it.sizes[d] - r + k - 1) / k;
      for (size_t op = 0; op < operands.size(); ++op) {
        offsets[op] += r * it.strides[op][d];
        part.strides[op][d] *= k;
      }
    }
    // Coalesced again: a part's split dim may now be of size 1 or merge.
    launch_iteration(coalesce(part.sizes, std::move(part.strides)), operands, offsets, launch);
    size_t j = splits.size();
    while (j > 0 && ++part_of[j - 1] == splits[j - 1].k) part_of[--j] = 0;
    if (j == 0) return;
  }
}

}  // namespace tsr::device
