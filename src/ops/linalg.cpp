// The matmul primitive. Backward works on the 2-D-ified operands (1-D a as
// [1,K], 1-D b as [K,1]) so one formula covers dot, mv, mm and batched:
// grad_a = grad @ b^T, grad_b = a^T @ grad, each summed over broadcast
// batch dims and reshaped back to the operand's sizes.
#include "primitive/op_names.h"
#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "device/device_ops.h"
#include "cpu/kernels/matmul.h"
#include "ops/grad_util.h"
#include "ops/views.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"matmul"});


Tensor as_matrix_a(const Tensor& a) { return a.ndim() == 1 ? unsqueeze(a, 0) : a; }
Tensor as_matrix_b(const Tensor& b) { return b.ndim() == 1 ? unsqueeze(b, 1) : b; }
Tensor mT(const Tensor& m) { return transpose(m, -2, -1); }

class Matmul final : public prim::Primitive {
 public:
  // The grad_fn torch 1.13's matmul leaves on its result: the last op of
  // its decomposition (mv/dot/mm, squeeze after 1-D x 2-D, _unsafe_view
  // after a folded or batched mm). For 2-D x batched it ends with
  // .mT().contiguous(): a clone, or the transpose itself when that is
  // already contiguous (M or N is 1); this is torch's name for contiguous
  // operands (for a transposed b torch folds differently).
  Matmul(const Tensor& a, const Tensor& b) : name_(torch_name(a, b)) {}
  const char* name() const override { return name_; }
  const char* op() const override { return "matmul"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{kernels::matmul_sizes(in[0].sizes(), in[1].sizes()), in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::matmul(in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::matmul(k, in[0], in[1])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {(rg[1] ? bit(0) : 0) | (rg[0] ? bit(1) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const TensorMeta &ma = ctx.input_meta(0), &mb = ctx.input_meta(1);
    // The output gradient with the 1-D operands' dims restored.
    Tensor grad = ctx.grad(0);
    if (ma.sizes.size() == 1) grad = unsqueeze(grad, grad.ndim() - (mb.sizes.size() == 1 ? 0 : 1));
    if (mb.sizes.size() == 1) grad = unsqueeze(grad, grad.ndim());
    Tensor ga, gb;
    if (ctx.needs_input_grad(0)) ga = reshape_to(matmul(grad, mT(as_matrix_b(ctx.input(1)))), ma);
    if (ctx.needs_input_grad(1)) gb = reshape_to(matmul(mT(as_matrix_a(ctx.input(0))), grad), mb);
    return {ga, gb};
  }

 private:
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
  // Sum the batch dims away; a 1-D operand's gradient is the [1,K] or
  // [K,1] matrix seen as [K].
  static Tensor reshape_to(const Tensor& full, const TensorMeta& in) {
    if (in.sizes.size() >= 2) return sum_to_size(full, in.sizes);
    Shape matrix(full.sizes().end() - 2, full.sizes().end());
    return view(sum_to_size(full, matrix), in.sizes);
  }

  const char* name_;
};

}  // namespace

Tensor matmul(const Tensor& a_arg, const Tensor& b_arg) {
  const TensorList cast = autocast::cast_inputs("matmul", {a_arg, b_arg});
  const Tensor& a = cast[0];
  const Tensor& b = cast[1];
  return autograd::run1<Matmul>({a, b}, a, b);
}

}  // namespace tsr::ops
