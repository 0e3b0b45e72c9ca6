// torch.optim.Adam and AdamW of PyTorch 1.13, _single_tensor_adam/_adamw
// (maximize=False, capturable=False):
//   step += 1
//   AdamW: p *= 1 - lr * weight_decay     Adam: grad = grad + weight_decay * p
//   exp_avg    = beta1 * exp_avg    + (1 - beta1) * grad
//   exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
//   amsgrad: max_exp_avg_sq = maximum(max_exp_avg_sq, exp_avg_sq), used below
//   denom = sqrt(exp_avg_sq) / sqrt(1 - beta2^step) + eps
//   p -= lr / (1 - beta1^step) * exp_avg / denom
#include "optim/optimizer.h"

#include <cmath>

#include "core/error.h"
#include "core/factory.h"
#include "device/any_device.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/math.h"
#include "ops/nn_functional.h"

namespace tsr::optim {

namespace {

// A 0-dim tensor of value v in t's dtype on t's device: the Python float
// operand of torch's `tensor / float` (a wrapped number, computed in t's
// dtype).
Tensor scalar_like(const Tensor& t, double v) {
  Tensor s = empty({}, t.dtype(), TSR_CONTIGUOUS_FORMAT, t.device());
  device::fill_any(s, v);
  return s;
}

AdamOptions read_adam(const Options& o) {
  return {o.at("lr"), o.at("beta1"), o.at("beta2"), o.at("eps"), o.at("weight_decay"), o.at("amsgrad") != 0};
}

class Adam final : public Optimizer {
 public:
  Adam(const AdamOptions& o, bool decoupled)
      : Optimizer({{"lr", o.lr},
                   {"beta1", o.beta1},
                   {"beta2", o.beta2},
                   {"eps", o.eps},
                   {"weight_decay", o.weight_decay},
                   {"amsgrad", o.amsgrad ? 1.0 : 0.0}}),
        decoupled_(decoupled) {}

  const std::vector<std::string>& state_keys() const override {
    static const std::vector<std::string> keys{"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
    return keys;
  }

 public:
  void check_options(const Options& opts) const override {
    // torch.optim.Adam/AdamW.__init__'s checks, in their order.
    const AdamOptions o = read_adam(opts);
    check_lr(o.lr);
    TSR_CHECK(o.eps >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid epsilon value: ", py_float(o.eps));
    TSR_CHECK(o.beta1 >= 0.0 && o.beta1 < 1.0, TSR_ERR_INVALID_ARGUMENT, "Invalid beta parameter at index 0: ",
              py_float(o.beta1));
    TSR_CHECK(o.beta2 >= 0.0 && o.beta2 < 1.0, TSR_ERR_INVALID_ARGUMENT, "Invalid beta parameter at index 1: ",
              py_float(o.beta2));
    TSR_CHECK(o.weight_decay >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid weight_decay value: ",
              py_float(o.weight_decay));
  }

  void check_state(size_t i, const std::map<std::string, Tensor, std::less<>>& state) const override {
    if (state.empty()) return;
    for (const char* key : {"step", "exp_avg", "exp_avg_sq"})
      TSR_CHECK(state.count(key) != 0, TSR_ERR_INVALID_ARGUMENT, "load_state_dict: the state of parameter ", i,
                " has no \"", key, "\" (torch's step would raise KeyError: '", key, "')");
  }

 protected:
  void update(size_t i, const Tensor& p, const Tensor& grad_in, const Options& opts) override {
    const AdamOptions o = read_adam(opts);
    // Lazy state initialization, as torch's _init_group.
    Tensor& step_t = slot(i, "step");
    if (!step_t.defined()) {
      step_t = empty({}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);  // torch.tensor(0.)
      step_t.data<float>()[0] = 0.0f;
      slot(i, "exp_avg") = zeros_like(p);
      slot(i, "exp_avg_sq") = zeros_like(p);
      if (o.amsgrad) slot(i, "max_exp_avg_sq") = zeros_like(p);
    }
    // amsgrad turned on in a group after the state was made (torch raises a
    // KeyError there): start its running maximum at zero.
    if (o.amsgrad && !slot(i, "max_exp_avg_sq").defined()) slot(i, "max_exp_avg_sq") = zeros_like(p);
    const Tensor& exp_avg = slot(i, "exp_avg");
    const Tensor& exp_avg_sq = slot(i, "exp_avg_sq");

    ops::fill_(step_t, double(step_t.data<float>()[0] + 1.0f));  // step_t += 1 (float32)
    const double step = step_t.data<float>()[0];

    Tensor grad = grad_in;
    if (decoupled_) {
      ops::mul_scalar_(p, 1 - o.lr * o.weight_decay);
    } else if (o.weight_decay != 0) {
      grad = ops::clone(grad_in, TSR_PRESERVE_FORMAT);  // grad.add(p, alpha=weight_decay)
      ops::add_(grad, p, o.weight_decay);
    }

    ops::mul_scalar_(exp_avg, o.beta1);
    ops::add_(exp_avg, grad, 1 - o.beta1);
    ops::mul_scalar_(exp_avg_sq, o.beta2);
    ops::add_(exp_avg_sq, ops::mul(grad, grad), 1 - o.beta2);  // addcmul_(grad, grad, 1 - beta2)

    const double bias_correction1 = 1 - std::pow(o.beta1, step);
    const double bias_correction2 = 1 - std::pow(o.beta2, step);
    const double step_size = o.lr / bias_correction1;
    const double bias_correction2_sqrt = std::sqrt(bias_correction2);

    Tensor v = exp_avg_sq;
    if (o.amsgrad) {
      // torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq), as
      // max += relu(exp_avg_sq - max): exact where exp_avg_sq <= max or
      // exp_avg_sq <= 2 max (Sterbenz), else within one rounding.
      const Tensor& m = slot(i, "max_exp_avg_sq");
      ops::add_(m, ops::relu(ops::sub(exp_avg_sq, m)), 1.0);
      v = m;
    }
    const Tensor denom =
        ops::add_scalar(ops::div(ops::sqrt(v), scalar_like(v, bias_correction2_sqrt)), o.eps);
    ops::add_(p, ops::div(exp_avg, denom), -step_size);  // p.addcdiv_(exp_avg, denom, value=-step_size)
  }

 private:
  bool decoupled_;
};

}  // namespace

std::unique_ptr<Optimizer> make_adam(std::vector<Tensor> params, const AdamOptions& o, bool decoupled) {
  auto opt = std::make_unique<Adam>(o, decoupled);
  opt->add_param_group(std::move(params), {});
  return opt;
}

}  // namespace tsr::optim
