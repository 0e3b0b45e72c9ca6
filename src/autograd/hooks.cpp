#include "autograd/hooks.h"

#include <atomic>

namespace tsr::autograd {

namespace {
std::atomic<int64_t> g_next_hook_id{1};
thread_local std::vector<std::shared_ptr<SavedTensorHooks>> t_saved_hooks;
std::atomic<bool> g_anomaly{false};
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

bool remove_hook(const Tensor& t, int64_t id) {
  auto* m = t.impl()->autograd.get();
  if (!m) return false;
  auto same = [id](const auto& e) { return e.id == id; };
  if (m->grad_fn)
    return std::erase_if(m->grad_fn->pre_hooks, [id](const auto& p) { return p.second.id == id; }) > 0;
  std::lock_guard lock(m->mutex);
  return std::erase_if(m->hooks, same) > 0;
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
