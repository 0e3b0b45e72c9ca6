// PyTorch's engine reduced to one thread: count each node's dependencies
// from the roots, then run ready nodes newest first (highest sequence_nr, a
// heap), summing the gradients that reach each input; a leaf's gradient is
// added to its .grad as soon as its AccumulateGrad node is ready. Every
// node's saved state is checked before anything runs, so the errors a graph
// can have (a saved tensor modified in place, a graph already freed) leave
// every .grad as it was; an allocation failure halfway may leave some
// leaves updated, as in PyTorch. For autograd.grad the engine
// runs only the nodes that lead to an input and captures the gradient
// arriving there instead. A leaf's post-accumulate-grad hooks run right
// after its accumulation (not for autograd.grad, which accumulates
// nothing), and callbacks queued during a pass run once it has finished:
// all of it on the thread that called backward.
#include "engine/backward.h"
#include "device/any_device.h"
#include "device/transfer.h"

#include <mutex>
#include <queue>

#include "autograd/checkpoint.h"
#include "autograd/grad_mode.h"
#include "autograd/hooks.h"
#include "autograd/node.h"
#include "core/factory.h"
#include "core/layout.h"
#include "engine/pointer_index.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "ops/math.h"
#include "profiler/recorder.h"

#include <optional>

namespace tsr::engine {

using autograd::AccumulateGrad;
using autograd::AutogradMeta;
using autograd::Edge;
using autograd::Node;

namespace {

struct NewestFirst {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

// Gradient of one output: checked against it, ones when not given.
// The zero gradient of an output no later node used, on that output's
// device.
Tensor zeros_like_output(const autograd::OutputMeta& m) {
  return device::zeros_on(m.sizes, m.dtype, m.device);
}

Tensor root_gradient(const Tensor& root, const Tensor& gradient) {
  if (!gradient.defined()) {
    TSR_CHECK(root.numel() == 1, TSR_ERR_AUTOGRAD, "grad can be implicitly created only for scalar "
              "outputs (root has sizes ", root.sizes(), ")");
    Tensor g = empty(root.sizes(), root.dtype(), TSR_CONTIGUOUS_FORMAT, root.device());
    device::fill_any(g, 1.0);
    return g;
  }
  TSR_CHECK(gradient.sizes() == root.sizes(), TSR_ERR_SHAPE_MISMATCH, "Mismatch in shape: grad_output[0] "
            "has a shape of ", gradient.sizes(), " and output[0] has a shape of ", root.sizes(), ".");
  // torch converts a gradient of another dtype to the root's
  // (validate_outputs), e.g. a float64 gradient for a float32 root.
  return gradient.dtype() == root.dtype() ? gradient : device::contiguous_copy_any(gradient, root.dtype());
}

void check_no_open_region() {
  TSR_CHECK(autograd::checkpoint::depth() == 0, TSR_ERR_AUTOGRAD,
            "backward inside an open checkpoint region: end the region (tsr_checkpoint_end) "
            "before computing gradients (", autograd::checkpoint::depth(), " region(s) open on this thread)");
}

// The leaf's register_hook hooks, run on its gradient (a copy of the list:
// a hook may register or remove hooks).
Tensor run_leaf_hooks(const AccumulateGrad& acc, const Tensor& g) {
  AutogradMeta* meta = acc.variable->autograd.get();
  std::vector<autograd::HookEntry> hooks;
  {
    std::lock_guard lock(meta->mutex);
    hooks = meta->hooks;
  }
  return hooks.empty() ? g : autograd::run_grad_hooks(hooks, g);
}

// torch's validate_outputs for gradient i of node, going along edge e: a
// gradient of its input's shape passes; one that input's shape broadcasts
// to is summed down to it (sum_to_size); any other is torch's error, before
// anything could copy it into a buffer or .grad of the other shape.
Tensor validated(const Node& node, size_t i, const Edge& e, const Tensor& g) {
  if (!g.defined() || e.input_nr >= e.fn->outputs.size()) return g;
  const Shape& want = e.fn->outputs[e.input_nr].sizes;
  if (g.sizes() == want) return g;
  bool expandable = want.size() <= g.sizes().size();
  for (size_t k = 0; expandable && k < want.size(); ++k) {
    const int64_t w = want[want.size() - 1 - k], got = g.sizes()[g.sizes().size() - 1 - k];
    expandable = w == got || w == 1;
  }
  TSR_CHECK(expandable, TSR_ERR_SHAPE_MISMATCH, "Function ", node.name(), " returned an invalid gradient at index ",
            node.torch_input_index(i), " - got ", g.sizes(), " but expected shape compatible with ", want);
  return ops::sum_to_size(g, want);
}

// Anomaly mode: PyTorch's message for a backward that produced NaN, naming
// the forward op too.
void check_no_nan(const Node& node, const TensorList& grads) {
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    if (!g.defined() || !is_floating(g.dtype())) continue;
    Tensor d = device::readable_on_host(device::contiguous_copy_any(g, TSR_FLOAT64));
    const double* p = d.data<double>();
    for (int64_t k = 0; k < d.numel(); ++k)
      if (p[k] != p[k])
        fail(TSR_ERR_AUTOGRAD, "Function '", node.name(), "' returned nan values in its ", i,
             "th output.", node.forward_op() ? str(" It is the backward of the forward op '", node.forward_op(), "'.") : "");
  }
}

// One run of the engine over the graph behind `roots`.
class GraphTask {
 public:
  // capture: nodes whose incoming gradient is wanted (autograd.grad); when
  // non-empty, only nodes leading to them run and no .grad is written.
  GraphTask(std::vector<std::pair<Edge, Tensor>> roots, std::vector<Edge> capture, bool retain_graph,
            bool create_graph)
      : roots_(std::move(roots)), capture_(std::move(capture)), retain_graph_(retain_graph),
        create_graph_(create_graph) {}

