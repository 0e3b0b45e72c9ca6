// Helpers shared by backward formulas. They use ops (differentiable), so a
// backward run under create_graph records history.
#pragma once

#include "ops/layout.h"
#include "ops/math.h"
#include "primitive/primitive.h"

namespace tsr::ops {

// The gradient of a broadcast, promoted input: summed to its sizes and
// converted to its dtype.
inline Tensor to_input(const Tensor& g, const prim::TensorMeta& in) {
  Tensor r = sum_to_size(g, in.sizes);
  return r.dtype() == in.dtype ? r : to_dtype(r, in.dtype);
}

// Bits for SaveSpec: input/output i.
constexpr uint32_t bit(size_t i) { return 1u << i; }

}  // namespace tsr::ops
