// The autograd graph, modelled on torch/csrc/autograd: a Node computes the
// gradients of its inputs from the gradients of its outputs; its next_edges
// say where each input gradient flows (the producing node and which of its
// outputs, or a leaf's AccumulateGrad). Tensors hold their history in
// AutogradMeta (grad_fn + output_nr, or requires_grad + grad for leaves).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tsr::autograd {

struct Node;
struct GradHook;
struct PostAccumulateGradHook;

// A gradient hook and the id remove_hook takes (autograd/hooks.h).
struct HookEntry {
  int64_t id;
  std::shared_ptr<GradHook> hook;
};

// A post-accumulate-grad hook and its id (same id space as HookEntry).
struct PostAccumulateHookEntry {
  int64_t id;
  std::shared_ptr<PostAccumulateGradHook> hook;
};

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// Shape and dtype of one output of a node: lets the engine make a zero
// gradient for an output nobody used.
struct OutputMeta {
  Shape sizes;
  tsr_dtype dtype;
  Device device;  // where a zero gradient for an unused output is made
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // grads[i] is the gradient of output i (always defined: the engine fills
  // zeros). Returns one gradient per next_edge (undefined = no gradient).
  virtual TensorList apply(TensorList grads) = 0;
  // PyTorch's class name, "MulBackward0".
  virtual const char* name() const = 0;
  // Frees saved tensors (after backward without retain_graph).
  virtual void release_saved() {}
  // Throws what apply would for its saved state (freed by an earlier
  // backward, modified in place since), without computing anything: the
  // engine checks every node first, so such errors change no .grad.
  virtual void check_saved() const {}
  // Whether input i's gradient goes anywhere (skip computing it if not).
  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].valid(); }

  // False when apply takes undefined gradients for outputs nobody used (a
  // custom function with materialize_grads off); else the engine fills zeros.
  virtual bool materialize_grads() const { return true; }

  // The forward op's name ("mul") where the node has one: anomaly messages.
  virtual const char* forward_op() const { return nullptr; }
  // Input i's number as torch counts its node's inputs in messages (only
  // the differentiable ones: scatter's src is input 1 of ScatterBackward0,
  // the index not counted).
  virtual size_t torch_input_index(size_t i) const { return i; }
  // Whether torch's node lists input i in next_functions: its schema leaves
  // out the inputs it never differentiates (where's condition, masked_fill's
  // mask, an index), which for our primitives are those of a non-floating
  // dtype (the same count torch_input_index makes).
  virtual bool torch_lists_input(size_t i) const { return true; }

  uint64_t sequence_nr;  // creation order: the engine runs newest first
  // Inline for the usual few inputs and outputs: a node is one allocation.
  InlineVector<Edge, 4> next_edges;
  InlineVector<OutputMeta, 2> outputs;
  // Hooks on the gradient of output `first` (register_hook on a non-leaf).
  std::vector<std::pair<uint32_t, HookEntry>> pre_hooks;
};

// A leaf's gradient sink: the engine adds what reaches it into .grad.
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : variable(std::move(leaf)) {}
  TensorList apply(TensorList grads) override { return {}; }
  // torch 1.13 Node.name() of a leaf's sink.
  const char* name() const override { return "torch::autograd::AccumulateGrad"; }
  std::shared_ptr<TensorImpl> variable;
};

struct AutogradMeta {
  // Guards grad and grad_accumulator: two threads may run backward (or
  // forward) through one leaf at once, as in PyTorch's AccumulateGrad.
  std::mutex mutex;
  bool requires_grad = false;   // leaves only; non-leaves require grad via grad_fn
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<AccumulateGrad> grad_accumulator;
  // Views made with grad mode on remember their root base (PyTorch's
  // DifferentiableViewMeta): an in-place write to the view rebases the
  // base's history (CopySlices), and a view whose version moved on since
  // its grad_fn was set gets a fresh one from the base (attr_version).
  Tensor view_base;
  int64_t attr_version = -1;
  // register_hook on a leaf: run before accumulation into grad.
  std::vector<HookEntry> hooks;
  // register_post_accumulate_grad_hook (leaves only): run after it.
  std::vector<PostAccumulateHookEntry> post_accumulate_hooks;
};

