// The backward engine: torch.autograd.backward and torch.autograd.grad.
// It sits above ops/ because gradients are summed with ops::add, so that
// under create_graph the sums have history too.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::engine {

// Runs backward from root with the given gradient (undefined: ones, only for
// one-element roots). Leaves' .grad are written only if the whole pass
// succeeds. Grad mode is off while it runs unless create_graph, when the
// backward formulas record history (for higher-order gradients).
void backward(const Tensor& root, const Tensor& gradient, bool retain_graph, bool create_graph = false);

// torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph,
// create_graph, allow_unused): the gradients of the outputs with respect to
// each input, without touching any .grad. grad_outputs[i] undefined means
// ones (one-element outputs only). An input that no output reaches gives an
// undefined tensor with allow_unused, else TSR_ERR_AUTOGRAD.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool create_graph, bool allow_unused);

}  // namespace tsr::engine
