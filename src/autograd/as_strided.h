// as_strided as a primitive, in the autograd layer because history
// rebasing (autograd/inplace.cpp) regenerates a view's grad_fn with it, as
// PyTorch does (AsStridedBackward0 after an in-place write to a view).
#pragma once

#include "primitive/primitive.h"

namespace tsr::autograd {

// Storage geometry of a strided tensor: absolute offsets, as as_strided
// takes them.
struct Geometry {
  Shape sizes, strides;
  int64_t offset;
  int64_t end() const;  // one past the last storage element reached
};
Geometry geometry_of(const Tensor& t);

// torch.as_strided(input, out.sizes, out.strides, out.offset) on an input of
// geometry `in`. Its backward is PyTorch's as_strided_backward: the
// gradient scattered through `out` into a buffer spanning both geometries,
// read back through `in` (divided by the count where `in` overlaps itself).
prim::PrimitivePtr make_as_strided(Geometry in, Geometry out);

}  // namespace tsr::autograd
