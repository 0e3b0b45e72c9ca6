// The autograd node of a primitive: the primitive (its arguments and its
// backward) plus the inputs and outputs its backward asked to keep.
#pragma once

#include "autograd/node.h"
#include "primitive/primitive.h"

namespace tsr::autograd {

class PrimitiveNode final : public Node {
 public:
  // Saves what p->save_spec asks for, given which inputs require grad.
  PrimitiveNode(prim::PrimitivePtr p, const prim::Tensors& inputs, const prim::Tensors& outputs);

  TensorList apply(TensorList grads) override;
  const char* name() const override { return primitive_->name(); }
  const char* forward_op() const override { return primitive_->op(); }
  bool materialize_grads() const override { return primitive_->materialize_grads(); }
  // Counting the floating-point inputs before i (integer and bool ones,
  // indices and masks, are no inputs of torch's node).
  size_t torch_input_index(size_t i) const override;
  bool torch_lists_input(size_t i) const override;
  void release_saved() override;
  void check_saved() const override;

  const prim::Primitive& primitive() const { return *primitive_; }

 private:
  class Context;

  prim::PrimitivePtr primitive_;
  // Inline for the usual few inputs and outputs (one allocation per node).
  InlineVector<prim::TensorMeta, 4> input_meta_;
  // One slot per input / output; empty where the backward reads nothing.
  InlineVector<SavedVariable, 4> saved_inputs_;
  InlineVector<SavedVariable, 2> saved_outputs_;
  // The backward kept something (a tensor or a scalar) that release_saved
  // frees: running it again then is PyTorch's "backward a second time".
  bool keeps_state_ = false;
  bool released_ = false;
};

}  // namespace tsr::autograd
