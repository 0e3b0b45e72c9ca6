// Every contender reads the same memory: tessera wraps torch's buffers
// with tsr_from_blob. tessera's result is checked against torch's once,
// before timing. The floor is a memcpy of the input's bytes (the issue's
// "<= 2x a memcpy" reference).
#include "index_bench.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

namespace bench {

namespace {

void leave_to_torch(void*, void*) {}

tsr_dtype dtype_of(const at::Tensor& t) {
  if (t.scalar_type() == at::kBool) return TSR_BOOL;
  if (t.scalar_type() == at::kLong) return TSR_INT64;
  return TSR_FLOAT32;
}

tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(), dtype_of(t), TSR_DEVICE_CPU,
                          leave_to_torch, nullptr, &out));
  return out;
}

// tessera's result equals torch's (same bytes).
void check_same(tsr_tensor* mine, const at::Tensor& ref, const char* what) {
  tsr_tensor* c = nullptr;
  BENCH_TSR(tsr_contiguous(mine, TSR_CONTIGUOUS_FORMAT, &c));
  const at::Tensor r = ref.contiguous();
  if (tsr_tensor_numel(c) != r.numel() ||
      std::memcmp(tsr_tensor_data_ptr(c), r.data_ptr(), size_t(r.numel()) * r.element_size()) != 0)
    std::fprintf(stderr, "%s: tessera's result differs from torch's\n", what);
  tsr_tensor_release(c);
}

struct Row {
  std::string name;
  double tsr, torch, floor;  // wall medians, seconds
  double vs_torch, vs_floor;  // paired ratios
};

Row run(const std::string& name, const std::function<void()>& mine, const std::function<void()>& theirs,
        size_t floor_bytes, int warmup, int rounds) {
  std::vector<char> a(floor_bytes), b(floor_bytes);
  std::memset(a.data(), 1, floor_bytes);
  std::vector<Contender> cs = {{"tessera", mine, true},
                               {"torch", theirs, true},
                               {"memcpy", [&] {
                                  std::memcpy(b.data(), a.data(), floor_bytes);
                                  keep(b.data());
                                }}};
  Samples s = measure_interleaved(cs, warmup, rounds);
  return {name, median(s.wall[0]), median(s.wall[1]), median(s.wall[2]), paired_ratio(s.wall[0], s.wall[1]),
          paired_ratio(s.wall[0], s.wall[2])};
}

}  // namespace