  void execute();
  // Gradient captured for capture edge i (undefined if none reached it).
  const Tensor& captured(size_t i) const { return captured_[i]; }

 private:
  void count_dependencies();
  // Returns the leaf's post-accumulate-grad hooks (a copy taken under the
  // lock; empty, without allocating, when it has none).
  std::vector<autograd::PostAccumulateHookEntry> accumulate_grad(AccumulateGrad& acc, const Tensor& g) const;
  bool is_capture(Node* n) const;
  bool must_run(Node* n);
  // The state of n, which count_dependencies found (every node the engine
  // meets is reachable from a root).
  uint32_t index_of(Node* n);

  // What the engine keeps per node, by the node's number in index_.
  struct NodeState {
    explicit NodeState(Node* n) : node(n) {}
    Node* node;
    int deps = 0;          // edges from nodes not yet run
    bool reached = false;  // some edge leads here (a root may have none)
    bool queued = false;   // a root already pushed as ready
    int8_t needed = -1;    // autograd.grad: must_run memo (-1: not yet known)
    TensorList buffer;     // gradients summed so far, one per output
  };

  std::vector<std::pair<Edge, Tensor>> roots_;
  std::vector<Edge> capture_;
  bool retain_graph_;
  bool create_graph_;
  PointerIndex<Node> index_;
  std::vector<NodeState> states_;
  std::vector<Tensor> captured_;
};

uint32_t GraphTask::index_of(Node* n) {
  auto [i, added] = index_.insert(n);
  if (added) states_.push_back(NodeState{n});
  return i;
}

// How many edges reach each node from the roots (a root reached from
// another root waits for it). A node is new the first time its count rises.
void GraphTask::count_dependencies() {
  states_.reserve(32);
  std::vector<Node*> stack;
  stack.reserve(32);
  for (auto& [e, g] : roots_)
    if (index_.insert(e.fn.get()).second) {
      states_.push_back(NodeState{e.fn.get()});
      stack.push_back(e.fn.get());
    }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (auto& e : n->next_edges) {
      if (!e.valid()) continue;
      auto [i, added] = index_.insert(e.fn.get());
      if (added) {
        states_.push_back(NodeState{e.fn.get()});
        stack.push_back(e.fn.get());
      }
      states_[i].reached = true;
      ++states_[i].deps;
    }
  }
}

bool GraphTask::is_capture(Node* n) const {
  for (auto& c : capture_)
    if (c.fn.get() == n) return true;
  return false;
}

bool GraphTask::must_run(Node* n) {
  const uint32_t start = index_of(n);
  if (states_[start].needed >= 0) return states_[start].needed;
  // Iterative post-order: a node must run when any next node is captured
  // or must run itself. (Indices, not references: index_of may grow
  // states_.)
  std::vector<std::pair<Node*, size_t>> stack{{n, 0}};
  states_[start].needed = 0;
  while (!stack.empty()) {
    Node* node = stack.back().first;
    size_t& i = stack.back().second;
    if (i < node->next_edges.size()) {
      Node* next = node->next_edges[i++].fn.get();
      if (next) {
        const uint32_t k = index_of(next);
        if (states_[k].needed < 0) {
          states_[k].needed = 0;
          stack.push_back({next, 0});
        }
      }
      continue;
    }
    bool need = false;
    for (auto& e : node->next_edges)
      need |= e.valid() && (is_capture(e.fn.get()) || states_[index_of(e.fn.get())].needed > 0);
    states_[index_of(node)].needed = need;
    stack.pop_back();
  }
  return states_[start].needed > 0;
}

void GraphTask::execute() {
  count_dependencies();
  const bool grad_mode = !capture_.empty();
  // Errors a node's saved state would raise (freed graph, in-place
  // modification, a modified checkpoint input) are raised before anything
  // runs, so they change no .grad.
  for (auto& [e, g] : roots_)
    if (!grad_mode || must_run(e.fn.get())) e.fn->check_saved();
  // Discovery order (must_run may add nodes to states_: by index).
  for (size_t k = 0; k < states_.size(); ++k)
    if (states_[k].reached && (!grad_mode || must_run(states_[k].node))) states_[k].node->check_saved();
  captured_.resize(capture_.size());
  // Sums into slot (ops::add: a fresh tensor, never an alias; with history
  // under create_graph).
  auto deliver = [&](const Edge& e, const Tensor& g) {
    if (!g.defined()) return;
    if (grad_mode && !is_capture(e.fn.get()) && !must_run(e.fn.get())) return;
    TensorList& buf = states_[index_of(e.fn.get())].buffer;
    if (buf.empty()) buf.resize(e.fn->outputs.size());
    Tensor& slot = buf[e.input_nr];
    slot = slot.defined() ? ops::add(slot, g) : g;
  };
  std::vector<Node*> ready_storage;
  ready_storage.reserve(states_.size());
  std::priority_queue<Node*, std::vector<Node*>, NewestFirst> ready(NewestFirst{},
                                                                     std::move(ready_storage));
  for (auto& [e, g] : roots_) deliver(e, g);
  for (auto& [e, g] : roots_) {
    NodeState& s = states_[index_of(e.fn.get())];
    if (!s.reached && !s.queued) {
      s.queued = true;
      ready.push(e.fn.get());
    }
  }

  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    TensorList inputs = std::move(states_[index_of(node)].buffer);
    if (inputs.empty()) inputs.resize(node->outputs.size());
    // Tensor hooks see (and may replace) a gradient before anything uses it.
    for (auto& [nr, hook] : node->pre_hooks)
      if (inputs[nr].defined()) inputs[nr] = autograd::run_grad_hooks({hook}, inputs[nr]);
    auto* acc = dynamic_cast<AccumulateGrad*>(node);
    if (acc && inputs[0].defined()) inputs[0] = run_leaf_hooks(*acc, inputs[0]);
    for (size_t c = 0; c < capture_.size(); ++c)
      if (capture_[c].fn.get() == node) captured_[c] = inputs[capture_[c].input_nr];
    if (acc) {
      if (!grad_mode && inputs[0].defined()) {
        std::optional<profiler::Scope> profiled;
        if (profiler::active()) [[unlikely]]
          profiled.emplace("torch::autograd::AccumulateGrad", inputs, /*backward=*/true);
        const std::vector<autograd::PostAccumulateHookEntry> post = accumulate_grad(*acc, inputs[0]);
        // After the lock is released: a hook reads .grad, steps, queues.
        if (!post.empty()) [[unlikely]]
          autograd::run_post_accumulate_grad_hooks(post, Tensor(acc->variable));
      }
      continue;
    }
    // autograd.grad runs only what leads to an input (the rest of the
    // graph, its children included, is never reached).
    if (grad_mode && !must_run(node)) continue;
    if (node->materialize_grads())
      for (size_t i = 0; i < inputs.size(); ++i)  // outputs nobody used get zeros
        if (!inputs[i].defined()) inputs[i] = zeros_like_output(node->outputs[i]);
    TensorList outputs;
    {
      // The profiler sees the node (its name is torch's grad_fn name), with
      // the ops of its formula inside.
      std::optional<profiler::Scope> profiled;
      if (profiler::active()) [[unlikely]]
        profiled.emplace(node->name(), inputs, /*backward=*/true);
      outputs = node->apply(std::move(inputs));
    }
    if (!retain_graph_) node->release_saved();
    TSR_CHECK(outputs.size() == node->next_edges.size(), TSR_ERR_INTERNAL, node->name(), " returned ",
              outputs.size(), " gradients for ", node->next_edges.size(), " inputs");
    if (autograd::is_anomaly_enabled()) check_no_nan(*node, outputs);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.valid()) continue;
      deliver(e, validated(*node, i, e, outputs[i]));
      if (--states_[index_of(e.fn.get())].deps == 0) ready.push(e.fn.get());
    }
  }
}

