// Where autocast happens: autograd::run casts an op's inputs by the policy
// of its op name before the op runs (torch's Autocast dispatch keys), so the
// casts are recorded ops like any other (ToCopyBackward0, on the checkpoint
// tape). Composite ops that torch lists under their own name (l1_loss,
// cross_entropy_loss) call autocast_inputs() themselves before their parts.
#pragma once

#include <optional>
#include <string_view>

#include "primitive/primitive.h"

namespace tsr::autograd {

// The inputs cast for `op` under this thread's autocast state, or nullopt
// when nothing changes (no region for the inputs' device type, an op
// without a policy, or nothing to cast).
std::optional<prim::Tensors> autocast_inputs(std::string_view op, const prim::Tensors& inputs);

}  // namespace tsr::autograd

namespace tsr::autograd {

// autocast_inputs() for a composite op: the cast inputs, or the inputs as
// given. Undefined tensors (an absent weight) stay undefined.
inline prim::Tensors autocast_composite(std::string_view op, const prim::Tensors& inputs) {
  if (auto cast = autocast_inputs(op, inputs)) return *cast;
  return inputs;
}

}  // namespace tsr::autograd
