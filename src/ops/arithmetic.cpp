// add, sub, mul, div, scalar variants, neg, relu, exp, log with autograd.
#include "autograd/node.h"
#include "kernels/elementwise.h"
#include "ops/grad_util.h"
#include "ops/math.h"

namespace tsr::ops {

using autograd::Node;
using autograd::SavedVariable;
using kernels::BinaryOp;
using kernels::UnaryOp;

namespace {

struct AddSubBackward final : Node {
  AddSubBackward(const Tensor& a, const Tensor& b, bool sub) : a_(a), b_(b), sub_(sub) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor gb = sub_ ? kernels::unary(UnaryOp::Neg, g[0]) : g[0];
    return {to_input(g[0], a_), to_input(gb, b_)};
  }
  const char* name() const override { return sub_ ? "SubBackward0" : "AddBackward0"; }
  InputInfo a_, b_;
  bool sub_;
};

// Saves each operand only when the other one needs a gradient, as PyTorch
// does: an in-place change to a tensor that was not saved is not an error.
struct MulBackward final : Node {
  MulBackward(const Tensor& a, const Tensor& b)
      : a_(a), b_(b), sa_(autograd::requires_grad(b) ? a : Tensor()),
        sb_(autograd::requires_grad(a) ? b : Tensor()) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor ga, gb;
    if (needs_input_grad(0)) ga = to_input(kernels::binary(BinaryOp::Mul, g[0], sb_.unpack(*this)), a_);
    if (needs_input_grad(1)) gb = to_input(kernels::binary(BinaryOp::Mul, g[0], sa_.unpack(*this)), b_);
    return {ga, gb};
  }
  void release_saved() override { sa_.reset(); sb_.reset(); }
  const char* name() const override { return "MulBackward0"; }
  InputInfo a_, b_;
  SavedVariable sa_, sb_;
};

struct DivBackward final : Node {
  DivBackward(const Tensor& a, const Tensor& b)
      : a_(a), b_(b), sa_(autograd::requires_grad(b) ? a : Tensor()), sb_(b) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor b = sb_.unpack(*this);
    Tensor ga = kernels::binary(BinaryOp::Div, g[0], b), gb;
    if (needs_input_grad(1)) {
      // d(a/b)/db = -a / b^2 = -(g/b) * (a/b)
      Tensor a = sa_.unpack(*this);
      gb = to_input(kernels::unary(UnaryOp::Neg, kernels::binary(BinaryOp::Mul, ga,
                                                                  kernels::binary(BinaryOp::Div, a, b))),
                    b_);
    }
    return {needs_input_grad(0) ? to_input(ga, a_) : Tensor(), gb};
  }
  void release_saved() override { sa_.reset(); sb_.reset(); }
  const char* name() const override { return "DivBackward0"; }
  InputInfo a_, b_;
  SavedVariable sa_, sb_;
};

// d(a*s)/da = s, d(a+s)/da = 1. torch's mul saves the scalar as a tensor,
// so a second backward through it without retain_graph fails; add saves
// nothing and may run again. `saves_scalar` keeps that difference.
struct ScalarBackward final : Node {
  ScalarBackward(const char* n, double scale, bool saves_scalar)
      : name_(n), scale(scale), saves_scalar(saves_scalar) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    if (freed) autograd::fail_freed_graph();
    return {scale == 1.0 ? g[0] : kernels::mul_scalar(g[0], scale)};
  }
  void release_saved() override { freed = saves_scalar; }
  const char* name() const override { return name_; }
  const char* name_;
  double scale;
  bool saves_scalar;
  bool freed = false;
};

// relu and exp save their result; log saves its input.
struct UnaryBackward final : Node {
  UnaryBackward(UnaryOp op, const Tensor& saved)
      : op(op), saved(saved, op == UnaryOp::Log ? -1 : 0) {}
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    Tensor s = saved.unpack(*this);
    switch (op) {
      case UnaryOp::Relu: return {kernels::relu_backward(g[0], s)};
      case UnaryOp::Exp: return {kernels::binary(BinaryOp::Mul, g[0], s)};
      case UnaryOp::Log: return {kernels::binary(BinaryOp::Div, g[0], s)};
      case UnaryOp::Neg: break;
    }
    return {kernels::unary(UnaryOp::Neg, g[0])};
  }
  void release_saved() override { saved.reset(); }
  const char* name() const override {
    switch (op) {
      case UnaryOp::Relu: return "ReluBackward0";
      case UnaryOp::Exp: return "ExpBackward0";
      case UnaryOp::Log: return "LogBackward0";
      case UnaryOp::Neg: break;
    }
    return "NegBackward0";
  }
  UnaryOp op;
  SavedVariable saved;
};

Tensor unary_op(UnaryOp op, const Tensor& a) {
  Tensor out = kernels::unary(op, a);
  if (autograd::any_requires_grad({&a})) {
    const Tensor& saved = (op == UnaryOp::Log) ? a : out;
    // Saving the output before it has history keeps no cycle (SavedVariable
    // stores a history-free alias).
    autograd::set_history(std::make_shared<UnaryBackward>(op, op == UnaryOp::Neg ? Tensor() : saved),
                          {&a}, {&out});
  }
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out = kernels::binary(BinaryOp::Add, a, b);
  if (autograd::any_requires_grad({&a, &b}))
    autograd::set_history(std::make_shared<AddSubBackward>(a, b, false), {&a, &b}, {&out});
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Tensor out = kernels::binary(BinaryOp::Sub, a, b);
  if (autograd::any_requires_grad({&a, &b}))
    autograd::set_history(std::make_shared<AddSubBackward>(a, b, true), {&a, &b}, {&out});
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = kernels::binary(BinaryOp::Mul, a, b);
  if (autograd::any_requires_grad({&a, &b}))
    autograd::set_history(std::make_shared<MulBackward>(a, b), {&a, &b}, {&out});
  return out;
}

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = kernels::binary(BinaryOp::Div, a, b);
  if (autograd::any_requires_grad({&a, &b}))
    autograd::set_history(std::make_shared<DivBackward>(a, b), {&a, &b}, {&out});
  return out;
}

Tensor mul_scalar(const Tensor& a, double s) {
  Tensor out = kernels::mul_scalar(a, s);
  if (autograd::any_requires_grad({&a}))
    // Python's x * 2 and torch.mul(x, 2) wrap the scalar in a tensor and
    // give MulBackward0 (MulBackward1 is the C++-only Scalar overload).
    autograd::set_history(std::make_shared<ScalarBackward>("MulBackward0", s, true), {&a}, {&out});
  return out;
}

Tensor add_scalar(const Tensor& a, double s) {
  Tensor out = kernels::add_scalar(a, s);
  if (autograd::any_requires_grad({&a}))
    autograd::set_history(std::make_shared<ScalarBackward>("AddBackward0", 1.0, false), {&a}, {&out});
  return out;
}

Tensor neg(const Tensor& a) { return unary_op(UnaryOp::Neg, a); }
Tensor relu(const Tensor& a) { return unary_op(UnaryOp::Relu, a); }
Tensor exp(const Tensor& a) { return unary_op(UnaryOp::Exp, a); }
Tensor log(const Tensor& a) { return unary_op(UnaryOp::Log, a); }

}  // namespace tsr::ops
