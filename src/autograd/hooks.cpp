#include "autograd/hooks.h"

#include <algorithm>
#include <atomic>

namespace tsr::autograd {

namespace {
std::atomic<int64_t> g_next_hook_id{1};
thread_local std::vector<std::shared_ptr<SavedTensorHooks>> t_saved_hooks;
std::atomic<bool> g_anomaly{false};
thread_local FinalCallbacks* t_final_callbacks = nullptr;
}  // namespace

int64_t register_hook(const Tensor& t, std::shared_ptr<GradHook> hook) {
  TSR_CHECK(requires_grad(t), TSR_ERR_AUTOGRAD,
            "cannot register a hook on a tensor that doesn't require gradient");
  HookEntry entry{g_next_hook_id.fetch_add(1), std::move(hook)};
  AutogradMeta& m = *t.impl()->autograd;
  if (m.grad_fn) {
    m.grad_fn->pre_hooks.emplace_back(m.output_nr, entry);
  } else {
    std::lock_guard lock(m.mutex);
    m.hooks.push_back(entry);
  }
  return entry.id;
}

int64_t register_post_accumulate_grad_hook(const Tensor& t, std::shared_ptr<PostAccumulateGradHook> hook) {
  TSR_CHECK(requires_grad(t), TSR_ERR_AUTOGRAD,
            "cannot register a hook on a tensor that doesn't require gradient");
  TSR_CHECK(is_leaf(t), TSR_ERR_AUTOGRAD, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  PostAccumulateHookEntry entry{g_next_hook_id.fetch_add(1), std::move(hook)};
  AutogradMeta& m = *t.impl()->autograd;
  std::lock_guard lock(m.mutex);
  m.post_accumulate_hooks.push_back(std::move(entry));
  return m.post_accumulate_hooks.back().id;
}

bool remove_hook(const Tensor& t, int64_t id) {
  auto* m = t.impl()->autograd.get();
  if (!m) return false;
  if (m->grad_fn)
    return std::erase_if(m->grad_fn->pre_hooks, [id](const auto& p) { return p.second.id == id; }) > 0;
  // Freed after the lock is released (declared first): a hook's destroy
  // may use this tensor.
  std::shared_ptr<void> removed;
  auto take = [&](auto& list) {
    auto it = std::find_if(list.begin(), list.end(), [id](const auto& e) { return e.id == id; });
    if (it == list.end()) return false;
    removed = std::move(it->hook);
    list.erase(it);
    return true;
  };
  std::lock_guard lock(m->mutex);
  return take(m->hooks) || take(m->post_accumulate_hooks);
}

void run_post_accumulate_grad_hooks(const std::vector<PostAccumulateHookEntry>& hooks, const Tensor& leaf) {
  for (const PostAccumulateHookEntry& h : hooks) (*h.hook)(leaf);
}

FinalCallbacks::FinalCallbacks() : outer_(t_final_callbacks) { t_final_callbacks = this; }

FinalCallbacks::~FinalCallbacks() { t_final_callbacks = outer_; }

void FinalCallbacks::run() {
  // By index: a callback may queue more (torch's exec_post_processing).
  // Each is freed once it has run, so its context goes as soon as possible.
  for (size_t i = 0; i < queue_.size(); ++i) {
    std::unique_ptr<BackwardCallback> cb = std::move(queue_[i]);
    (*cb)();
  }
  queue_.clear();
}

void queue_backward_callback(std::unique_ptr<BackwardCallback> cb) {
  TSR_CHECK(t_final_callbacks != nullptr, TSR_ERR_AUTOGRAD,
            "Final callbacks can only be installed during backward pass.");
  t_final_callbacks->queue_.push_back(std::move(cb));
}

Tensor run_grad_hooks(const std::vector<HookEntry>& hooks, Tensor g) {
  for (const HookEntry& h : hooks) {
    Tensor r = (*h.hook)(g);
    if (!r.defined()) continue;
    TSR_CHECK(r.sizes() == g.sizes(), TSR_ERR_SHAPE_MISMATCH, "hook ", h.id, " returned a gradient of sizes ",
              r.sizes(), " for a gradient of sizes ", g.sizes());
    g = std::move(r);
  }
  return g;
}

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) { t_saved_hooks.push_back(std::move(hooks)); }

void pop_saved_tensor_hooks() {
  TSR_CHECK(!t_saved_hooks.empty(), TSR_ERR_AUTOGRAD,
            "saved tensor hooks pop: no saved tensor hooks are pushed on this thread");
  t_saved_hooks.pop_back();
}

std::shared_ptr<PackedTensor> pack_with_saved_tensor_hooks(const Tensor& t) {
  if (t_saved_hooks.empty()) return nullptr;
  // The hooks run without saved-tensor hooks of their own (torch disables
  // them while packing), so a pack that computes does not recurse.
  auto hooks = t_saved_hooks.back();
  t_saved_hooks.pop_back();
  struct Restore {
    std::shared_ptr<SavedTensorHooks> h;
    ~Restore() { t_saved_hooks.push_back(std::move(h)); }
  } restore{hooks};
  return hooks->pack(t);
}

bool is_anomaly_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
bool set_anomaly_enabled(bool enabled) { return g_anomaly.exchange(enabled); }

}  // namespace tsr::autograd
