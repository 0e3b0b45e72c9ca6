// History for in-place ops and views, as PyTorch keeps it
// (torch/csrc/autograd/variable.cpp: rebase_history, CopySlices,
// DifferentiableViewMeta).
//
// - An in-place op on a tensor that is not a view moves the tensor's
//   history forward: its new grad_fn is the op's node, whose first edge is
//   the tensor's previous grad_fn (y = x * 2; y.relu_() gives
//   ReluBackward0 -> MulBackward0).
// - An in-place op on a view rebases its root base instead: the base's new
//   grad_fn is CopySlices, which routes the gradient of the written slice
//   through the op's node and the rest of it to the base's previous
//   grad_fn; the view's grad_fn becomes AsStridedBackward0 of the base.
// - Every other view of that base sees its version change and gets a fresh
//   AsStridedBackward0 grad_fn the next time it is used.
#pragma once

#include "primitive/primitive.h"

namespace tsr::autograd {

// Remembers view's root base (`input` the view op's input), for views made
// with history (of a tensor that requires grad, grad mode on). Views of
// tensors that need no gradient are not tracked (unlike PyTorch, which
// keeps every view's base): an in-place op that brings in a gradient
// through such a view records history on the view alone, not its base.
void track_view(const Tensor& input, const Tensor& view);
// Gives a view whose version changed since its grad_fn was set a fresh
// grad_fn from its base (no-op for other tensors).
void refresh_view_grad_fn(const Tensor& t);
// Records an in-place primitive that already ran (outputs[0] is inputs[0],
// written): the rules above.
void rebase_history(const prim::PrimitivePtr& p, const prim::Tensors& inputs, const prim::Tensors& outputs);

}  // namespace tsr::autograd
