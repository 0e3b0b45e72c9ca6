// Part 3: one training step of the digits example's network (64-128-10
// MLP, batch 64, cross entropy, SGD lr 0.1: examples/digits) on cuda:0,
// forward + backward + update, in GPU time from events around each step;
// the same step on the CPU beside it, in host time.
#include <chrono>

#include <tessera/device.h>  // tsr_to_device

#include "cuda_bench.h"

namespace cuda_bench {
namespace {

constexpr int64_t kBatch = 64, kIn = 64, kHidden = 128, kOut = 10;
constexpr int kStepsPerRound = 50;

struct Net {
  tsr_tensor* p[4];  // w1 [64,128], b1 [128], w2 [128,10], b2 [10]
  tsr_tensor* x;     // [64, 64] float32
  tsr_tensor* y;     // [64] int64 classes
};

tsr_tensor* on(tsr_tensor* t, tsr_device_type type, bool requires_grad) {
  tsr_tensor* moved = nullptr;
  TSR(tsr_to_device(t, type, 0, 0, &moved));
  tsr_tensor_release(t);
  if (requires_grad) TSR(tsr_set_requires_grad(moved, true));
  return moved;
}

Net make_net(tsr_device_type type) {
  tsr_generator* g = nullptr;
  TSR(tsr_generator_create(7, &g));
  const int64_t w1[] = {kIn, kHidden}, w2[] = {kHidden, kOut}, x[] = {kBatch, kIn};
  Net n{};
  TSR(tsr_randn(2, w1, TSR_FLOAT32, g, &n.p[0]));
  TSR(tsr_zeros(1, &kHidden, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &n.p[1]));
  TSR(tsr_randn(2, w2, TSR_FLOAT32, g, &n.p[2]));
  TSR(tsr_zeros(1, &kOut, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &n.p[3]));
  TSR(tsr_randn(2, x, TSR_FLOAT32, g, &n.x));
  int64_t labels[kBatch];
  for (int64_t i = 0; i < kBatch; ++i) labels[i] = i % kOut;
  TSR(tsr_from_data(labels, sizeof labels, 1, &kBatch, TSR_INT64, &n.y));
  for (auto& t : n.p) t = on(t, type, true);
  n.x = on(n.x, type, false);
  n.y = on(n.y, type, false);
  tsr_generator_release(g);
  return n;
}

void release(Net& n) {
  for (auto* t : n.p) tsr_tensor_release(t);
  tsr_tensor_release(n.x);
  tsr_tensor_release(n.y);
}

tsr_tensor* linear(const tsr_tensor* x, const tsr_tensor* w, const tsr_tensor* b) {
  tsr_tensor *xw = nullptr, *out = nullptr;
  TSR(tsr_matmul(x, w, &xw));
  TSR(tsr_add(xw, b, &out));
  tsr_tensor_release(xw);
  return out;
}

void step(Net& n) {
  tsr_tensor* z = linear(n.x, n.p[0], n.p[1]);
  tsr_tensor* h = nullptr;
  TSR(tsr_relu(z, &h));
  tsr_tensor* logits = linear(h, n.p[2], n.p[3]);
  tsr_tensor* loss = nullptr;
  TSR(tsr_cross_entropy(logits, n.y, &loss));
  TSR(tsr_backward(loss, nullptr, false));
  const bool prev = tsr_set_grad_enabled(false);
  for (auto* p : n.p) {
    tsr_tensor* g = nullptr;
    TSR(tsr_grad(p, &g));
    TSR(tsr_add_(p, g, -0.1));
    tsr_tensor_release(g);
  }
  tsr_set_grad_enabled(prev);
  for (auto* p : n.p) TSR(tsr_zero_grad(p));
  tsr_tensor_release(loss);
  tsr_tensor_release(logits);
  tsr_tensor_release(h);
  tsr_tensor_release(z);
}

}  // namespace

void train_step_bench(int rounds) {
  std::printf("\n3. digits training step, MLP 64-128-10, batch 64 (milliseconds per step)\n");
  Net gpu = make_net(TSR_DEVICE_CUDA), cpu = make_net(TSR_DEVICE_CPU);
  for (int i = 0; i < 5; ++i) step(gpu), step(cpu);  // warm-up
  std::vector<double> gpu_ms, cpu_ms;
  for (int r = 0; r < rounds; ++r) {
    gpu_ms.push_back(tessera_gpu_ms([&] {
                       for (int i = 0; i < kStepsPerRound; ++i) step(gpu);
                     }) / kStepsPerRound);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kStepsPerRound; ++i) step(cpu);
    const auto t1 = std::chrono::steady_clock::now();
    cpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / kStepsPerRound);
  }
  const double g = median(gpu_ms);
  row("tessera on cuda:0 (GPU time, events)", g, "ms", g);
  row("tessera on the CPU (host time)", median(cpu_ms), "ms", g);
  release(cpu);
  release(gpu);
}

}  // namespace cuda_bench
