// tsr_conv_bench: conv2d forward + backward (gradients of input, weight and
// bias) through tessera's C API (oneDNN underneath) against libtorch 1.13
// C++ (mkldnn/oneDNN or its own kernels underneath), in NCHW and in
// channels_last, same thread count on both sides; then the other layers of
// the Fashion CNN (examples/fashion, batch 64): batch norm and max pooling,
// forward and backward (layers_bench.cpp). Both sides read the same
// memory (tessera wraps torch's buffers with tsr_from_blob); the outputs
// are compared once before timing. Prints medians and paired ratios; never
// passes or fails.
// Usage: tsr_conv_bench [--quick]   (--quick: one round, a smoke run)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <cstring>
#include <thread>

#include "conv_bench.h"

namespace conv_bench {

void leave_to_torch(void*, void*) {}

tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(), TSR_FLOAT32,
                          TSR_DEVICE_CPU, leave_to_torch, nullptr, &out));
  return out;
}

double max_abs_diff(tsr_tensor* t, const at::Tensor& ref) {
  // Compare in torch: wrap tessera's result as a torch tensor.
  at::Tensor mine = at::from_blob(tsr_tensor_data_ptr(t), ref.sizes(),
                                  at::IntArrayRef(tsr_tensor_strides(t), size_t(tsr_tensor_ndim(t))),
                                  at::kFloat);
  return (mine - ref).abs().max().item<double>();
}

void time_pairs(const std::vector<bench::Contender>& cs, int warmup, int rounds, double fwd_flops) {
  bench::Samples s = bench::measure_interleaved(cs, warmup, rounds);
  for (size_t i = 0; i < cs.size(); ++i) {
    const double t = bench::median(s.wall[i]);
    std::printf("    %-18s median %9.3f ms", cs[i].name.c_str(), 1e3 * t);
    if (fwd_flops > 0) std::printf("  %7.1f GFLOP/s", (i < 2 ? 1 : 3) * fwd_flops / t * 1e-9);
    if (i % 2 == 0) std::printf("   tessera / torch = %.2f", bench::paired_ratio(s.wall[i], s.wall[i + 1]));
    std::printf("\n");
  }
}

}  // namespace conv_bench

