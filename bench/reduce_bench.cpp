// Every contender reads the same memory: tessera wraps torch's buffer with
// tsr_from_blob. tessera's result is checked against torch's once, before
// timing (sums within float32 tolerance, max values and indices exactly).
#include "reduce_bench.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <cstring>
#include <string>

#include "bench_util.h"

namespace bench {

namespace {

void leave_to_torch(void*, void*) {}

tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(), TSR_FLOAT32,
                          TSR_DEVICE_CPU, leave_to_torch, nullptr, &out));
  return out;
}

// The floor: sum of the whole buffer, in memory order, with 32 float lanes
// of independent accumulators (GCC vector extensions, so it vectorizes
// without -ffast-math): the cost of reading the bytes once.
// target_clones: 256-bit loads where the CPU has AVX2, as tessera's and
// torch's kernels use (x86-64's baseline would split them in two).
typedef float v8f __attribute__((vector_size(32)));
#if defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
float floor_sum(const float* p, int64_t n) {
  v8f a0{}, a1{}, a2{}, a3{};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    v8f x0, x1, x2, x3;
    std::memcpy(&x0, p + i, 32);
    std::memcpy(&x1, p + i + 8, 32);
    std::memcpy(&x2, p + i + 16, 32);
    std::memcpy(&x3, p + i + 24, 32);
    a0 += x0;
    a1 += x1;
    a2 += x2;
    a3 += x3;
  }
  v8f a = (a0 + a1) + (a2 + a3);
  float s = 0;
  for (int k = 0; k < 8; ++k) s += a[k];
  for (; i < n; ++i) s += p[i];
  return s;
}

enum class Op { Sum, Mean, Max, Softmax, LogSoftmax };
const char* op_name(Op op) {
  switch (op) {
    case Op::Sum: return "sum";
    case Op::Mean: return "mean";
    case Op::Max: return "max";
    case Op::Softmax: return "softmax";
    case Op::LogSoftmax: return "log_softmax";
  }
  return "?";
}

// The ops that give one tensor: sum, mean, softmax, log_softmax.
tsr_status tsr_op(Op op, tsr_tensor* x, int64_t dim, tsr_tensor** out) {
  const int64_t dims[] = {dim};
  switch (op) {
    case Op::Sum: return tsr_sum(x, 1, dims, false, out);
    case Op::Mean: return tsr_mean(x, 1, dims, false, out);
    case Op::Softmax: return tsr_softmax(x, dim, out);
    default: return tsr_log_softmax(x, dim, out);
  }
}
at::Tensor torch_op(Op op, const at::Tensor& x, int64_t dim) {
  switch (op) {
    case Op::Sum: return x.sum(dim);
    case Op::Mean: return x.mean(dim);
    case Op::Softmax: return x.softmax(dim);
    default: return x.log_softmax(dim);
  }
}

// tessera's result (values) against torch's, once, before timing.
void check(tsr_tensor* got, const at::Tensor& want, const char* what, bool exact) {
  at::Tensor w = want.contiguous();
  std::vector<float> g(size_t(w.numel()));
  BENCH_TSR(tsr_copy_to_buffer(got, g.data(), g.size() * sizeof(float), nullptr));
  const float* p = w.data_ptr<float>();
  for (size_t i = 0; i < g.size(); ++i) {
    const bool ok = exact ? std::memcmp(&g[i], &p[i], sizeof(float)) == 0
                          : std::fabs(g[i] - p[i]) <= 1e-3f + 1e-4f * std::fabs(p[i]);
    if (!ok) {
      std::fprintf(stderr, "%s: tessera [%zu] = %.9g, torch %.9g\n", what, i, g[i], p[i]);
      std::abort();
    }
  }
}

void check_indices(tsr_tensor* got, const at::Tensor& want, const char* what) {
  at::Tensor w = want.contiguous();
  std::vector<int64_t> g(size_t(w.numel()));
  BENCH_TSR(tsr_copy_to_buffer(got, g.data(), g.size() * sizeof(int64_t), nullptr));
  if (std::memcmp(g.data(), w.data_ptr<int64_t>(), g.size() * sizeof(int64_t)) != 0) {
    std::fprintf(stderr, "%s: tessera's indices differ from torch's\n", what);
    std::abort();
  }
}

struct Row {
  std::string name;
  double tsr_cpu, torch_cpu, floor_cpu, tsr_wall, torch_wall, floor_wall, r_torch_cpu, r_floor_cpu,
      r_torch_wall, r_floor_wall;
};

