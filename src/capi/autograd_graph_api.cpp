// C API: the autograd graph as objects (autograd_graph.h).
#include <tessera/autograd_graph.h>

#include <vector>

#include "autograd/node.h"
#include "capi/barrier.h"
#include "capi/handles.h"

// A reference to a node: holds it (and the graph behind it) alive.
struct tsr_node {
  explicit tsr_node(std::shared_ptr<tsr::autograd::Node> n) : node(std::move(n)) {}
  std::shared_ptr<tsr::autograd::Node> node;
};

using namespace tsr;
using namespace tsr::capi;

namespace {

const autograd::Node& node_of(const tsr_node* n) { return *require(n, "node")->node; }

tsr_node* reference(std::shared_ptr<autograd::Node> n) { return n ? new tsr_node(std::move(n)) : nullptr; }

// The inputs next_functions lists, as torch's node does (Node::torch_lists_input).
std::vector<size_t> listed_inputs(const autograd::Node& n) {
  std::vector<size_t> listed;
  for (size_t i = 0; i < n.next_edges.size(); ++i)
    if (n.torch_lists_input(i)) listed.push_back(i);
  return listed;
}

}  // namespace

TSR_EXTERN tsr_status tsr_tensor_grad_fn(const tsr_tensor* t, tsr_node** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = reference(autograd::grad_fn(x));
  });
}

TSR_EXTERN const char* tsr_node_name(const tsr_node* node) {
  return guarded_value<const char*>(nullptr, [&] { return node_of(node).name(); });
}

TSR_EXTERN int64_t tsr_node_num_next_functions(const tsr_node* node) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(listed_inputs(node_of(node)).size()); });
}

TSR_EXTERN tsr_status tsr_node_next_function(const tsr_node* node, int64_t i, tsr_node** next, int32_t* input_nr) {
  return guarded([&] {
    const autograd::Node& n = node_of(node);
    require(next, "next");
    const std::vector<size_t> listed = listed_inputs(n);
    const int64_t count = int64_t(listed.size());
    TSR_CHECK(i >= 0 && i < count, TSR_ERR_INDEX_OUT_OF_RANGE, "next_functions index ", i, " is out of range for ",
              n.name(), ", which has ", count);
    const autograd::Edge& e = n.next_edges[listed[size_t(i)]];
    *next = reference(e.fn);
    if (input_nr) *input_nr = e.valid() ? int32_t(e.input_nr) : 0;
  });
}

TSR_EXTERN tsr_status tsr_node_variable(const tsr_node* node, tsr_tensor** out) {
  return guarded([&] {
    const autograd::Node& n = node_of(node);
    require(out, "out");
    const auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n);
    TSR_CHECK(acc, TSR_ERR_INVALID_ARGUMENT, "'", n.name(), "' object has no attribute 'variable'");
    emit(out, Tensor(acc->variable));
  });
}

TSR_EXTERN uint64_t tsr_node_id(const tsr_node* node) {
  return node ? uint64_t(reinterpret_cast<uintptr_t>(node->node.get())) : 0;
}

TSR_EXTERN void tsr_node_release(tsr_node* node) { delete node; }
