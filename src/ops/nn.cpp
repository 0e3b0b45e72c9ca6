// log_softmax, nll_loss and cross_entropy (= nll_loss(log_softmax(x, 1)),
// as torch.nn.functional.cross_entropy) with autograd.
#include "autograd/node.h"
#include "kernels/nn.h"
#include "ops/math.h"

namespace tsr::ops {

namespace {

struct LogSoftmaxBackward final : autograd::Node {
  LogSoftmaxBackward(const Tensor& result, int64_t dim) : result(result, 0), dim(dim) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    return {kernels::log_softmax_backward(g[0], result.unpack(*this), dim)};
  }
  void release_saved() override { result.reset(); }
  const char* name() const override { return "LogSoftmaxBackward0"; }
  autograd::SavedVariable result;
  int64_t dim;
};

struct NllLossBackward final : autograd::Node {
  NllLossBackward(const Tensor& logp, const Tensor& target) : logp(logp), target(target) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    return {kernels::nll_loss_backward(g[0], logp.unpack(*this), target.unpack(*this)), Tensor()};
  }
  void release_saved() override { logp.reset(); target.reset(); }
  const char* name() const override { return "NllLossBackward0"; }
  autograd::SavedVariable logp, target;
};

}  // namespace

Tensor log_softmax(const Tensor& a, int64_t dim) {
  dim = wrap_dim(dim, a.ndim());
  Tensor out = kernels::log_softmax(a, dim);
  if (autograd::any_requires_grad({&a}))
    autograd::set_history(std::make_shared<LogSoftmaxBackward>(out, dim), {&a}, {&out});
  return out;
}

Tensor nll_loss(const Tensor& logp, const Tensor& target) {
  Tensor out = kernels::nll_loss(logp, target);
  if (autograd::any_requires_grad({&logp}))
    autograd::set_history(std::make_shared<NllLossBackward>(logp, target), {&logp, &target}, {&out});
  return out;
}

Tensor cross_entropy(const Tensor& logits, const Tensor& target) {
  TSR_CHECK(logits.ndim() == 2, TSR_ERR_SHAPE_MISMATCH,
            "cross_entropy: expected logits of 2 dims [N, C], got ", logits.sizes());
  TSR_CHECK(is_floating(logits.dtype()), TSR_ERR_DTYPE_MISMATCH,
            "cross_entropy: expected floating logits, got ", dtype_name(logits.dtype()));
  return nll_loss(log_softmax(logits, 1), target);
}

}  // namespace tsr::ops
