// matmul with autograd. Backward works on the 2-D-ified operands (1-D a as
// [1,K], 1-D b as [K,1]) so one formula covers dot, mv, mm and batched:
// grad_a = grad @ b^T, grad_b = a^T @ grad, each summed over broadcast
// batch dims and reshaped back to the operand's sizes.
#include "autograd/node.h"
#include "core/views.h"
#include "kernels/matmul.h"
#include "ops/grad_util.h"
#include "ops/math.h"

namespace tsr::ops {

namespace {

Tensor as_matrix_a(const Tensor& a) { return a.ndim() == 1 ? views::unsqueeze(a, 0) : a; }
Tensor as_matrix_b(const Tensor& b) { return b.ndim() == 1 ? views::unsqueeze(b, 1) : b; }
Tensor mT(const Tensor& m) { return views::transpose(m, -2, -1); }

struct MatmulBackward final : autograd::Node {
  MatmulBackward(const Tensor& a, const Tensor& b)
      : a_(a), b_(b), sa_(autograd::requires_grad(b) ? a : Tensor()),
        sb_(autograd::requires_grad(a) ? b : Tensor()) {
    name_ = torch_name(a, b);
  }
  // The grad_fn torch 1.13's matmul leaves on its result: the last op of
  // its decomposition (mv/dot/mm, squeeze after 1-D x 2-D, _unsafe_view
  // after a folded or batched mm). For 2-D x batched it ends with
  // .mT().contiguous(): a clone, or the transpose itself when that is
  // already contiguous (M or N is 1); this is torch's name for contiguous
  // operands (for a transposed b torch folds differently).
  static const char* torch_name(const Tensor& a, const Tensor& b) {
    const int64_t da = a.ndim(), db = b.ndim();
    if (da == 1 && db == 1) return "DotBackward0";
    if (da == 2 && db == 1) return "MvBackward0";
    if (da == 1 && db == 2) return "SqueezeBackward3";
    if (da == 2 && db == 2) return "MmBackward0";
    if (da == 2) return a.sizes()[0] == 1 || b.sizes().back() == 1 ? "TransposeBackward0"
                                                                      : "CloneBackward0";
    return "UnsafeViewBackward0";
  }
  std::vector<Tensor> apply(std::vector<Tensor> g) override {
    // The output gradient with the 1-D operands' dims restored.
    Tensor grad = g[0];
    if (a_.sizes.size() == 1) grad = views::unsqueeze(grad, grad.ndim() - (b_.sizes.size() == 1 ? 0 : 1));
    if (b_.sizes.size() == 1) grad = views::unsqueeze(grad, grad.ndim());
    Tensor ga, gb;
    if (needs_input_grad(0)) {
      Tensor full = kernels::matmul(grad, mT(as_matrix_b(sb_.unpack(*this))));
      ga = reshape_to(full, a_);
    }
    if (needs_input_grad(1)) {
      Tensor full = kernels::matmul(mT(as_matrix_a(sa_.unpack(*this))), grad);
      gb = reshape_to(full, b_);
    }
    return {ga, gb};
  }
  void release_saved() override { sa_.reset(); sb_.reset(); }
  const char* name() const override { return name_; }

  // Sum the batch dims away; a 1-D operand's gradient is the [1,K] or
  // [K,1] matrix (contiguous: matmul and sum outputs are) seen as [K].
  static Tensor reshape_to(const Tensor& full, const InputInfo& in) {
    if (in.sizes.size() >= 2) return kernels::sum_to_size(full, in.sizes);
    Shape matrix(full.sizes().end() - 2, full.sizes().end());
    Tensor s = kernels::sum_to_size(full, matrix);
    return make_view(s, in.sizes, {1}, s.storage_offset());
  }

  InputInfo a_, b_;
  autograd::SavedVariable sa_, sb_;
  const char* name_;
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  Tensor out = kernels::matmul(a, b);
  if (autograd::any_requires_grad({&a, &b}))
    autograd::set_history(std::make_shared<MatmulBackward>(a, b), {&a, &b}, {&out});
  return out;
}

}  // namespace tsr::ops