namespace {

using conv_bench::max_abs_diff;
using conv_bench::time_pairs;
using conv_bench::wrap;

struct Case {
  const char* name;
  int64_t n, cin, h, w, cout, k, pad;
};

void bench_case(const Case& c, bool channels_last, int warmup, int rounds) {
  at::manual_seed(0);
  const auto fmt = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  at::Tensor x = at::randn({c.n, c.cin, c.h, c.w}).contiguous(fmt);
  at::Tensor w = (at::randn({c.cout, c.cin, c.k, c.k}) * 0.05).contiguous(fmt);
  at::Tensor b = at::randn({c.cout});
  const int64_t ho = c.h + 2 * c.pad - c.k + 1, wo = c.w + 2 * c.pad - c.k + 1;
  at::Tensor gy = at::randn({c.n, c.cout, ho, wo}).contiguous(fmt);

  at::Tensor xt = x.detach().requires_grad_(), wt = w.detach().requires_grad_(), bt = b.detach().requires_grad_();
  tsr_tensor *tx = wrap(x), *tw = wrap(w), *tb = wrap(b), *tgy = wrap(gy);
  for (tsr_tensor* t : {tx, tw, tb}) BENCH_TSR(tsr_set_requires_grad(t, true));
  const int64_t one[2] = {1, 1}, pad[2] = {c.pad, c.pad};

  // One step each: forward, then the three gradients.
  at::Tensor ty_ref;
  std::vector<at::Tensor> tg_ref;
  auto torch_step = [&] {
    at::Tensor y = at::conv2d(xt, wt, bt, {1, 1}, {c.pad, c.pad});
    tg_ref = torch::autograd::grad({y}, {xt, wt, bt}, {gy});
    ty_ref = y.detach();
  };
  tsr_tensor* grads[3] = {nullptr, nullptr, nullptr};
  tsr_tensor* ty = nullptr;
  auto tsr_step = [&] {
    tsr_tensor_release(ty);
    for (auto& g : grads) tsr_tensor_release(g), g = nullptr;
    BENCH_TSR(tsr_conv2d(tx, tw, tb, one, pad, one, 1, &ty));
    tsr_tensor* ins[3] = {tx, tw, tb};
    BENCH_TSR(tsr_autograd_grad(1, &ty, &tgy, 3, ins, false, false, false, grads));
  };
  torch_step();
  tsr_step();
  std::printf("  %-34s %-14s max |diff| y %.2e, dx %.2e, dw %.2e, db %.2e; out strides %s\n", c.name,
              channels_last ? "channels_last" : "NCHW", max_abs_diff(ty, ty_ref), max_abs_diff(grads[0], tg_ref[0]),
              max_abs_diff(grads[1], tg_ref[1]), max_abs_diff(grads[2], tg_ref[2]),
              at::IntArrayRef(tsr_tensor_strides(ty), 4) == ty_ref.strides() ? "= torch's" : "DIFFER from torch's");

  // Forward alone and forward + backward, interleaved.
  const double flops = 2.0 * double(c.n * c.cout * ho * wo) * double(c.cin * c.k * c.k);
  time_pairs(
      {
          {"tessera fwd", [&] { tsr_tensor* y; BENCH_TSR(tsr_conv2d(tx, tw, tb, one, pad, one, 1, &y)); tsr_tensor_release(y); }, true},
          {"torch fwd", [&] { at::NoGradGuard ng; bench::keep(at::conv2d(x, w, b, {1, 1}, {c.pad, c.pad}).data_ptr()); }, true},
          {"tessera fwd+bwd", tsr_step, true},
          {"torch fwd+bwd", torch_step, true},
      },
      warmup, rounds, flops);
  tsr_tensor_release(ty);
  for (auto& g : grads) tsr_tensor_release(g);
  for (tsr_tensor* t : {tx, tw, tb, tgy}) tsr_tensor_release(t);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int warmup = 1, rounds = quick ? 1 : 5;
  const int threads = int(std::thread::hardware_concurrency());
  BENCH_TSR(tsr_set_num_threads(threads));
  at::set_num_threads(threads);
  std::printf("tessera %s (C API, oneDNN), libtorch %s (C++), CPU: %s, %d threads on both sides\n",
              tsr_version_string(), TORCH_VERSION, bench::cpu_model().c_str(), threads);
  std::printf("Figures: medians over %d rounds (wall clock), contenders interleaved within each round;\n"
              "ratio = median of per-round tessera / torch (below 1: tessera faster). fwd+bwd = forward and\n"
              "the gradients of input, weight and bias (GFLOP/s counts 3x the forward's work).\n",
              rounds);
  const Case cases[] = {{"3x3 [32,64,56,56] 64->64", 32, 64, 56, 56, 64, 3, 1},
                        {"3x3 [32,256,14,14] 256->256", 32, 256, 14, 14, 256, 3, 1},
                        {"1x1 [32,64,56,56] 64->256", 32, 64, 56, 56, 256, 1, 0}};
  for (const Case& c : cases)
    for (bool cl : {false, true}) bench_case(c, cl, warmup, rounds);
  std::printf("\nThe Fashion CNN's layers (examples/fashion, batch 64):\n");
  const Case fashion[] = {{"conv1 3x3 [64,1,28,28] 1->32", 64, 1, 28, 28, 32, 3, 1},
                          {"conv2 3x3 [64,32,14,14] 32->64", 64, 32, 14, 14, 64, 3, 1}};
  for (const Case& c : fashion)
    for (bool cl : {false, true}) bench_case(c, cl, warmup, rounds * 4);
  conv_bench::bench_fashion_layers(warmup, rounds * 4);
  return 0;
}