void bench_indexing(int warmup, int rounds, int threads) {
  const int64_t before = tsr_get_num_threads();
  BENCH_TSR(tsr_set_num_threads(threads));
  const int torch_before = at::get_num_threads();
  at::set_num_threads(threads);
  std::printf(
      "\nIndexing, 16M float32 (64 MiB), tessera and torch on %d thread(s); memcpy = one copy of the\n"
      "input's bytes on one thread. Wall-clock medians; ratios are medians of per-round ratios.\n",
      threads);
  at::manual_seed(0);
  constexpr int64_t n = int64_t(1) << 24;
  std::vector<Row> rows;
  at::Tensor x = at::randn({n});
  at::Tensor mask = at::rand({n}) < 0.5;
  tsr_tensor *xt = wrap(x), *mt = wrap(mask);
  if (wanted("masked_select")) {
    tsr_tensor* r = nullptr;
    BENCH_TSR(tsr_masked_select(xt, mt, &r));
    check_same(r, at::masked_select(x, mask), "masked_select");
    tsr_tensor_release(r);
    rows.push_back(run(
        "x[mask] (masked_select, 50% true)",
        [&] {
          tsr_tensor* o = nullptr;
          BENCH_TSR(tsr_masked_select(xt, mt, &o));
          tsr_tensor_release(o);
        },
        [&] { keep(at::masked_select(x, mask).data_ptr()); }, size_t(n) * 4, warmup, rounds));
  }
  if (wanted("index_put_ mask")) {
    at::Tensor y = x.clone();
    tsr_tensor* yt = wrap(y);
    tsr_tensor* zero = nullptr;
    BENCH_TSR(tsr_full(0, nullptr, 0.0, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &zero));
    const at::Tensor zt = at::zeros({});
    const tsr_tensor* by_mask[] = {mt};
    rows.push_back(run(
        "x[mask] = 0 (index_put_ by mask)",
        [&] { BENCH_TSR(tsr_index_put_(yt, 1, by_mask, zero, false)); },
        [&] { y.index_put_({mask}, zt); }, size_t(n) * 4, warmup, rounds));
    tsr_tensor_release(zero);
    tsr_tensor_release(yt);
  }
  if (wanted("index_put_ perm")) {
    at::Tensor perm = at::randperm(n);
    at::Tensor y = at::zeros({n});
    tsr_tensor *yt = wrap(y), *pt = wrap(perm);
    const tsr_tensor* by_perm[] = {pt};
    BENCH_TSR(tsr_index_put_(yt, 1, by_perm, xt, false));
    check_same(yt, at::zeros({n}).index_put_({perm}, x), "index_put_ perm");
    rows.push_back(run(
        "x[perm] = v (index_put_, 16M int64 index)",
        [&] { BENCH_TSR(tsr_index_put_(yt, 1, by_perm, xt, false)); },
        [&] { y.index_put_({perm}, x); }, size_t(n) * 4, warmup, rounds));
    tsr_tensor_release(pt);
    tsr_tensor_release(yt);
  }
  if (wanted("scatter_add")) {
    constexpr int64_t bins = int64_t(1) << 20;
    at::Tensor idx = at::randint(0, bins, {n});
    at::Tensor ones = at::ones({n});
    at::Tensor hist = at::zeros({bins});
    tsr_tensor *it = wrap(idx), *ot = wrap(ones), *ht = wrap(hist);
    tsr_tensor* r = nullptr;
    BENCH_TSR(tsr_scatter_add(ht, 0, it, ot, &r));
    check_same(r, at::zeros({bins}).scatter_add_(0, idx, ones), "scatter_add");
    tsr_tensor_release(r);
    rows.push_back(run(
        "scatter_add_ of 16M ones into 1M bins",
        [&] { BENCH_TSR(tsr_scatter_add_(ht, 0, it, ot)); }, [&] { hist.scatter_add_(0, idx, ones); },
        size_t(n) * 4, warmup, rounds));
    tsr_tensor_release(it);
    tsr_tensor_release(ot);
    tsr_tensor_release(ht);
  }
  if (wanted("sort")) {
    tsr_tensor *v = nullptr, *i = nullptr;
    BENCH_TSR(tsr_sort(xt, 0, false, true, &v, &i));
    check_same(v, std::get<0>(x.sort(true, 0, false)), "sort");
    tsr_tensor_release(v);
    tsr_tensor_release(i);
    rows.push_back(run(
        "sort of 16M float32 (values, indices)",
        [&] {
          tsr_tensor *a = nullptr, *b = nullptr;
          BENCH_TSR(tsr_sort(xt, 0, false, false, &a, &b));
          tsr_tensor_release(a);
          tsr_tensor_release(b);
        },
        [&] { keep(std::get<0>(x.sort()).data_ptr()); }, size_t(n) * 4, warmup, std::max(3, rounds / 3)));
  }
  if (wanted("topk")) {
    tsr_tensor *v = nullptr, *i = nullptr;
    BENCH_TSR(tsr_topk(xt, 1000, 0, true, &v, &i));
    check_same(v, std::get<0>(x.topk(1000)), "topk");
    tsr_tensor_release(v);
    tsr_tensor_release(i);
    rows.push_back(run(
        "topk(1000) of 16M float32",
        [&] {
          tsr_tensor *a = nullptr, *b = nullptr;
          BENCH_TSR(tsr_topk(xt, 1000, 0, true, &a, &b));
          tsr_tensor_release(a);
          tsr_tensor_release(b);
        },
        [&] { keep(std::get<0>(x.topk(1000)).data_ptr()); }, size_t(n) * 4, warmup, rounds));
  }
  std::printf("  %-44s %10s %10s %10s %12s %12s\n", "case", "tessera ms", "torch ms", "memcpy ms", "vs torch",
              "vs memcpy");
  rule();
  for (const Row& r : rows)
    std::printf("  %-44s %10.2f %10.2f %10.2f %11.2fx %11.2fx\n", r.name.c_str(), r.tsr * 1e3, r.torch * 1e3,
                r.floor * 1e3, r.vs_torch, r.vs_floor);
  tsr_tensor_release(xt);
  tsr_tensor_release(mt);
  at::set_num_threads(torch_before);
  BENCH_TSR(tsr_set_num_threads(before));
}

}  // namespace bench
