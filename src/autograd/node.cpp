#include "autograd/node.h"

#include <atomic>

#include "autograd/checkpoint.h"
#include "autograd/grad_mode.h"
#include "autograd/hooks.h"
#include "core/inference_mode.h"
#include "autograd/rebase.h"

namespace tsr::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
}

Node::Node() : sequence_nr(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

SavedVariable::SavedVariable(const Tensor& t, int32_t output_nr) {
  if (!t.defined()) return;
  TSR_CHECK(!t.is_inference() || is_inference_mode_enabled(), TSR_ERR_AUTOGRAD,
            "Inference tensors cannot be saved for backward. To work around you can make a clone "
            "to get a normal tensor and use it in autograd.");
  saved_version_ = t.version();
  // Inside a checkpoint region, values the region can recompute are not
  // kept: a stand-in replays the region's tape when backward needs them.
  // Otherwise the user's saved-tensor hooks (torch's
  // saved_tensors_hooks) keep it, if any are pushed.
  if ((packed_ = checkpoint::pack(t))) return;
  if ((packed_ = pack_with_saved_tensor_hooks(t))) return;
  data_ = detach(t);
  if (output_nr >= 0) {
    is_owner_output_ = true;
    output_nr_ = output_nr;
  } else if (auto* m = t.impl()->autograd.get(); m && m->grad_fn) {
    producer_ = m->grad_fn->name();
    output_nr_ = int32_t(m->output_nr);
    grad_fn_ = m->grad_fn;
  } else if (m && m->requires_grad) {
    leaf_ = t;
  }
}

void fail_freed_graph() {
  fail(TSR_ERR_AUTOGRAD,
       "Trying to backward through the graph a second time (or directly access saved "
       "tensors after they have already been freed). Saved intermediate values of the graph "
       "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
       "you need to backward through the graph a second time.");
}

void fail_modified(const Tensor& t, int64_t now, int64_t expected, const std::string& origin) {
  fail(TSR_ERR_AUTOGRAD,
       "one of the variables needed for gradient computation has been modified by an "
       "inplace operation: [", dtype_name(t.dtype()), " ", t.sizes(), "]", origin,
       " is at version ", now, "; expected version ", expected, " instead.");
}

Tensor SavedVariable::with_history(const Node& owner) const {
  if (!is_grad_enabled()) return data_;
  if (leaf_.defined()) return leaf_;
  std::shared_ptr<Node> fn = is_owner_output_ ? std::const_pointer_cast<Node>(owner.shared_from_this()) : grad_fn_;
  if (!fn) return data_;
  Tensor t = make_view(data_, data_.sizes(), data_.strides(), data_.storage_offset());
  auto meta = std::make_shared<AutogradMeta>();
  meta->grad_fn = std::move(fn);
  meta->output_nr = uint32_t(output_nr_);
  t.impl()->autograd = std::move(meta);
  return t;
}

void SavedVariable::check(const Node& owner) const {
  if (released_) fail_freed_graph();
  if (packed_) return packed_->check();
  if (!data_.defined()) return;
  int64_t now = data_.version();
  if (now == saved_version_) return;
  // PyTorch's message: "..., which is output N of FooBackward0," only for
  // tensors produced by an op; leaves have no such clause.
  const char* producer = is_owner_output_ ? owner.name() : producer_;
  fail_modified(data_, now, saved_version_,
                producer ? str(", which is output ", output_nr_, " of ", producer, ",") : "");
}

Tensor SavedVariable::unpack(const Node& owner) const {
  check(owner);
  // A recomputed value is checked against its recomputation by the packer.
  if (packed_) return packed_->unpack();
  if (!data_.defined()) return data_;
  return with_history(owner);
}

bool requires_grad(const Tensor& t) {
  refresh_view_grad_fn(t);
  auto* m = t.impl()->autograd.get();
  return m && (m->requires_grad || m->grad_fn);
}

bool is_leaf(const Tensor& t) {
  refresh_view_grad_fn(t);
  auto* m = t.impl()->autograd.get();
  return !m || !m->grad_fn;
}

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> none;
  refresh_view_grad_fn(t);
  auto* m = t.impl()->autograd.get();
  return m ? m->grad_fn : none;
}

Edge gradient_edge(const Tensor& t) {
  refresh_view_grad_fn(t);
  auto* m = t.impl()->autograd.get();
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  std::lock_guard lock(m->mutex);
  auto acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    acc->outputs.push_back({t.sizes(), t.dtype(), t.device()});
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

bool any_requires_grad(const TensorList& inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && requires_grad(t)) return true;
  return false;
}

void set_history(const std::shared_ptr<Node>& node, const TensorList& inputs,
                 const TensorList& outputs) {
  node->next_edges.reserve(node->next_edges.size() + inputs.size());
  node->outputs.reserve(node->outputs.size() + outputs.size());
  for (const Tensor& t : inputs) node->next_edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  uint32_t nr = 0;
  for (const Tensor& t : outputs) {
    node->outputs.push_back({t.sizes(), t.dtype(), t.device()});
    if (is_floating(t.dtype())) {
      auto& meta = t.impl()->autograd;
      if (!meta) meta = std::make_shared<AutogradMeta>();
      meta->grad_fn = node;
      meta->output_nr = nr;
    }
    ++nr;
  }
}

void set_requires_grad(const Tensor& t, bool flag) {
  auto& meta = t.impl()->autograd;
  if (!meta) {
    if (!flag) return;
    meta = std::make_shared<AutogradMeta>();
  }
  TSR_CHECK(!meta->grad_fn || flag, TSR_ERR_AUTOGRAD,
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach().");
  if (meta->grad_fn) return;  // non-leaf already requires grad
  TSR_CHECK(!flag || !t.is_inference() || is_inference_mode_enabled(), TSR_ERR_AUTOGRAD,
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  TSR_CHECK(!flag || is_floating(t.dtype()), TSR_ERR_DTYPE_MISMATCH,
            "only Tensors of floating point dtype can require gradients, got ", dtype_name(t.dtype()));
  meta->requires_grad = flag;
}

const Tensor* view_base(const Tensor& t) {
  auto* m = t.impl()->autograd.get();
  return m && m->view_base.defined() ? &m->view_base : nullptr;
}

Tensor detach(const Tensor& t) { return make_view(t, t.sizes(), t.strides(), t.storage_offset()); }

}  // namespace tsr::autograd
