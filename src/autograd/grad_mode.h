// Thread-local grad mode (torch.is_grad_enabled / no_grad).
#pragma once

namespace tsr::autograd {

bool is_grad_enabled();
// Sets the mode for this thread and returns the previous one.
bool set_grad_enabled(bool enabled);

// RAII no_grad scope.
class NoGradGuard {
 public:
  NoGradGuard() : prev_(set_grad_enabled(false)) {}
  ~NoGradGuard() { set_grad_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

// RAII scope with grad mode set to `enabled` (torch.set_grad_enabled).
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(set_grad_enabled(enabled)) {}
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace tsr::autograd
