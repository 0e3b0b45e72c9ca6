// Helpers shared by backward formulas.
#pragma once

#include "core/tensor.h"
#include "kernels/copy.h"
#include "kernels/reduce.h"

namespace tsr::ops {

// What a backward formula needs to know about an input: its sizes (to undo
// broadcasting) and dtype (to undo promotion).
struct InputInfo {
  Shape sizes;
  tsr_dtype dtype;
  explicit InputInfo(const Tensor& t) : sizes(t.sizes()), dtype(t.dtype()) {}
};

// The gradient of a broadcast, promoted input: summed to its sizes and
// converted to its dtype.
inline Tensor to_input(const Tensor& g, const InputInfo& in) {
  Tensor r = kernels::sum_to_size(g, in.sizes);
  return r.dtype() == in.dtype ? r : kernels::contiguous_copy(r, in.dtype);
}

}  // namespace tsr::ops
