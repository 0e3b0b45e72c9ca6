// ReduceArgs for a CPU tensor: what src/device/ builds for a reduction
// of x over the dims of a mask, shared by the emulator's reduction tests.
#pragma once

#include <vector>

#include "emulator_test_util.h"

namespace tsr::gpu::test {

// ReduceArgs reducing x over the dims in `mask` into out (and indices).
inline ReduceArgs reduce_args(const Tensor& x, const std::vector<bool>& mask, const Tensor& out,
                              const Tensor* indices, double scale) {
  ReduceArgs r{};
  Shape outer, inner;
  int32_t kept = 0;
  for (int64_t d = 0; d < x.ndim(); ++d) {
    if (mask[size_t(d)]) {
      r.in_inner_strides[inner.size()] = x.strides()[d];
      inner.push_back(x.sizes()[d]);
    } else {
      r.in.strides[kept++] = x.strides()[d];
      outer.push_back(x.sizes()[d]);
    }
  }
  r.outer = kshape(outer);
  r.inner = kshape(inner);
  r.in.data = x.data_ptr();
  r.in.dtype = x.dtype();
  r.out = kop(out);
  r.out.strides[0] = outer.empty() ? 0 : r.out.strides[0];
  if (indices) r.indices = kop(*indices);
  else r.indices = KernelOperand{nullptr, TSR_INT64, {}};
  r.scale = scale;
  return r;
}

}  // namespace tsr::gpu::test
