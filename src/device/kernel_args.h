// Flattening tensors into the plain kernel arguments of core/device_kernels.h:
// an iteration shape plus one pointer and element strides per operand.
// Dims are coalesced the way ATen's TensorIterator::coalesce_dimensions
// does (two adjacent dims merge when every operand steps through them as
// through one), without reordering any dim, so results and the order in
// which an overlapping output is written stay those of the CPU kernels.
#pragma once

#include <functional>
#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::device {

// Strides of t read over the iteration shape `sizes` that t broadcasts to
// (0 on dims t lacks or has as 1), or TSR_ERR_SHAPE_MISMATCH.
Shape broadcast_strides(const Tensor& t, const Shape& sizes);

// An iteration shape and every operand's strides over it.
struct Iteration {
  Shape sizes;
  std::vector<Shape> strides;
};
// Drops size-1 dims and merges adjacent dims that are contiguous in every
// operand; an empty iteration (some size 0) keeps its sizes as given.
Iteration coalesce(const Shape& sizes, std::vector<Shape> strides);

// A pointer, dtype and strides: one operand of an iteration.
struct FlatOperand {
  char* data;
  tsr_dtype dtype;
};
inline FlatOperand operand(const Tensor& t) { return {static_cast<char*>(t.data_ptr()), t.dtype()}; }

KernelShape kernel_shape(const Shape& sizes);
KernelOperand kernel_operand(char* data, tsr_dtype dtype, const Shape& strides);

// Coalesces (sizes, strides) and calls launch once per kernel call needed:
// once when at most kMaxKernelDims dims remain, else once per index of the
// outermost dims beyond that (each call's operands offset to its slice), so
// no layout ever needs a copy to fit the kernel ABI. Nothing is called for
// an empty iteration.
using ElementwiseLaunch =
    std::function<void(const KernelShape& shape, const std::vector<KernelOperand>& operands)>;
void for_each_launch(const Shape& sizes, const std::vector<FlatOperand>& operands,
                     const std::vector<Shape>& strides, const ElementwiseLaunch& launch);

}  // namespace tsr::device
