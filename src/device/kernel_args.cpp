#include "device/kernel_args.h"

#include <algorithm>

#include "core/dtype.h"
#include "core/error.h"

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

Iteration coalesce(const Shape& sizes, std::vector<Shape> strides) {
  for (int64_t s : sizes)
    if (s == 0) return {sizes, std::move(strides)};
  Iteration it;
  it.strides.resize(strides.size());
  // Innermost first: each kept dim either merges into the dim inside it or
  // starts a new one.
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    bool merge = !it.sizes.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k)
      merge = strides[k][i] == it.strides[k].back() * it.sizes.back();
    if (merge) {
      it.sizes.back() *= sizes[i];
      continue;
    }
    it.sizes.push_back(sizes[i]);
    for (size_t k = 0; k < strides.size(); ++k) it.strides[k].push_back(strides[k][i]);
  }
  // Built innermost first; the ABI wants outermost first.
  std::reverse(it.sizes.begin(), it.sizes.end());
  for (Shape& s : it.strides) std::reverse(s.begin(), s.end());
  return it;
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

void for_each_launch(const Shape& sizes, const std::vector<FlatOperand>& operands,
                     const std::vector<Shape>& strides, const ElementwiseLaunch& launch) {
  Iteration it = coalesce(sizes, strides);
  for (int64_t s : it.sizes)
    if (s == 0) return;
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
      int64_t offset = 0;
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

}  // namespace tsr::device