// A leaf's gradient, added to its .grad as soon as the leaf's node is
// ready, so the incoming gradient is freed at once (PyTorch's
// AccumulateGrad). A new .grad is laid out like the leaf (a dense copy when
// the gradient is a view such as an expand, or shares memory with
// something else); an existing one is accumulated in place, so a handle to
// .grad held by the caller sees the sum. Under create_graph the gradient
// keeps its history and the sum is a new tensor, as in PyTorch.
std::vector<autograd::PostAccumulateHookEntry> GraphTask::accumulate_grad(AccumulateGrad& acc,
                                                                          const Tensor& g) const {
  AutogradMeta* meta = acc.variable->autograd.get();
  std::lock_guard lock(meta->mutex);
  if (create_graph_) {
    meta->grad = meta->grad.defined() ? ops::add(meta->grad, g) : g;
  } else if (meta->grad.defined()) {
    device::add_into_any(meta->grad, g, 1.0);
    meta->grad.bump_version();
  } else {
    const Tensor leaf(acc.variable);
    // A gradient nothing else holds, laid out as empty_like(leaf) would
    // be, becomes .grad itself (no copy).
    const bool stealable = g.impl_ptr().use_count() == 1 && g.storage()->use_count() == 1 &&
                           g.dtype() == leaf.dtype() && g.sizes() == leaf.sizes() &&
                           g.strides() == strides_like(leaf.sizes(), leaf.strides(), TSR_PRESERVE_FORMAT);
    if (stealable) {
      meta->grad = g;
    } else {
      Tensor dense = empty_like(leaf, leaf.dtype(), TSR_PRESERVE_FORMAT);
      device::copy_strided_any(dense, g);
      meta->grad = std::move(dense);
    }
  }
  return meta->post_accumulate_hooks;
}

}  // namespace

