// Optimizers as torch.optim (1.13, foreach=False): parameter groups with
// their options, the per-parameter state dictionary under torch's keys, and
// step/zero_grad. SGD (sgd.cpp) and Adam/AdamW (adam.cpp) supply the update
// of one parameter from its group's options. Everything runs through the
// ops layer (in-place primitives under no_grad), so parameters of any
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

// A parameter group's options by torch's names; booleans (nesterov,
// amsgrad) are 0/1 and Adam's betas are "beta1"/"beta2". Keys the optimizer
// does not use (a scheduler's "initial_lr", "max_lr", ...) are kept as
// torch keeps any key of a group's dict.
using Options = std::map<std::string, double, std::less<>>;

struct ParamGroup {
  size_t first = 0;  // index of the group's first parameter in the flat list
  size_t count = 0;  // parameters in the group
  Options options;
};

class Optimizer {
 public:
  // `defaults` holds every option the optimizer reads (its constructor's
  // arguments); the factories check them and add the first group.
  explicit Optimizer(Options defaults) : defaults_(std::move(defaults)) {}
  virtual ~Optimizer() = default;

  // optimizer.add_param_group({"params": params, **overrides}): checks the
  // parameters as torch.optim.Optimizer does (leaves, floating, none twice
  // in the group nor in another group) and the merged options as the
  // optimizer's constructor does; nothing changes on failure.
  void add_param_group(std::vector<Tensor> params, const Options& overrides);

  // optimizer.step(): every parameter with a .grad, in order, under no_grad.
  // All gradients are checked first (checked_grads()).
  void step();
  // step()'s checks, made before anything is written: each parameter's
  // .grad (undefined where it has none) with its parameter's sizes, dtype
  // and device, and each such parameter writable. Throws on the first
  // failure. GradScaler (src/amp) runs them before it unscales, so a step
  // that would fail changes no gradient either.
  std::vector<Tensor> checked_grads() const;
  void zero_grad(bool set_to_none);

  size_t num_params() const { return params_.size(); }
  const Tensor& param(size_t i) const { return params_[i]; }
  size_t num_groups() const { return groups_.size(); }
  const ParamGroup& group(size_t g) const;
  // param_groups[g][key]; throws for a key the group does not hold.
  double option(size_t g, std::string_view key) const;
  // param_groups[g][key] = value; the optimizer's own keys are checked as
  // its constructor checks them, other keys are stored as given.
  void set_option(size_t g, std::string_view key, double value);
  bool has_option(size_t g, std::string_view key) const;

  // The keys this optimizer's state may hold (torch's names), in order.
  virtual const std::vector<std::string>& state_keys() const = 0;
  bool knows_key(std::string_view key) const;
  // state[param i][key], undefined when absent. Throws for an unknown key
  // or an index out of range.
  Tensor state(size_t i, std::string_view key) const;
  // Replaces the whole state and the groups' options at once (what
  // load_state_dict does after its checks): state[i] = states[i], groups'
  // options = options[g]. Sizes must match (checked by the caller).
  void replace_state(std::vector<std::map<std::string, Tensor, std::less<>>> states,
                     std::vector<Options> options);

  // Every group's options, and putting them back: what lets a scheduler's
  // constructor that fails part way leave the optimizer as it was.
  std::vector<Options> option_snapshot() const;
  void restore_options(std::vector<Options> options);

  // Throws unless a loaded state of parameter i is one update() can use
  // (Adam: "step", "exp_avg" and "exp_avg_sq" together, or none).
  virtual void check_state(size_t i, const std::map<std::string, Tensor, std::less<>>& state) const {
    (void)i;
    (void)state;
  }

  // torch.optim's defaults: the keys the optimizer reads.
  const Options& defaults() const { return defaults_; }

 // Throws, with the constructor's message, unless `o` (a complete set of
  // the optimizer's options) is valid.
  virtual void check_options(const Options& o) const = 0;

 protected:
  // One parameter's update: p in place from grad (p's sizes/dtype/device)
  // with the options of p's group.
  virtual void update(size_t i, const Tensor& p, const Tensor& grad, const Options& o) = 0;
  Tensor& slot(size_t i, const char* key) { return state_[i][key]; }

 private:
  Options defaults_;
  std::vector<Tensor> params_;
  std::vector<ParamGroup> groups_;
  std::vector<std::map<std::string, Tensor, std::less<>>> state_;
};

// p.grad, read under the leaf's lock (a backward on another thread may be
// accumulating into it); undefined when p has none.
Tensor grad_of(const Tensor& p);

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
