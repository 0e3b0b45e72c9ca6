// Flattening tensors into the plain kernel arguments of core/device_kernels.h:
// an iteration shape plus one pointer and element strides per operand.
// Dims are ordered and coalesced by the CPU loops' own rule
// (kernels::make_geometry: operand 0's strides pick the order, dims every
// operand steps through as one merge), so both devices walk an overlapping
// output in the same order and a channels_last tensor is one flat run.
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
// kernels::make_geometry for 1 to 5 operands, dims outermost first: size-1
// dims dropped, dims ordered by operand 0's strides, neighbours contiguous
// in every operand merged. An empty iteration (some size 0) keeps its sizes
// as given.
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
// an empty iteration. Operand 0 is the one written: when it reaches an
// element more than once (device/disjoint_parts.h), the iteration is split
// into parts that do not, one call (or more) each, in a fixed order, so no
// two threads of one launch write one element and a read-modify-write of
// an overlapping output sees every update.
using ElementwiseLaunch =
    std::function<void(const KernelShape& shape, const std::vector<KernelOperand>& operands)>;
void for_each_launch(const Shape& sizes, const std::vector<FlatOperand>& operands,
                     const std::vector<Shape>& strides, const ElementwiseLaunch& launch);

}  // namespace tsr::device
