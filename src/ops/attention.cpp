// The attention primitives. Forward: _scaled_dot_product_flash_attention_for_cpu
// (grad_fn ScaledDotProductFlashAttentionForCpuBackward0, torch 2.x's CPU
// names), outputs the attention and each row's logsumexp, the only state
// its backward keeps besides q, k, v and the mask: O(L) memory, the scores
// recomputed per tile. Backward: a second primitive (the aten op
// _scaled_dot_product_flash_attention_for_cpu_backward) with no backward of
// its own, so a double backward fails with "the derivative for ... is not
// implemented" (TSR_ERR_AUTOGRAD), as torch's fused kernels do.
#include "ops/attention.h"

#include <cmath>

#include "autocast/cast_inputs.h"
#include "autograd/run.h"
#include "cpu/kernels/attention.h"
#include "device/attention.h"
#include "ops/grad_util.h"
#include "primitive/op_names.h"

namespace tsr::ops {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

const bool registered = prim::register_op_names(
    {"_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention_for_cpu_backward"});

kernels::SdpaArgs args_of(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal,
                          double scale, const kernels::SdpaDropout& d) {
  kernels::SdpaArgs a;
  a.q = q;
  a.k = k;
  a.v = v;
  a.mask = mask;
  a.causal = causal;
  a.scale = scale;
  a.dropout = d;
  return a;
}

Shape with_rows(const Shape& batch, int64_t rows, int64_t cols) {
  Shape s = batch;
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

// Inputs: grad_out, q, k, v, out, lse [, mask]. Outputs: dq, dk, dv over
// the broadcast batch dims, in q's dtype.
class AttentionBackward final : public prim::Primitive {
 public:
  AttentionBackward(bool causal, double scale, kernels::SdpaDropout d) : causal_(causal), scale_(scale), d_(d) {}
  const char* name() const override { return "ScaledDotProductFlashAttentionForCpuBackwardBackward0"; }
  const char* op() const override { return "_scaled_dot_product_flash_attention_for_cpu_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    const kernels::SdpaShape sh = kernels::sdpa_shape(in[1], in[2], in[3], mask(in));
    const tsr_dtype dt = in[1].dtype();
    return {{with_rows(sh.batch, sh.L, sh.E), dt}, {with_rows(sh.batch, sh.S, sh.E), dt},
            {with_rows(sh.batch, sh.S, sh.Ev), dt}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    const kernels::SdpaGrads g =
        kernels::sdpa_backward(args_of(in[1], in[2], in[3], mask(in), causal_, scale_, d_), in[0], in[4], in[5]);
    return {g.dq, g.dk, g.dv};
  }
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    const kernels::SdpaGrads g = device::sdpa_backward(k, args_of(in[1], in[2], in[3], mask(in), causal_, scale_, d_),
                                                       in[0], in[4], in[5]);
    return {g.dq, g.dk, g.dv};
  }

 private:
  static Tensor mask(const Tensors& in) { return in.size() > 6 ? in[6] : Tensor(); }
  bool causal_;
  double scale_;
  kernels::SdpaDropout d_;
};

// Inputs: q, k, v [, mask]. Outputs: the attention and the logsumexp.
class Attention final : public prim::Primitive {
 public:
  Attention(bool causal, double scale, double p, std::shared_ptr<Generator> g, bool has_mask)
      : causal_(causal), has_mask_(has_mask), scale_(scale), generator_(std::move(g)) {
    d_.p = p;
  }
  const char* name() const override { return "ScaledDotProductFlashAttentionForCpuBackward0"; }
  const char* op() const override { return "_scaled_dot_product_flash_attention_for_cpu"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    const kernels::SdpaShape sh = kernels::sdpa_shape(in[0], in[1], in[2], mask(in));
    return {{sh.out_sizes(), in[0].dtype()}, {sh.lse_sizes(), kernels::sdpa_compute_dtype(in[0].dtype())}};
  }
  Tensors eval_cpu(const Tensors& in) override {
    const kernels::SdpaShape sh = kernels::sdpa_shape(in[0], in[1], in[2], mask(in));
    take_position(sh);
    const kernels::SdpaForwardResult r =
        kernels::sdpa_forward(args_of(in[0], in[1], in[2], mask(in), causal_, scale_, d_));
    return {r.out, r.lse};
  }
  // The device's attention kernels (device/attention.h), the same Philox
  // words for the dropout mask as the CPU.
  Tensors eval_device(const Tensors& in, DeviceKernels& k) override {
    const kernels::SdpaShape sh = kernels::sdpa_shape(in[0], in[1], in[2], mask(in));
    take_position(sh);
    const kernels::SdpaForwardResult r =
        device::sdpa_forward(k, args_of(in[0], in[1], in[2], mask(in), causal_, scale_, d_));
    return {r.out, r.lse};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override {
    return {has_mask_ ? bit(0) | bit(1) | bit(2) | bit(3) : bit(0) | bit(1) | bit(2), bit(0) | bit(1)};
  }
  Tensors backward(const BackwardContext& ctx) override {
    Tensors in = {ctx.grad(0), ctx.input(0), ctx.input(1), ctx.input(2), ctx.output(0), ctx.output(1)};
    if (has_mask_) in.push_back(ctx.input(3));
    const Tensors g = autograd::run(std::make_shared<AttentionBackward>(causal_, scale_, d_), in);
    Tensors r;
    for (size_t i = 0; i < 3; ++i)
      r.push_back(ctx.needs_input_grad(i) ? to_input(g[i], ctx.input_meta(i)) : Tensor());
    if (has_mask_) r.push_back(Tensor());  // no gradient for the mask
    return r;
  }
  bool is_random() const override { return d_.p > 0.0; }
  void forget_random_state() override { drawn_ = false; }

 private:
  static Tensor mask(const Tensors& in) { return in.size() > 3 ? in[3] : Tensor(); }
  // The stream position is taken on the first run, after the checks, and
  // kept for a checkpoint replay and for backward.
  void take_position(const kernels::SdpaShape& sh) {
    if (d_.p <= 0.0 || drawn_) return;
    d_.seed = generator_->seed();
    d_.start = generator_->reserve(uint64_t(sh.batch_numel()) * uint64_t(sh.L) * uint64_t(sh.S));
    drawn_ = true;
  }
  bool causal_, has_mask_;
  double scale_;
  std::shared_ptr<Generator> generator_;
  kernels::SdpaDropout d_;
  bool drawn_ = false;
};

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& q_arg, const Tensor& k_arg, const Tensor& v_arg,
                                    const Tensor& mask_arg, double dropout_p, bool is_causal, double scale,
                                    const std::shared_ptr<Generator>& g) {
  // torch 2.x lists it under lower precision for CPU autocast.
  const TensorList cast = autocast::cast_inputs("scaled_dot_product_attention", {q_arg, k_arg, v_arg, mask_arg});
  const Tensor &q = cast[0], &k = cast[1], &v = cast[2], &mask = cast[3];
  TSR_CHECK(!(is_causal && mask.defined()), TSR_ERR_INVALID_ARGUMENT,
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  TSR_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, TSR_ERR_INVALID_ARGUMENT,
            "dropout probability has to be between 0 and 1, but got ", dropout_p);
  TSR_CHECK(std::isnan(scale) || std::isfinite(scale), TSR_ERR_INVALID_ARGUMENT,
            "scaled_dot_product_attention: scale must be finite (or None), but got ", scale);
  TSR_CHECK(dropout_p == 0.0 || g, TSR_ERR_INVALID_ARGUMENT,
            "scaled_dot_product_attention: dropout_p > 0 needs a generator");
  const kernels::SdpaShape sh = kernels::sdpa_shape(q, k, v, mask);
  if (std::isnan(scale)) scale = 1.0 / std::sqrt(double(sh.E));
  Tensors in = {q, k, v};
  if (mask.defined()) in.push_back(mask);
  return autograd::run(std::make_shared<Attention>(is_causal, scale, dropout_p, g, mask.defined()), in)[0];
}

}  // namespace tsr::ops
