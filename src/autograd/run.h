// The one way an op runs: autograd::run(primitive, inputs) checks the
// inputs' devices, calls the primitive's forward for that device, records it
// on the open checkpoint region's tape, and, with grad mode on and an input
// requiring grad, links the outputs to a PrimitiveNode. Profiling and
// device dispatch hook in here, once for every op.
#pragma once

#include "primitive/primitive.h"

namespace tsr::autograd {

prim::Tensors run(const prim::PrimitivePtr& p, const prim::Tensors& inputs);

// Whether run() would keep the primitive past the call: a checkpoint region
// records it on its tape, or an input needs history (grad mode on and an
// input requiring grad) and the node or the rebased history holds it.
bool keeps_primitive(const prim::Tensors& inputs);
// run() for a primitive nothing keeps (!keeps_primitive(inputs)): the same
// device check and forward, no tape, no history.
prim::Tensors run_unkept(prim::Primitive& p, const prim::Tensors& inputs);

// run() for single-output primitives: its output 0. A primitive nothing
// keeps lives on the stack for the call: the optimizers' in-place updates
// and every op under no_grad then allocate no primitive (a quarter of the
// heap allocations of a small training step).
template <typename P, typename... Args>
Tensor run1(const prim::Tensors& inputs, Args&&... args) {
  if (!keeps_primitive(inputs)) {
    P p(std::forward<Args>(args)...);
    return run_unkept(p, inputs)[0];
  }
  return run(std::make_shared<P>(std::forward<Args>(args)...), inputs)[0];
}

}  // namespace tsr::autograd