// A saved tensor whose data lives elsewhere until backward asks for it: a
// checkpoint region recomputes it (autograd/checkpoint.h).
struct PackedTensor {
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() = 0;
  // Throws now what unpack would for inputs modified in place.
  virtual void check() const {}
};

// A tensor kept for backward: holds the data without its history (no cycle
// through the output's own grad_fn) and the version seen at save time, or
// a PackedTensor standing in for it.
class SavedVariable {
 public:
  SavedVariable() = default;
  // output_nr >= 0: t is that output of the node saving it (the owner), as
  // relu and exp save their results; -1: t is an input (or other tensor).
  explicit SavedVariable(const Tensor& t, int32_t output_nr = -1);
  // The saved data; TSR_ERR_AUTOGRAD if freed by an earlier backward or
  // modified in place since it was saved (PyTorch's messages).
  Tensor unpack(const Node& owner) const;
  // The errors unpack would throw, without unpacking.
  void check(const Node& owner) const;
  void reset() {
    data_ = Tensor();
    packed_.reset();
    leaf_ = Tensor();
    grad_fn_.reset();
    released_ = true;
  }
  bool defined() const { return data_.defined() || packed_ || released_; }

 private:
  Tensor with_history(const Node& owner) const;

  Tensor data_;
  std::shared_ptr<PackedTensor> packed_;
  // The history unpack restores when grad mode is on (create_graph), so a
  // backward formula using the saved tensor is differentiated through it:
  // a leaf that requires grad is kept itself; an input made by an op keeps
  // that op's node; an output of the owner gets the owner (at unpack, so no
  // cycle).
  Tensor leaf_;
  std::shared_ptr<Node> grad_fn_;
  int64_t saved_version_ = 0;
  bool released_ = false;
  // Where the saved tensor came from, for the in-place error message:
  // producer_ names its grad_fn (static string) when it is not the owner.
  const char* producer_ = nullptr;
  int32_t output_nr_ = -1;
  bool is_owner_output_ = false;
};

// Throws PyTorch's "Trying to backward through the graph a second time"
// error (TSR_ERR_AUTOGRAD): for saved values already freed by a backward.
[[noreturn]] void fail_freed_graph();
// Throws PyTorch's "modified by an inplace operation" error for t, saved at
// version `expected` and now at `now`; origin is ", which is output N of
// FooBackward0," or empty.
[[noreturn]] void fail_modified(const Tensor& t, int64_t now, int64_t expected,
                                const std::string& origin);

// ---- queries and graph wiring used by the ops layer ----------------------

bool requires_grad(const Tensor& t);   // leaf flag or has grad_fn
bool is_leaf(const Tensor& t);
const std::shared_ptr<Node>& grad_fn(const Tensor& t);
// Edge a gradient for t flows along: its grad_fn output, or its leaf's
// AccumulateGrad (created on first use), or invalid if t needs no grad.
Edge gradient_edge(const Tensor& t);
// True when grad mode is on and any input requires grad.
bool any_requires_grad(const TensorList& inputs);
// Wires node: next_edges from inputs, then marks each output as produced
// by node (output_nr = position). Outputs of a dtype that cannot require
// grad (max's indices) keep no history but still count in output_nr.
void set_history(const std::shared_ptr<Node>& node, const TensorList& inputs,
                 const TensorList& outputs);
void set_requires_grad(const Tensor& t, bool flag);
// The root base a view was made from with grad mode on, or null.
const Tensor* view_base(const Tensor& t);
// A new tensor sharing t's storage and version counter, without history.
Tensor detach(const Tensor& t);

}  // namespace tsr::autograd
