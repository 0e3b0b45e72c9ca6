// tsr_mlp_step_bench (issue 12, item 7): one training step of two MLPs,
// tessera through its C API against libtorch 1.13 C++ in one process:
//
//   small: 64-128-10, batch 32          (linear, relu, linear)
//   large: 784-1024-1024-10, batch 128  (linear, relu, linear, relu, linear)
//
// each followed by cross entropy, backward and an AdamW step (lr 1e-3,
// weight decay 1e-2), zero_grad first (tessera with set_to_none;
// libtorch 1.13 C++'s zero_grad() zeroes in place). Both sides start
// from the same weights and data (tessera's are copies of torch's), run on
// one thread (tsr_set_num_threads(1), at::set_num_threads(1)) and multiply
// through the same OpenBLAS (Debian's; both link it). OPENBLAS_CORETYPE is
// printed and left as the machine sets it. The losses of the first steps
// are compared before timing. A sample is a batch of steps (so that it
// lasts milliseconds); rounds interleave the two contenders.
//
//   tsr_mlp_step_bench [rounds]     default 30
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

struct Net {
  std::vector<int64_t> widths;  // in, hidden..., out
  int64_t batch;
  int steps_per_sample;
};

// torch's side: parameters (w, b per layer) and the AdamW optimizer.
struct TorchMlp {
  std::vector<torch::Tensor> params;
  std::unique_ptr<torch::optim::AdamW> opt;
  torch::Tensor x, y;

  double step() {
    opt->zero_grad();
    torch::Tensor h = x;
    const size_t layers = params.size() / 2;
    for (size_t l = 0; l < layers; ++l) {
      h = torch::linear(h, params[2 * l], params[2 * l + 1]);
      if (l + 1 < layers) h = torch::relu(h);
    }
    torch::Tensor loss = torch::cross_entropy_loss(h, y);
    loss.backward();
    opt->step();
    return loss.item<double>();
  }
};

struct TsrMlp {
  std::vector<tsr_tensor*> params;
  tsr_optimizer* opt = nullptr;
  tsr_tensor *x = nullptr, *y = nullptr;

  double step() {
    BENCH_TSR(tsr_optimizer_zero_grad(opt, true));
    tsr_tensor* h = x;
    std::vector<tsr_tensor*> made;
    const size_t layers = params.size() / 2;
    for (size_t l = 0; l < layers; ++l) {
      tsr_tensor* z = nullptr;
      BENCH_TSR(tsr_linear(h, params[2 * l], params[2 * l + 1], &z));
      made.push_back(z);
      h = z;
      if (l + 1 < layers) {
        tsr_tensor* r = nullptr;
        BENCH_TSR(tsr_relu(h, &r));
        made.push_back(r);
        h = r;
      }
    }
    tsr_tensor* loss = nullptr;
    BENCH_TSR(tsr_cross_entropy(h, y, &loss));
    BENCH_TSR(tsr_backward(loss, nullptr, false));
    BENCH_TSR(tsr_optimizer_step(opt));
    double v = 0;
    BENCH_TSR(tsr_item_double(loss, &v));
    tsr_tensor_release(loss);
    for (tsr_tensor* t : made) tsr_tensor_release(t);
    return v;
  }
  ~TsrMlp() {
    if (opt) tsr_optimizer_release(opt);
    for (tsr_tensor* t : params) tsr_tensor_release(t);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
  }
};

// A tessera tensor holding a copy of t's values (contiguous).
tsr_tensor* copy_of(const torch::Tensor& t0, tsr_dtype d) {
  torch::Tensor t = t0.contiguous();
  tsr_tensor* out = nullptr;
  BENCH_TSR(tsr_from_data(t.data_ptr(), size_t(t.nbytes()), t.dim(), t.sizes().data(), d, &out));
  return out;
}

void run(const Net& net, int rounds) {
  torch::manual_seed(0);
  TorchMlp tm;
  TsrMlp sm;
  for (size_t l = 0; l + 1 < net.widths.size(); ++l) {
    const int64_t in = net.widths[l], out = net.widths[l + 1];
    const double bound = 1.0 / std::sqrt(double(in));  // nn.Linear's init range
    torch::Tensor w = torch::empty({out, in}).uniform_(-bound, bound);
    torch::Tensor b = torch::empty({out}).uniform_(-bound, bound);
    for (const torch::Tensor& p : {w, b}) {
      tsr_tensor* q = copy_of(p, TSR_FLOAT32);
      BENCH_TSR(tsr_set_requires_grad(q, true));
      sm.params.push_back(q);
    }
    tm.params.push_back(w.requires_grad_());
    tm.params.push_back(b.requires_grad_());
  }
  tm.x = torch::randn({net.batch, net.widths.front()});
  tm.y = torch::randint(0, net.widths.back(), {net.batch}, torch::kLong);
  sm.x = copy_of(tm.x, TSR_FLOAT32);
  sm.y = copy_of(tm.y, TSR_INT64);
  tm.opt = std::make_unique<torch::optim::AdamW>(
      tm.params, torch::optim::AdamWOptions(1e-3).weight_decay(1e-2));
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  o.weight_decay = 1e-2;
  BENCH_TSR(tsr_optimizer_adamw(sm.params.data(), sm.params.size(), &o, &sm.opt));

  // The same trajectory: three steps' losses agree (float32, two BLAS call
  // orders: within 1e-4 relative).
  for (int s = 0; s < 3; ++s) {
    const double lt = tm.step(), ls = sm.step();
    if (!(std::fabs(lt - ls) <= 1e-4 * std::fabs(lt) + 1e-6)) {
      std::fprintf(stderr, "step %d: tessera's loss %.8g differs from torch's %.8g\n", s, ls, lt);
      std::abort();
    }
  }
  const int k = net.steps_per_sample;
  std::vector<bench::Contender> cs = {
      {"tessera", [&] { for (int i = 0; i < k; ++i) sm.step(); }},
      {"torch", [&] { for (int i = 0; i < k; ++i) tm.step(); }},
  };
  bench::Samples smp = bench::measure_interleaved(cs, 2, rounds);
  std::string name;
  for (size_t l = 0; l < net.widths.size(); ++l) name += (l ? "-" : "") + std::to_string(net.widths[l]);
  name += " batch " + std::to_string(net.batch);
  const double ms_t = bench::median(smp.cpu[0]) * 1e3 / k, ms_p = bench::median(smp.cpu[1]) * 1e3 / k;
  std::printf("  %-32s %12.3f %12.3f %12.2f\n", name.c_str(), ms_t, ms_p, bench::paired_ratio(smp.cpu[0], smp.cpu[1]));
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 30;
  BENCH_TSR(tsr_set_num_threads(1));
  at::set_num_threads(1);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("MLP training step (issue 12, item 7): CPU %s\n", bench::cpu_model().c_str());
  std::printf("OPENBLAS_CORETYPE=%s (left as the machine sets it; both sides call the same OpenBLAS)\n",
              coretype ? coretype : "(unset)");
  std::printf("one thread each; linear/relu/.../cross entropy, backward, AdamW step; %d interleaved rounds,\n"
              "CPU ms per step (median), ratio = median over rounds of tessera / torch\n\n", rounds);
  std::printf("  %-32s %12s %12s %12s\n", "net", "tessera ms", "torch ms", "tsr/torch");
  bench::rule();
  run({{64, 128, 10}, 32, 50}, rounds);
  run({{784, 1024, 1024, 10}, 128, 1}, rounds);
  return 0;
}
