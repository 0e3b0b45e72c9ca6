// Batch norm (training) and 2x2 max pooling, forward and forward+backward,
// on the Fashion CNN's activations, in NCHW and channels_last, tessera's C
// API against libtorch 1.13 on the same buffers (part of tsr_conv_bench).
#include <torch/csrc/autograd/autograd.h>

#include <string>

#include "conv_bench.h"

namespace conv_bench {

namespace {

const char* format_name(bool channels_last) { return channels_last ? "channels_last" : "NCHW"; }

std::string shape(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
  return s + "]";
}

void bench_batch_norm(const std::vector<int64_t>& sizes, bool channels_last, int warmup, int rounds) {
  at::manual_seed(0);
  const auto fmt = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  const int64_t C = sizes[1];
  at::Tensor x = at::randn(sizes).contiguous(fmt), gy = at::randn(sizes).contiguous(fmt);
  at::Tensor w = at::rand({C}) + 0.5, b = at::randn({C});
  at::Tensor rm = at::zeros({C}), rv = at::ones({C});
  at::Tensor xt = x.detach().requires_grad_(), wt = w.detach().requires_grad_(), bt = b.detach().requires_grad_();
  tsr_tensor *tx = wrap(x), *tw = wrap(w), *tb = wrap(b), *tgy = wrap(gy);
  for (tsr_tensor* t : {tx, tw, tb}) BENCH_TSR(tsr_set_requires_grad(t, true));

  at::Tensor y_ref;
  std::vector<at::Tensor> g_ref;
  auto torch_step = [&] {
    at::Tensor y = at::batch_norm(xt, wt, bt, {}, {}, true, 0.1, 1e-5, false);
    g_ref = torch::autograd::grad({y}, {xt, wt, bt}, {gy});
    y_ref = y.detach();
  };
  tsr_tensor* y = nullptr;
  tsr_tensor* grads[3] = {nullptr, nullptr, nullptr};
  auto tsr_step = [&] {
    tsr_tensor_release(y);
    for (auto& g : grads) tsr_tensor_release(g), g = nullptr;
    BENCH_TSR(tsr_batch_norm(tx, nullptr, nullptr, tw, tb, true, 0.1, 1e-5, &y));
    tsr_tensor* ins[3] = {tx, tw, tb};
    BENCH_TSR(tsr_autograd_grad(1, &y, &tgy, 3, ins, false, false, false, grads));
  };
  torch_step();
  tsr_step();
  std::printf("  batch_norm %-23s %-14s max |diff| y %.2e, dx %.2e, dw %.2e, db %.2e\n",
              shape(sizes).c_str(), format_name(channels_last), max_abs_diff(y, y_ref),
              max_abs_diff(grads[0], g_ref[0]), max_abs_diff(grads[1], g_ref[1]), max_abs_diff(grads[2], g_ref[2]));
  time_pairs(
      {
          {"tessera fwd", [&] { tsr_tensor* o; BENCH_TSR(tsr_batch_norm(tx, nullptr, nullptr, tw, tb, true, 0.1, 1e-5, &o)); tsr_tensor_release(o); }, true},
          {"torch fwd", [&] { at::NoGradGuard ng; bench::keep(at::batch_norm(x, w, b, {}, {}, true, 0.1, 1e-5, false).data_ptr()); }, true},
          {"tessera fwd+bwd", tsr_step, true},
          {"torch fwd+bwd", torch_step, true},
      },
      warmup, rounds);
  tsr_tensor_release(y);
  for (auto& g : grads) tsr_tensor_release(g);
  for (tsr_tensor* t : {tx, tw, tb, tgy}) tsr_tensor_release(t);
}

void bench_max_pool(const std::vector<int64_t>& sizes, bool channels_last, int warmup, int rounds) {
  at::manual_seed(0);
  const auto fmt = channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  at::Tensor x = at::randn(sizes).contiguous(fmt);
  at::Tensor gy = at::randn({sizes[0], sizes[1], sizes[2] / 2, sizes[3] / 2}).contiguous(fmt);
  at::Tensor xt = x.detach().requires_grad_();
  tsr_tensor *tx = wrap(x), *tgy = wrap(gy);
  BENCH_TSR(tsr_set_requires_grad(tx, true));
  const int64_t k[2] = {2, 2}, zero[2] = {0, 0}, one[2] = {1, 1};

  at::Tensor y_ref, g_ref;
  auto torch_step = [&] {
    at::Tensor out = at::max_pool2d(xt, {2, 2}, {2, 2});
    g_ref = torch::autograd::grad({out}, {xt}, {gy})[0];
    y_ref = out.detach();
  };
  tsr_tensor *y = nullptr, *g = nullptr;
  auto tsr_step = [&] {
    tsr_tensor_release(y);
    tsr_tensor_release(g);
    BENCH_TSR(tsr_max_pool2d(tx, k, k, zero, one, false, &y, nullptr));
    BENCH_TSR(tsr_autograd_grad(1, &y, &tgy, 1, &tx, false, false, false, &g));
  };
  torch_step();
  tsr_step();
  std::printf("  max_pool2d 2x2 %-19s %-14s max |diff| y %.2e, dx %.2e\n",
              shape(sizes).c_str(), format_name(channels_last), max_abs_diff(y, y_ref),
              max_abs_diff(g, g_ref));
  time_pairs(
      {
          {"tessera fwd", [&] { tsr_tensor* o; BENCH_TSR(tsr_max_pool2d(tx, k, k, zero, one, false, &o, nullptr)); tsr_tensor_release(o); }, true},
          // torch's autograd keeps the indices too: max_pool2d_with_indices.
          {"torch fwd", [&] { bench::keep(std::get<0>(at::max_pool2d_with_indices(x, {2, 2}, {2, 2})).data_ptr()); }, true},
          {"tessera fwd+bwd", tsr_step, true},
          {"torch fwd+bwd", torch_step, true},
      },
      warmup, rounds);
  tsr_tensor_release(y);
  tsr_tensor_release(g);
  tsr_tensor_release(tx);
  tsr_tensor_release(tgy);
}

}  // namespace

void bench_fashion_layers(int warmup, int rounds) {
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{64, 32, 28, 28}, {64, 64, 14, 14}})
    for (bool cl : {false, true}) {
      bench_batch_norm(sizes, cl, warmup, rounds);
      bench_max_pool(sizes, cl, warmup, rounds);
    }
}

}  // namespace conv_bench
