// The backward pass (torch.autograd.backward for one root).
#pragma once

#include "core/tensor.h"

namespace tsr::autograd {

// Runs backward from root with the given gradient (undefined: ones, only for
// one-element roots). Leaves' .grad are written only if the whole pass
// succeeds. Grad mode is off while it runs.
void backward(const Tensor& root, const Tensor& gradient, bool retain_graph);

}  // namespace tsr::autograd
