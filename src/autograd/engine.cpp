// PyTorch's engine reduced to one thread: count each node's dependencies
// from the root, then run ready nodes newest first (highest sequence_nr, a
// heap), summing the gradients that reach each input. AccumulateGrad nodes
// are not run as they become ready: their gradients are collected and
// committed at the end, so a failure halfway (a saved tensor modified in
// place, say) leaves every .grad as it was.
#include "autograd/engine.h"

#include <queue>
#include <unordered_map>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/factory.h"
#include "core/layout.h"
#include "kernels/copy.h"
#include "kernels/elementwise.h"

namespace tsr::autograd {

namespace {

struct NewestFirst {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

// How many edges reach each node from root (root itself is never reached:
// the graph is acyclic). A node is new the first time its count goes up.
std::unordered_map<Node*, int> count_dependencies(Node* root) {
  std::unordered_map<Node*, int> deps;
  std::vector<Node*> stack{root};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (auto& e : n->next_edges)
      if (e.valid() && deps[e.fn.get()]++ == 0) stack.push_back(e.fn.get());
  }
  return deps;
}

// Sums into slot (a fresh tensor, so gradients never alias each other).
void accumulate(Tensor& slot, const Tensor& g) {
  if (!g.defined()) return;
  slot = slot.defined() ? kernels::binary(kernels::BinaryOp::Add, slot, g) : g;
}

// What .grad becomes: the sum, laid out like the leaf (a dense copy if the
// incoming gradient is a view such as an expand), as AccumulateGrad does.
Tensor dense_grad(const Tensor& leaf, const Tensor& g) {
  Tensor out = empty_like(leaf, leaf.dtype(), TSR_PRESERVE_FORMAT);
  kernels::copy_strided(out, g);
  return out;
}

}  // namespace

void backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  TSR_CHECK(requires_grad(root), TSR_ERR_AUTOGRAD,
            "element 0 of tensors does not require grad and does not have a grad_fn");
  Tensor grad_root = gradient;
  if (!grad_root.defined()) {
    TSR_CHECK(root.numel() == 1, TSR_ERR_AUTOGRAD, "grad can be implicitly created only for scalar "
              "outputs (root has sizes ", root.sizes(), ")");
    grad_root = empty(root.sizes(), root.dtype());
    kernels::fill(grad_root, 1.0);
  } else {
    TSR_CHECK(grad_root.sizes() == root.sizes(), TSR_ERR_SHAPE_MISMATCH, "Mismatch in shape: grad_output[0] has "
              "a shape of ", grad_root.sizes(), " and output[0] has a shape of ", root.sizes(), ".");
    // torch converts a gradient of another dtype to the root's
    // (validate_outputs), e.g. a float64 gradient for a float32 root.
    if (grad_root.dtype() != root.dtype())
      grad_root = kernels::contiguous_copy(grad_root, root.dtype());
  }

  NoGradGuard no_grad;
  // root_edge owns the start node; every other node lives through the edges
  // that reach it, which nothing changes during the pass.
  Edge root_edge = gradient_edge(root);
  Node* start = root_edge.fn.get();
  auto deps = count_dependencies(start);
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  buffers[start].resize(start->outputs.size());
  buffers[start][root_edge.input_nr] = grad_root;

  std::vector<std::pair<AccumulateGrad*, Tensor>> leaf_grads;
  std::priority_queue<Node*, std::vector<Node*>, NewestFirst> ready;
  ready.push(start);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    std::vector<Tensor> inputs = std::move(buffers[node]);
    buffers.erase(node);
    if (auto* acc = dynamic_cast<AccumulateGrad*>(node)) {
      if (inputs[0].defined()) leaf_grads.emplace_back(acc, inputs[0]);
      continue;
    }
    for (size_t i = 0; i < inputs.size(); ++i)  // outputs nobody used get zeros
      if (!inputs[i].defined()) inputs[i] = kernels::zeros(node->outputs[i].sizes, node->outputs[i].dtype);
    std::vector<Tensor> outputs = node->apply(std::move(inputs));
    if (!retain_graph) node->release_saved();
    TSR_CHECK(outputs.size() == node->next_edges.size(), TSR_ERR_INTERNAL, node->name(), " returned ",
              outputs.size(), " gradients for ", node->next_edges.size(), " inputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.valid()) continue;
      auto& buf = buffers[e.fn.get()];
      if (buf.empty()) buf.resize(e.fn->outputs.size());
      accumulate(buf[e.input_nr], outputs[i]);
      if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
    }
  }

  // Commit. Everything that can fail (allocation, conversion) happens
  // before the first .grad changes: new gradients are built densely, and
  // existing ones are then accumulated in place (as PyTorch does, so a
  // handle to .grad held by the caller sees the sum).
  std::vector<std::pair<AutogradMeta*, Tensor>> updates;
  for (auto& [acc, g] : leaf_grads) {
    AutogradMeta* meta = acc->variable->autograd.get();
    const Tensor& like = meta->grad.defined() ? meta->grad : Tensor(acc->variable);
    updates.emplace_back(meta, dense_grad(like, g));
  }
  for (auto& [meta, g] : updates) {
    if (meta->grad.defined()) {
      kernels::add_into(meta->grad, g, 1.0);
      meta->grad.bump_version();
    } else {
      meta->grad = std::move(g);
    }
  }
}

}  // namespace tsr::autograd
