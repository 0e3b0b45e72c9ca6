// The dropout primitive: a random primitive that remembers where in its
// generator's stream it drew, so running it again (a checkpoint replay)
// draws the same mask.
#include "ops/dropout.h"

#include <algorithm>

#include "autograd/run.h"
#include "core/factory.h"
#include "core/philox.h"
#include "device/device_ops.h"
#include "cpu/kernels/elementwise.h"
#include "ops/grad_util.h"
#include "primitive/op_names.h"

namespace tsr::ops {

namespace {

const bool registered = prim::register_op_names({"dropout"});

// noise[i] = (u_i < 1 - p) / (1 - p), u_i the 24-bit uniform of word
// start + i (philox::dropout_mask), drawn by the CPU.
Tensor bernoulli_noise(const Shape& sizes, tsr_dtype dtype, double p, uint64_t seed, uint64_t start) {
  Tensor noise = empty(sizes, dtype, TSR_CONTIGUOUS_FORMAT, kCpu);
  const philox::DropoutMask mask = philox::dropout_mask(p);
  constexpr int64_t kChunk = 4096;
  uint32_t words[kChunk];
  dispatch_floating(dtype, "dropout", [&]<typename T>() {
    T* out = noise.data<T>();
    const T kept = T(compute_t<T>(mask.scale)), dropped = T(compute_t<T>(0.0));
    for (int64_t i0 = 0; i0 < noise.numel(); i0 += kChunk) {
      const int64_t n = std::min(kChunk, noise.numel() - i0);
      philox::fill_words(seed, start + uint64_t(i0), uint64_t(n), words);
      for (int64_t i = 0; i < n; ++i) out[i0 + i] = (words[i] >> 8) < mask.threshold ? kept : dropped;
    }
  });
  return noise;
}

class Dropout final : public prim::Primitive {
 public:
  Dropout(double p, std::shared_ptr<Generator> g) : p_(p), generator_(std::move(g)) {}
  const char* name() const override { return "MulBackward0"; }
  const char* op() const override { return "dropout"; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors& in) const override {
    return {prim::meta_of(in[0]), prim::meta_of(in[0])};
  }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    const Tensor& x = in[0];
    take_position(x);
    Tensor noise = bernoulli_noise(x.sizes(), x.dtype(), p_, seed_, start_);
    return {kernels::binary(kernels::BinaryOp::Mul, x, noise), noise};
  }
  // The same words of the same stream as the CPU: equal masks.
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    const Tensor& x = in[0];
    take_position(x);
    Tensor noise = device::bernoulli_noise(k, x.sizes(), x.dtype(), x.device(), p_, seed_, start_);
    return {device::binary(k, BinaryKernel::Mul, x, noise, 1.0, x.dtype()), noise};
  }
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override { return {0, bit(1)}; }
  prim::Tensors backward(const prim::BackwardContext& ctx) override {
    return {mul(ctx.grad(0), ctx.output(1))};
  }
  bool is_random() const override { return true; }
  // The stream position is taken on the first run (after the checks that
  // can fail, so a failed call does not advance the generator) and kept.
  void take_position(const Tensor& x) {
    dispatch_floating(x.dtype(), "dropout", []<typename T>() {});
    if (drawn_) return;
    seed_ = generator_->seed();
    start_ = generator_->reserve(uint64_t(x.numel()));
    drawn_ = true;
  }
  void forget_random_state() override { drawn_ = false; }

 private:
  double p_;
  std::shared_ptr<Generator> generator_;
  bool drawn_ = false;
  uint64_t seed_ = 0, start_ = 0;
};

}  // namespace

Tensor dropout(const Tensor& x, double p, bool train, const std::shared_ptr<Generator>& g) {
  TSR_CHECK(p >= 0.0 && p <= 1.0, TSR_ERR_INVALID_ARGUMENT,
            "dropout probability has to be between 0 and 1, but got ", p);
  if (!train || p == 0.0 || x.numel() == 0) return x;
  return autograd::run(std::make_shared<Dropout>(p, g), {x})[0];
}

}  // namespace tsr::ops
