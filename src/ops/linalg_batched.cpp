// outer (as torch: a broadcast mul) and the bmm primitive: torch's checks and messages first, then the batched
// matmul kernel. Backward (derivatives.yaml): grad_a = grad @ b^T, grad_b =
// a^T @ grad, both bmm, so double backward works.
#include "ops/linalg_batched.h"

#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "core/views.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/matmul.h"
#include "device/batched_matmul.h"
#include "device/device_ops.h"
#include "ops/grad_util.h"
#include "ops/math.h"
#include "ops/views.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names({"bmm", "baddbmm"});

// torch 1.13's bmm checks, in its order.
void check_bmm(const Tensor& a, const Tensor& b) {
  TSR_CHECK(a.ndim() == 3, TSR_ERR_SHAPE_MISMATCH, "batch1 must be a 3D tensor");
  TSR_CHECK(b.ndim() == 3, TSR_ERR_SHAPE_MISMATCH, "batch2 must be a 3D tensor");
  const Shape& sa = a.sizes();
  const Shape& sb = b.sizes();
  TSR_CHECK(sb[0] == sa[0] && sb[1] == sa[2], TSR_ERR_SHAPE_MISMATCH,
            "Expected size for first two dimensions of batch2 tensor to be: [", sa[0], ", ", sa[2],
            "] but got: [", sb[0], ", ", sb[1], "].");
  TSR_CHECK(a.dtype() == b.dtype(), TSR_ERR_DTYPE_MISMATCH, "expected scalar type ",
            kernels::scalar_type_name(a.dtype()), " but found ", kernels::scalar_type_name(b.dtype()));
  TSR_CHECK(a.dtype() == TSR_FLOAT32 || a.dtype() == TSR_FLOAT64 || kernels::is_16bit_float(a.dtype()),
            TSR_ERR_DTYPE_MISMATCH, "bmm supports bfloat16, float16, float32 and float64 in this version, got ",
            dtype_name(a.dtype()));
}

class Bmm final : public prim::Primitive {
 public:
  const char* name() const override { return "BmmBackward0"; }
  const char* op() const override { return "bmm"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{{in[0].sizes()[0], in[0].sizes()[1], in[1].sizes()[2]}, in[0].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::matmul(in[0], in[1])}; }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override { return {device::matmul(k, in[0], in[1])}; }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {(rg[1] ? bit(0) : 0) | (rg[0] ? bit(1) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor ga, gb;
    if (ctx.needs_input_grad(0)) ga = bmm(g, transpose(ctx.input(1), 1, 2));
    if (ctx.needs_input_grad(1)) gb = bmm(transpose(ctx.input(0), 1, 2), g);
    return {ga, gb};
  }
};

// torch.baddbmm: beta * input + alpha * (batch1 @ batch2), input broadcast
// to the product's sizes and converted to its dtype; beta == 0 ignores
// input (its NaNs too). bfloat16/float16: all of it on the float32 sums,
// rounded once (torch's oneDNN kernel scales and adds before rounding). BaddbmmBackward0: input gets beta * grad summed to
// its sizes, batch1 alpha * grad @ batch2^T, batch2 alpha * batch1^T @ grad.
class Baddbmm final : public prim::Primitive {
 public:
  Baddbmm(double beta, double alpha) : beta_(beta), alpha_(alpha) {}
  const char* name() const override { return "BaddbmmBackward0"; }
  const char* op() const override { return "baddbmm"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    return {{{in[1].sizes()[0], in[1].sizes()[1], in[2].sizes()[2]}, in[1].dtype()}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    const tsr_dtype dtype = in[1].dtype();
    const bool narrow = kernels::is_16bit_float(dtype);
    Tensor r = narrow ? kernels::matmul_float32(in[1], in[2]) : kernels::matmul(in[1], in[2]);
    if (alpha_ != 1.0) kernels::scale_inplace(r, alpha_);
    if (beta_ != 0.0) {
      // torch converts input to the product's dtype first.
      const Tensor input = kernels::converted(kernels::converted(in[0], dtype), r.dtype());
      kernels::add_into(r, views::expand(input, r.sizes()), beta_);
    }
    return {narrow ? kernels::converted(r, dtype) : r};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    return {device::baddbmm(k, in[0], in[1], in[2], beta_, alpha_)};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad& rg) const override {
    return {(rg[2] ? bit(1) : 0) | (rg[1] ? bit(2) : 0), 0};
  }
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor gi, g1, g2;
    if (ctx.needs_input_grad(0)) gi = to_input(mul_scalar(g, beta_), ctx.input_meta(0));
    if (ctx.needs_input_grad(1)) g1 = mul_scalar(bmm(g, transpose(ctx.input(2), 1, 2)), alpha_);
    if (ctx.needs_input_grad(2)) g2 = mul_scalar(bmm(transpose(ctx.input(1), 1, 2), g), alpha_);
    return {gi, g1, g2};
  }

 private:
  double beta_, alpha_;
};

}  // namespace

Tensor baddbmm(const Tensor& input_arg, const Tensor& batch1_arg, const Tensor& batch2_arg, double beta,
               double alpha) {
  const TensorList cast = autocast::cast_inputs("baddbmm", {input_arg, batch1_arg, batch2_arg});
  const Tensor& input = cast[0];
  const Tensor& batch1 = cast[1];
  const Tensor& batch2 = cast[2];
  check_bmm(batch1, batch2);
  // torch's expand check and message, before anything runs.
  (void)views::expand(input, {batch1.sizes()[0], batch1.sizes()[1], batch2.sizes()[2]});
  return autograd::run1<Baddbmm>({input, batch1, batch2}, beta, alpha);
}

Tensor outer(const Tensor& a, const Tensor& b) {
  TSR_CHECK(a.ndim() == 1, TSR_ERR_SHAPE_MISMATCH, "outer: Expected 1-D argument self, but got ", a.ndim(), "-D");
  TSR_CHECK(b.ndim() == 1, TSR_ERR_SHAPE_MISMATCH, "outer: Expected 1-D argument vec2, but got ", b.ndim(), "-D");
  return mul(unsqueeze(a, 1), b);  // torch: self.reshape({-1, 1}) * vec2
}

Tensor bmm(const Tensor& a_arg, const Tensor& b_arg) {
  const TensorList cast = autocast::cast_inputs("bmm", {a_arg, b_arg});
  const Tensor& a = cast[0];
  const Tensor& b = cast[1];
  check_bmm(a, b);
  return autograd::run1<Bmm>({a, b});
}

}  // namespace tsr::ops
