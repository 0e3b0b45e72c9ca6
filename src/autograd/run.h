// The one way an op runs: autograd::run(primitive, inputs) checks the
// inputs' devices, calls the primitive's forward for that device, records it
// on the open checkpoint region's tape, and, with grad mode on and an input
// requiring grad, links the outputs to a PrimitiveNode. Profiling and
// device dispatch hook in here, once for every op.
#pragma once

#include "primitive/primitive.h"

namespace tsr::autograd {

prim::Tensors run(const prim::PrimitivePtr& p, const prim::Tensors& inputs);

// run() for single-output primitives: its output 0.
template <typename P, typename... Args>
Tensor run1(const prim::Tensors& inputs, Args&&... args) {
  return run(std::make_shared<P>(std::forward<Args>(args)...), inputs)[0];
}

}  // namespace tsr::autograd
