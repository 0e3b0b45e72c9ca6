#include "autograd/grad_mode.h"

#include "core/inference_mode.h"

namespace tsr::autograd {
namespace {
thread_local bool t_grad_enabled = true;
}
// Inference mode implies no grad, whatever the grad mode says.
bool is_grad_enabled() { return t_grad_enabled && !is_inference_mode_enabled(); }
bool set_grad_enabled(bool enabled) {
  bool prev = t_grad_enabled;
  t_grad_enabled = enabled;
  return prev;
}
}  // namespace tsr::autograd
