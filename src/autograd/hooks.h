// Hooks users attach to autograd (torch.Tensor.register_hook,
// register_post_accumulate_grad_hook, Variable._execution_engine.
// queue_callback and torch.autograd.graph.saved_tensors_hooks), as
// interfaces the C API implements with C callbacks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "autograd/node.h"

namespace tsr::autograd {

// Sees the gradient of a tensor when backward computes it and may replace
// it (an undefined result keeps it).
struct GradHook {
  virtual ~GradHook() = default;
  virtual Tensor operator()(const Tensor& grad) = 0;
};

// torch.Tensor.register_hook: on a leaf, runs before the gradient is added
// to .grad (or captured by autograd.grad); on a non-leaf, before its
// grad_fn uses the gradient of that output. Returns an id for
// remove_hook. TSR_ERR_AUTOGRAD when t does not require grad (torch's
// message).
int64_t register_hook(const Tensor& t, std::shared_ptr<GradHook> hook);
// False when t has no hook with that id.
bool remove_hook(const Tensor& t, int64_t id);
// Runs hooks in registration order on g (defined), checking each result's
// sizes; `what` names the tensor for the message.
Tensor run_grad_hooks(const std::vector<HookEntry>& hooks, Tensor g);

// Sees a leaf right after backward added its gradient to .grad (torch 2.1's
// Tensor.register_post_accumulate_grad_hook); throws to fail the backward.
struct PostAccumulateGradHook {
  virtual ~PostAccumulateGradHook() = default;
  virtual void operator()(const Tensor& leaf) = 0;
};
// Registers hook on t, a leaf that requires grad (torch's messages
// otherwise, TSR_ERR_AUTOGRAD). Returns an id remove_hook takes: the id
// space is register_hook's.
int64_t register_post_accumulate_grad_hook(const Tensor& t, std::shared_ptr<PostAccumulateGradHook> hook);
// Runs hooks in registration order on leaf.
void run_post_accumulate_grad_hooks(const std::vector<PostAccumulateHookEntry>& hooks, const Tensor& leaf);

// torch's Variable._execution_engine.queue_callback: a callback that runs
// once when the backward pass running on this thread has finished.
struct BackwardCallback {
  virtual ~BackwardCallback() = default;
  virtual void operator()() = 0;
};
// Queues cb on the innermost backward running on this thread;
// TSR_ERR_AUTOGRAD (torch's message) when none runs. cb is dropped (not
// run) if that backward fails.
void queue_backward_callback(std::unique_ptr<BackwardCallback> cb);
// The callbacks of one backward pass (the engine holds one per pass, on
// the thread running it): queue_backward_callback adds to the innermost
// alive on the thread; run() calls them in queue order, also those queued
// meanwhile. Callbacks not run are dropped with the scope.
class FinalCallbacks {
 public:
  FinalCallbacks();
  ~FinalCallbacks();
  FinalCallbacks(const FinalCallbacks&) = delete;
  FinalCallbacks& operator=(const FinalCallbacks&) = delete;
  void run();

 private:
  friend void queue_backward_callback(std::unique_ptr<BackwardCallback> cb);
  std::vector<std::unique_ptr<BackwardCallback>> queue_;
  FinalCallbacks* outer_;
};

// torch.autograd.graph.saved_tensors_hooks: while pushed on a thread, every
// tensor autograd saves there is handed to pack, and backward gets it back
// through the PackedTensor's unpack.
struct SavedTensorHooks {
  virtual ~SavedTensorHooks() = default;
  virtual std::shared_ptr<PackedTensor> pack(const Tensor& t) = 0;
};
void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
// TSR_ERR_AUTOGRAD when none is pushed on this thread.
void pop_saved_tensor_hooks();
// The innermost hooks' packing of t, or null when none are pushed.
std::shared_ptr<PackedTensor> pack_with_saved_tensor_hooks(const Tensor& t);

// torch.autograd.set_detect_anomaly (process-wide): backward checks each
// gradient a node returns for NaN and names the node and its forward op.
bool is_anomaly_enabled();
bool set_anomaly_enabled(bool enabled);

}  // namespace tsr::autograd