Row run_case(const std::string& name, const at::Tensor& x, tsr_tensor* xt, Op op, int64_t dim, int warmup,
             int rounds) {
  if (!wanted(name)) return {};
  // Once, untimed: the same answer as torch's.
  if (op == Op::Max) {
    tsr_tensor *v, *i;
    BENCH_TSR(tsr_max_dim(xt, dim, false, &v, &i));
    auto [tv, ti] = at::max(x, dim);
    check(v, tv, name.c_str(), true);
    check_indices(i, ti, name.c_str());
    tsr_tensor_release(v);
    tsr_tensor_release(i);
  } else {
    tsr_tensor* r;
    BENCH_TSR(tsr_op(op, xt, dim, &r));
    check(r, torch_op(op, x, dim), name.c_str(), false);
    tsr_tensor_release(r);
  }
  at::Tensor base = x.is_contiguous() ? x : x.permute({0, 2, 3, 1});  // the buffer in memory order
  const float* buf = base.data_ptr<float>();
  const int64_t n = x.numel();
  std::vector<Contender> cs = {
      {"tessera",
       [&] {
         if (op == Op::Max) {
           tsr_tensor *v, *i;
           BENCH_TSR(tsr_max_dim(xt, dim, false, &v, &i));
           keep(v);
           tsr_tensor_release(v);
           tsr_tensor_release(i);
         } else {
           tsr_tensor* r;
           BENCH_TSR(tsr_op(op, xt, dim, &r));
           keep(r);
           tsr_tensor_release(r);
         }
       }},
      {"torch",
       [&] {
         if (op == Op::Max) {
           auto r = at::max(x, dim);
           keep(std::get<0>(r).data_ptr());
         } else {
           at::Tensor r = torch_op(op, x, dim);
           keep(r.data_ptr());
         }
       }},
      {"floor",
       [&] {
         volatile float s = floor_sum(buf, n);
         (void)s;
       }},
  };
  Samples s = measure_interleaved(cs, warmup, rounds);
  return {name,
          median(s.cpu[0]),
          median(s.cpu[1]),
          median(s.cpu[2]),
          median(s.wall[0]),
          median(s.wall[1]),
          median(s.wall[2]),
          paired_ratio(s.cpu[0], s.cpu[1]),
          paired_ratio(s.cpu[0], s.cpu[2]),
          paired_ratio(s.wall[0], s.wall[1]),
          paired_ratio(s.wall[0], s.wall[2])};
}

void print_rows(const std::vector<Row>& rows, bool cpu) {
  std::printf("  %-36s %9s %9s %9s %9s %9s   %9s %9s %9s %9s %9s\n", "case", "tessera", "torch", "floor",
              "tsr/torch", "tsr/floor", "tessera", "torch", "floor", "tsr/torch", "tsr/floor");
  std::printf("  %-36s %9s %9s %9s %9s %9s   %9s %9s %9s %9s %9s\n", "", "cpu ms", "cpu ms", "cpu ms",
              "cpu", "cpu", "wall ms", "wall ms", "wall ms", "wall", "wall");
  rule();
  for (const Row& r : rows) {
    if (r.name.empty()) continue;  // left out by TSR_BENCH_ONLY
    if (cpu)
      std::printf("  %-36s %9.2f %9.2f %9.2f %9.2f %9.2f", r.name.c_str(), r.tsr_cpu * 1e3, r.torch_cpu * 1e3,
                  r.floor_cpu * 1e3, r.r_torch_cpu, r.r_floor_cpu);
    else
      std::printf("  %-36s %9s %9s %9s %9s %9s", r.name.c_str(), "-", "-", "-", "-", "-");
    std::printf("   %9.2f %9.2f %9.2f %9.2f %9.2f\n", r.tsr_wall * 1e3, r.torch_wall * 1e3, r.floor_wall * 1e3,
                r.r_torch_wall, r.r_floor_wall);
  }
}

}  // namespace

void bench_reductions(int warmup, int rounds, int threads) {
  const int64_t before = tsr_get_num_threads();
  BENCH_TSR(tsr_set_num_threads(threads));
  const int torch_before = at::get_num_threads();
  at::set_num_threads(threads);
  std::printf(
      "\nReductions, float32, tessera and torch on %d thread(s); floor = vectorized sum of the same\n"
      "bytes on one thread. ratio = median over rounds of tessera's time / this one's%s.\n",
      threads, threads > 1 ? " (wall only: CPU time misses other threads)" : "");
  at::manual_seed(0);
  std::vector<Row> rows;
  const Op ops[] = {Op::Sum, Op::Mean, Op::Max};
  {
    at::Tensor x = at::randn({4096, 4096});
    tsr_tensor* xt = wrap(x);
    for (Op op : ops)
      for (int64_t d = 0; d < 2; ++d)
        rows.push_back(run_case(std::string("[4096,4096] ") + op_name(op) + " dim " + std::to_string(d), x, xt,
                                op, d, warmup, rounds));
    // Softmax over rows (the last dim): exp-bound, so the read floor is far.
    for (Op op : {Op::Softmax, Op::LogSoftmax})
      rows.push_back(run_case(std::string("[4096,4096] ") + op_name(op) + " dim 1", x, xt, op, 1, warmup, rounds));
    tsr_tensor_release(xt);
  }
  for (bool cl : {false, true}) {
    at::Tensor x = at::randn({32, 64, 56, 56});
    if (cl) x = x.contiguous(at::MemoryFormat::ChannelsLast);
    tsr_tensor* xt = wrap(x);
    for (Op op : ops)
      for (int64_t d = 0; d < 4; ++d)
        rows.push_back(run_case(std::string("[32,64,56,56]") + (cl ? " CL " : " ") + op_name(op) + " dim " +
                                    std::to_string(d),
                                x, xt, op, d, warmup, rounds));
    tsr_tensor_release(xt);
  }
  {
    at::Tensor x = at::randn({32, 64, 56, 56});
    tsr_tensor* xt = wrap(x);
    for (Op op : {Op::Softmax, Op::LogSoftmax})
      rows.push_back(run_case(std::string("[32,64,56,56] ") + op_name(op) + " dim 3", x, xt, op, 3, warmup, rounds));
    tsr_tensor_release(xt);
  }
  print_rows(rows, threads == 1);
  at::set_num_threads(torch_before);
  BENCH_TSR(tsr_set_num_threads(before));
}

}  // namespace bench
