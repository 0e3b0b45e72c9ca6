#include "autograd/primitive_node.h"

#include "core/dtype_info.h"

namespace tsr::autograd {

class PrimitiveNode::Context final : public prim::BackwardContext {
 public:
  Context(const PrimitiveNode& node, const TensorList& grads) : node_(node), grads_(grads) {}
  const Tensor& grad(size_t i) const override { return grads_.at(i); }
  Tensor input(size_t i) const override { return node_.saved_inputs_.at(i).unpack(node_); }
  Tensor output(size_t i) const override { return node_.saved_outputs_.at(i).unpack(node_); }
  const prim::TensorMeta& input_meta(size_t i) const override { return node_.input_meta_.at(i); }
  bool needs_input_grad(size_t i) const override { return node_.needs_input_grad(i); }

 private:
  const PrimitiveNode& node_;
  const TensorList& grads_;
};

PrimitiveNode::PrimitiveNode(prim::PrimitivePtr p, const prim::Tensors& inputs,
                             const prim::Tensors& outputs)
    : primitive_(std::move(p)), saved_inputs_(inputs.size()), saved_outputs_(outputs.size()) {
  prim::RequiresGrad input_requires_grad;
  input_requires_grad.reserve(inputs.size());
  input_meta_.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    input_meta_.push_back(t.defined() ? prim::meta_of(t) : prim::TensorMeta{{}, TSR_FLOAT32});
    input_requires_grad.push_back(t.defined() && requires_grad(t));
  }
  const prim::SaveSpec spec = primitive_->save_spec(input_requires_grad);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (spec.inputs >> i & 1) saved_inputs_[i] = SavedVariable(inputs[i]);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (spec.outputs >> i & 1) saved_outputs_[i] = SavedVariable(outputs[i], int32_t(i));
  keeps_state_ = spec.inputs || spec.outputs || primitive_->saves_scalar();
}

TensorList PrimitiveNode::apply(TensorList grads) {
  if (released_ && keeps_state_) fail_freed_graph();
  return primitive_->backward(Context(*this, grads));
}

void PrimitiveNode::check_saved() const {
  if (released_ && keeps_state_) fail_freed_graph();
  for (const auto& s : saved_inputs_) s.check(*this);
  for (const auto& s : saved_outputs_) s.check(*this);
}

void PrimitiveNode::release_saved() {
  // Only the slots that hold something: an empty slot stays empty, so a
  // check of it after backward does not report a freed graph.
  for (auto& s : saved_inputs_)
    if (s.defined()) s.reset();
  for (auto& s : saved_outputs_)
    if (s.defined()) s.reset();
  primitive_->release_saved_state();
  released_ = true;
}

size_t PrimitiveNode::torch_input_index(size_t i) const {
  size_t n = 0;
  for (size_t j = 0; j < i && j < input_meta_.size(); ++j) n += torch_lists_input(j) ? 1 : 0;
  return n;
}

bool PrimitiveNode::torch_lists_input(size_t i) const {
  return i >= input_meta_.size() || is_floating(input_meta_[i].dtype);
}

}  // namespace tsr::autograd
