// torch.optim.SGD of PyTorch 1.13, _single_tensor_sgd (maximize=False):
//   d_p = grad (+ weight_decay * p)
//   momentum != 0: buf = clone(d_p) at the first step, else
//                  buf = momentum * buf + (1 - dampening) * d_p;
//                  d_p = nesterov ? d_p + momentum * buf : buf
//   p -= lr * d_p
#include "optim/optimizer.h"

#include "core/error.h"
#include "ops/inplace.h"
#include "ops/layout.h"

namespace tsr::optim {

namespace {

SgdOptions read_sgd(const Options& o) {
  return {o.at("lr"), o.at("momentum"), o.at("dampening"), o.at("weight_decay"), o.at("nesterov") != 0};
}

class Sgd final : public Optimizer {
 public:
  explicit Sgd(const SgdOptions& o)
      : Optimizer({{"lr", o.lr},
                   {"momentum", o.momentum},
                   {"dampening", o.dampening},
                   {"weight_decay", o.weight_decay},
                   {"nesterov", o.nesterov ? 1.0 : 0.0}}) {}

  const std::vector<std::string>& state_keys() const override {
    static const std::vector<std::string> keys{"momentum_buffer"};
    return keys;
  }

 public:
  void check_options(const Options& opts) const override {
    // torch.optim.SGD.__init__'s checks, in its order.
    const SgdOptions o = read_sgd(opts);
    check_lr(o.lr);
    TSR_CHECK(o.momentum >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid momentum value: ", py_float(o.momentum));
    TSR_CHECK(o.weight_decay >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid weight_decay value: ",
              py_float(o.weight_decay));
    TSR_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), TSR_ERR_INVALID_ARGUMENT,
              "Nesterov momentum requires a momentum and zero dampening");
  }

 protected:
  void update(size_t i, const Tensor& p, const Tensor& grad, const Options& opts) override {
    const SgdOptions o = read_sgd(opts);
    Tensor d_p = grad;
    bool fresh = false;  // d_p is a tensor of our own, free to write
    if (o.weight_decay != 0) {
      d_p = ops::clone(grad, TSR_PRESERVE_FORMAT);  // grad.add(p, alpha=weight_decay)
      ops::add_(d_p, p, o.weight_decay);
      fresh = true;
    }
    if (o.momentum != 0) {
      Tensor& buf = slot(i, "momentum_buffer");
      if (!buf.defined()) {
        buf = ops::clone(d_p, TSR_PRESERVE_FORMAT);
      } else {
        ops::mul_scalar_(buf, o.momentum);
        ops::add_(buf, d_p, 1 - o.dampening);
      }
      if (o.nesterov) {
        if (!fresh) d_p = ops::clone(d_p, TSR_PRESERVE_FORMAT);  // d_p.add(buf, alpha=momentum)
        ops::add_(d_p, buf, o.momentum);
      } else {
        d_p = buf;
      }
    }
    ops::add_(p, d_p, -o.lr);
  }
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(std::vector<Tensor> params, const SgdOptions& o) {
  check_lr(o.lr);  // the required lr first, with its own message
  auto opt = std::make_unique<Sgd>(o);
  opt->add_param_group(std::move(params), {});
  return opt;
}

}  // namespace tsr::optim
