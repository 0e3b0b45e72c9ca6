// Call-cost benchmarks. The operand is a contiguous [4,4] float32 tensor with
// requires_grad false and grad mode on: the default state of both libraries,
// so both pay their autograd bookkeeping check. torch's InferenceMode row
// shows torch with that bookkeeping switched off, for context.
#include "call_bench.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "bench_util.h"

namespace bench {

namespace {

void print_table(const char* title, const std::vector<Contender>& cs, const Samples& s,
                 int batch) {
  std::printf("\n%s\n", title);
  std::printf("  %-52s %11s %11s %11s %10s %10s\n", "contender", "wall med ns", "wall min ns",
              "cpu med ns", "ratio wall", "ratio cpu");
  rule();
  for (size_t i = 0; i < cs.size(); ++i)
    std::printf("  %-52s %11.1f %11.1f %11.1f %10.2f %10.2f\n", cs[i].name.c_str(),
                median(s.wall[i]) * 1e9 / batch, minimum(s.wall[i]) * 1e9 / batch,
                median(s.cpu[i]) * 1e9 / batch, paired_ratio(s.wall[0], s.wall[i]),
                paired_ratio(s.cpu[0], s.cpu[i]));
}

// A contender that runs `body` `batch` times per sample.
template <typename Body>
Contender batched(const char* name, int batch, Body body) {
  return {name, [batch, body] {
            for (int i = 0; i < batch; ++i) body();
          },
          false};
}

}  // namespace

void bench_call_costs(int warmup, int rounds, int batch) {
  const int64_t sizes[2] = {4, 4};
  const int64_t flat[1] = {16};
  tsr_tensor* t = nullptr;
  BENCH_TSR(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &t));
  at::Tensor a = at::empty({4, 4}, at::kFloat);
  at::Tensor a_inf;
  {
    c10::InferenceMode guard;  // inference tensors keep InferenceMode's fast path
    a_inf = at::empty({4, 4}, at::kFloat);
  }

  auto run = [&](const char* title, std::vector<Contender> cs) {
    auto s = measure_interleaved(cs, warmup, rounds);
    print_table(title, cs, s, batch);
  };

  run("3a. one view op: transpose(0,1) of [4,4] float32, + release",
      {batched("tessera tsr_transpose + tsr_tensor_release", batch,
               [t] {
                 tsr_tensor* v = nullptr;
                 BENCH_TSR(tsr_transpose(t, 0, 1, &v));
                 keep(v);
                 tsr_tensor_release(v);
               }),
       batched("torch t.transpose(0,1)", batch,
               [a] {
                 at::Tensor v = a.transpose(0, 1);
                 keep(v.unsafeGetTensorImpl());
               }),
       batched("torch t.transpose(0,1) under c10::InferenceMode", batch, [a_inf] {
         c10::InferenceMode guard;
         at::Tensor v = a_inf.transpose(0, 1);
         keep(v.unsafeGetTensorImpl());
       })});

  run("3b. one view op: view([16]) of [4,4] float32, + release",
      {batched("tessera tsr_view + tsr_tensor_release", batch,
               [t, flat] {
                 tsr_tensor* v = nullptr;
                 BENCH_TSR(tsr_view(t, 1, flat, &v));
                 keep(v);
                 tsr_tensor_release(v);
               }),
       batched("torch t.view({16})", batch,
               [a] {
                 at::Tensor v = a.view({16});
                 keep(v.unsafeGetTensorImpl());
               }),
       batched("torch t.view({16}) under c10::InferenceMode", batch, [a_inf] {
         c10::InferenceMode guard;
         at::Tensor v = a_inf.view({16});
         keep(v.unsafeGetTensorImpl());
       })});

  run("3c. small factory: empty([4,4] float32), + release",
      {batched("tessera tsr_empty + tsr_tensor_release", batch,
               [sizes] {
                 tsr_tensor* e = nullptr;
                 BENCH_TSR(tsr_empty(2, sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT,
                                     TSR_DEVICE_CPU, 0, &e));
                 keep(tsr_tensor_data_ptr(e));
                 tsr_tensor_release(e);
               }),
       batched("torch at::empty({4,4})", batch,
               [] {
                 at::Tensor e = at::empty({4, 4}, at::kFloat);
                 keep(e.data_ptr());
               }),
       batched("torch at::empty({4,4}) under c10::InferenceMode", batch, [] {
         c10::InferenceMode guard;
         at::Tensor e = at::empty({4, 4}, at::kFloat);
         keep(e.data_ptr());
       })});

  // The floor under every tessera call: the C ABI crossing plus the
  // exception barrier, with no allocation.
  run("3d. context: the cheapest C API call (a query, no allocation)",
      {batched("tessera tsr_tensor_numel", batch, [t] {
        int64_t n = tsr_tensor_numel(t);
        keep(&n);
      })});

  tsr_tensor_release(t);
}

}  // namespace bench
