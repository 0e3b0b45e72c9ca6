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

class Sgd final : public Optimizer {
 public:
  Sgd(std::vector<Tensor> params, const SgdOptions& o) : Optimizer(std::move(params), o.lr), o_(o) {}

  bool knows_key(std::string_view key) const override { return key == "momentum_buffer"; }

 protected:
  void update(size_t i, const Tensor& p, const Tensor& grad) override {
    Tensor d_p = grad;
    bool fresh = false;  // d_p is a tensor of our own, free to write
    if (o_.weight_decay != 0) {
      d_p = ops::clone(grad, TSR_PRESERVE_FORMAT);  // grad.add(p, alpha=weight_decay)
      ops::add_(d_p, p, o_.weight_decay);
      fresh = true;
    }
    if (o_.momentum != 0) {
      Tensor& buf = slot(i, "momentum_buffer");
      if (!buf.defined()) {
        buf = ops::clone(d_p, TSR_PRESERVE_FORMAT);
      } else {
        ops::mul_scalar_(buf, o_.momentum);
        ops::add_(buf, d_p, 1 - o_.dampening);
      }
      if (o_.nesterov) {
        if (!fresh) d_p = ops::clone(d_p, TSR_PRESERVE_FORMAT);  // d_p.add(buf, alpha=momentum)
        ops::add_(d_p, buf, o_.momentum);
      } else {
        d_p = buf;
      }
    }
    ops::add_(p, d_p, -lr_);
  }

 private:
  SgdOptions o_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(std::vector<Tensor> params, const SgdOptions& o) {
  // torch.optim.SGD.__init__'s checks, in its order.
  check_lr(o.lr);
  TSR_CHECK(o.momentum >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid momentum value: ", py_float(o.momentum));
  TSR_CHECK(o.weight_decay >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid weight_decay value: ",
            py_float(o.weight_decay));
  TSR_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), TSR_ERR_INVALID_ARGUMENT,
            "Nesterov momentum requires a momentum and zero dampening");
  return std::make_unique<Sgd>(std::move(params), o);
}

}  // namespace tsr::optim
