// Optimizers as torch.optim (1.13, one parameter group, foreach=False): the
// parameter list, the per-parameter state dictionary under torch's keys,
// the learning rate, and step/zero_grad. SGD (sgd.cpp) and Adam/AdamW
// (adam.cpp) supply the update of one parameter. Everything runs through
// the ops layer (in-place primitives under no_grad), so parameters of any
// strides and on any device the ops support work, and the profiler and
// version counters see what torch's would.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace tsr::optim {

// Python's repr of a float ("-0.1", "1.0", "1e-08"): torch's messages
// format Python floats.
std::string py_float(double v);

class Optimizer {
 public:
  // Checks the parameters as torch.optim.Optimizer does: a non-empty list
  // of leaves, no tensor twice; floating dtypes. `lr` is checked by the
  // subclass factories.
  Optimizer(std::vector<Tensor> params, double lr);
  virtual ~Optimizer() = default;

  // optimizer.step(): every parameter with a .grad, in order, under no_grad.
  // All gradients are checked first (sizes, dtype, device, writable param).
  void step();
  void zero_grad(bool set_to_none);

  double lr() const { return lr_; }
  void set_lr(double lr);
  size_t num_params() const { return params_.size(); }

  // The keys this optimizer's state may hold (torch's names).
  virtual bool knows_key(std::string_view key) const = 0;
  // state[param i][key], undefined when absent. Throws for an unknown key
  // or an index out of range.
  Tensor state(size_t i, std::string_view key) const;

 protected:
  // One parameter's update: p in place from grad (p's sizes/dtype/device).
  virtual void update(size_t i, const Tensor& p, const Tensor& grad) = 0;
  Tensor& slot(size_t i, const char* key) { return state_[i][key]; }

  double lr_;

 private:
  std::vector<Tensor> params_;
  std::vector<std::map<std::string, Tensor, std::less<>>> state_;
};

// Invalid-argument error unless lr >= 0 (torch's "Invalid learning rate").
void check_lr(double lr);

struct SgdOptions {
  double lr, momentum, dampening, weight_decay;
  bool nesterov;
};
struct AdamOptions {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad;
};

std::unique_ptr<Optimizer> make_sgd(std::vector<Tensor> params, const SgdOptions& o);
// decoupled: AdamW (p *= 1 - lr * weight_decay) instead of Adam's L2 term.
std::unique_ptr<Optimizer> make_adam(std::vector<Tensor> params, const AdamOptions& o, bool decoupled);

// Zeros shaped, strided and placed like t (torch.zeros_like(t,
// memory_format=torch.preserve_format)).
Tensor zeros_like(const Tensor& t);

}  // namespace tsr::optim