void backward(const Tensor& root, const Tensor& gradient, bool retain_graph, bool create_graph) {
  TSR_CHECK(autograd::requires_grad(root), TSR_ERR_AUTOGRAD,
            "element 0 of tensors does not require grad and does not have a grad_fn");
  Tensor g = root_gradient(root, gradient);
  check_no_open_region();
  autograd::GradModeGuard mode(create_graph);
  autograd::FinalCallbacks callbacks;
  GraphTask task({{autograd::gradient_edge(root), g}}, {}, retain_graph, create_graph);
  task.execute();
  callbacks.run();
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph,
                         bool create_graph, bool allow_unused) {
  TSR_CHECK(grad_outputs.size() == outputs.size(), TSR_ERR_INVALID_ARGUMENT,
            "grad requires one grad_output per output: got ", grad_outputs.size(), " for ",
            outputs.size(), " outputs");
  TSR_CHECK(!outputs.empty() && !inputs.empty(), TSR_ERR_INVALID_ARGUMENT,
            "grad requires at least one output and one input");
  std::vector<std::pair<Edge, Tensor>> roots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    TSR_CHECK(autograd::requires_grad(outputs[i]), TSR_ERR_AUTOGRAD, "element ", i,
              " of tensors does not require grad and does not have a grad_fn");
    roots.emplace_back(autograd::gradient_edge(outputs[i]), root_gradient(outputs[i], grad_outputs[i]));
  }
  std::vector<Edge> capture;
  for (const Tensor& x : inputs) {
    TSR_CHECK(autograd::requires_grad(x), TSR_ERR_AUTOGRAD,
              "One of the differentiated Tensors does not require grad");
    capture.push_back(autograd::gradient_edge(x));
  }
  check_no_open_region();
  autograd::GradModeGuard mode(create_graph);
  autograd::FinalCallbacks callbacks;
  GraphTask task(std::move(roots), capture, retain_graph, create_graph);
  task.execute();
  callbacks.run();
  std::vector<Tensor> result;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& g = task.captured(i);
    TSR_CHECK(g.defined() || allow_unused, TSR_ERR_AUTOGRAD,
              "One of the differentiated Tensors appears to not have been used in the graph. "
              "Set allow_unused=True if this is the desired behavior.");
    result.push_back(g);
  }
  return result;
}

}  // namespace tsr::engine
