// See convert_bench.h. Every contender works on the same memory: tessera's
// handles wrap torch's buffers (tsr_from_blob), so page state, alignment and
// cache state are the same and only the copy differs. Destinations are
// preallocated and already faulted in, so the figures are the kernels alone.
// Each case runs on several sets of freshly allocated buffers in turn
// (kPlacements), because where the pages land moves the layout copies by
// 2-3x on the 2-core VM.
#include "convert_bench.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>
#include <fstream>
#include <string>
#include <thread>

#include "bench_util.h"
#include "split_memcpy.h"

namespace bench {

namespace {

void leave_to_torch(void*, void*) {}

tsr_dtype tsr_dtype_of(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kHalf: return TSR_FLOAT16;
    case at::kBFloat16: return TSR_BFLOAT16;
    case at::kDouble: return TSR_FLOAT64;
    default: return TSR_FLOAT32;
  }
}

// A tessera handle over a torch tensor's memory, same sizes and strides.
tsr_tensor* wrap(const at::Tensor& t) {
  tsr_tensor* out = nullptr;
  // from_blob takes the address of element [0...]; the storage offset is
  // already in data_ptr().
  BENCH_TSR(tsr_from_blob(t.data_ptr(), t.dim(), t.sizes().data(), t.strides().data(),
                          tsr_dtype_of(t), TSR_DEVICE_CPU, leave_to_torch, nullptr, &out));
  return out;
}

struct Row {
  std::string name;
  double tsr_ms, torch_ms, memcpy_ms, vs_memcpy, vs_torch;
  double vs_memcpy_lo, vs_memcpy_hi;  // the lowest and highest placement's ratio
  double split_ms = 0, vs_split = 0;  // memcpy cut over the table's threads (multi only)
};

// A case's (dst, src), freshly allocated and faulted in.
using MakeCase = std::function<std::pair<at::Tensor, at::Tensor>()>;

// Placements: the same case on this many sets of fresh pages. On the 2-core
// VM the layout copies are bimodal from one allocation to the next (the
// physical pages' places in the physically indexed L2 and L3), 1.0-1.6x or
// 2-3x memcpy, so one set of buffers is one draw: every set is allocated
// before any is used, so none reuses another's frames, and the rounds are
// spread over them.
constexpr int kPlacements = 7;

// One case: dst.copy_(src) by tessera and torch, and memcpy of `floor_bytes`
// (the case's larger tensor) between two preallocated buffers, on one thread
// and, when threads > 1, cut over the threads (SplitMemcpy); each round on
// one of the placements in turn.
Row run_case(const std::string& name, const MakeCase& make, size_t floor_bytes, int threads,
             int warmup, int rounds) {
  const bool multi = threads > 1;
  SplitMemcpy split(threads);
  struct Placement {
    at::Tensor dst, src, from, to;
    tsr_tensor *d = nullptr, *s = nullptr;
  };
  const int k_count = std::max(1, std::min(kPlacements, rounds));
  std::vector<Placement> ps(static_cast<size_t>(k_count));
  for (Placement& p : ps) {
    std::tie(p.dst, p.src) = make();
    p.d = wrap(p.dst);
    p.s = wrap(p.src);
    p.from = at::empty({int64_t(floor_bytes)}, at::kByte).fill_(1);
    p.to = at::empty({int64_t(floor_bytes)}, at::kByte).fill_(2);
  }
  // The measured copy must give torch's bytes; checked once, untimed.
  {
    Placement& p = ps[0];
    at::Tensor expected = at::empty_like(p.dst);
    expected.copy_(p.src);
    BENCH_TSR(tsr_copy_(p.d, p.s));
    if (std::memcmp(p.dst.data_ptr(), expected.data_ptr(), p.dst.nbytes()) != 0) {
      std::fprintf(stderr, "%s: tessera's result differs from torch's\n", name.c_str());
      std::abort();
    }
  }
  const size_t n_cs = multi ? 4 : 3;
  Samples all{std::vector<std::vector<double>>(n_cs), std::vector<std::vector<double>>(n_cs)};
  std::vector<double> per_placement;
  for (int k = 0; k < k_count; ++k) {
    Placement& p = ps[size_t(k)];
    std::vector<Contender> cs = {
        {"tessera", [&] { BENCH_TSR(tsr_copy_(p.d, p.s)); keep(p.dst.data_ptr()); }, multi},
        {"torch", [&] { p.dst.copy_(p.src); keep(p.dst.data_ptr()); }, multi},
        {"memcpy", [&] {
           std::memcpy(p.to.data_ptr(), p.from.data_ptr(), floor_bytes);
           keep(p.to.data_ptr());
         }},
    };
    if (multi)
      cs.push_back({"memcpy on the threads", [&] {
                      split(p.to.data_ptr(), p.from.data_ptr(), floor_bytes);
                      keep(p.to.data_ptr());
                    }, true});
    const int r = rounds / k_count + (k < rounds % k_count ? 1 : 0);
    Samples sm = measure_interleaved(cs, warmup, r);
    const auto& t = multi ? sm.wall : sm.cpu;
    per_placement.push_back(paired_ratio(t[0], t[2]));
    for (size_t c = 0; c < n_cs; ++c) {
      all.wall[size_t(c)].insert(all.wall[size_t(c)].end(), sm.wall[size_t(c)].begin(), sm.wall[size_t(c)].end());
      all.cpu[size_t(c)].insert(all.cpu[size_t(c)].end(), sm.cpu[size_t(c)].begin(), sm.cpu[size_t(c)].end());
    }
  }
  for (Placement& p : ps) {
    tsr_tensor_release(p.d);
    tsr_tensor_release(p.s);
  }
  // Multi-threaded contenders: wall time (CPU time misses the workers).
  const auto& t = multi ? all.wall : all.cpu;
  Row row{name,
          median(t[0]) * 1e3,
          median(t[1]) * 1e3,
          median(t[2]) * 1e3,
          paired_ratio(t[0], t[2]),
          paired_ratio(t[0], t[1]),
          *std::min_element(per_placement.begin(), per_placement.end()),
          *std::max_element(per_placement.begin(), per_placement.end())};
  if (multi) {
    row.split_ms = median(t[3]) * 1e3;
    row.vs_split = paired_ratio(t[0], t[3]);
  }
  return row;
}

void table(int threads, int warmup, int rounds) {
  BENCH_TSR(tsr_set_num_threads(threads));
  at::set_num_threads(threads);
  const bool multi = threads > 1;
  std::vector<Row> rows;
  const int64_t n = 16 << 20;  // 16 Mi elements: 64 MiB of float32
  const size_t big = size_t(n) * 4;
  auto zeros_like = [](const at::Tensor& t) { return at::empty_like(t).zero_(); };
  auto convert = [&](at::ScalarType from, at::ScalarType to) -> MakeCase {
    return [=] {
      at::Tensor src = at::rand({n}).to(from);
      return std::make_pair(at::empty({n}, at::TensorOptions().dtype(to)).zero_(), src);
    };
  };
  rows.push_back(run_case("f16 -> f32, 16 Mi elements (32 -> 64 MiB)", convert(at::kHalf, at::kFloat), big, threads, warmup, rounds));
  rows.push_back(run_case("f32 -> f16 (64 -> 32 MiB)", convert(at::kFloat, at::kHalf), big, threads, warmup, rounds));
  rows.push_back(run_case("f32 -> bf16 (64 -> 32 MiB)", convert(at::kFloat, at::kBFloat16), big, threads, warmup, rounds));
  rows.push_back(run_case("bf16 -> f32 (32 -> 64 MiB)", convert(at::kBFloat16, at::kFloat), big, threads, warmup, rounds));
  rows.push_back(run_case("expand [4096,1] -> [4096,4096] f32", [] {
    return std::make_pair(at::empty({4096, 4096}).zero_(), at::rand({4096, 1}).expand({4096, 4096}));
  }, big, threads, warmup, rounds));
  rows.push_back(run_case("expand [1,4096] -> [4096,4096] f32", [] {
    return std::make_pair(at::empty({4096, 4096}).zero_(), at::rand({1, 4096}).expand({4096, 4096}));
  }, big, threads, warmup, rounds));
  rows.push_back(run_case("transpose 4096^2 f32 -> contiguous", [] {
    return std::make_pair(at::empty({4096, 4096}).zero_(), at::rand({4096, 4096}).t());
  }, big, threads, warmup, rounds));
  // In the last-level cache, rows 4 KiB apart (copy.cpp streams such
  // destinations from 1 MiB: stream_tiled_destination).
  rows.push_back(run_case("transpose 1024^2 f32 -> contiguous", [] {
    return std::make_pair(at::empty({1024, 1024}).zero_(), at::rand({1024, 1024}).t());
  }, size_t(1024) * 1024 * 4, threads, warmup, rounds));
  const size_t nchw = size_t(32) * 64 * 56 * 56 * 4;
  rows.push_back(run_case("[32,64,56,56] f32 contiguous -> channels_last", [&] {
    at::Tensor x = at::rand({32, 64, 56, 56});
    return std::make_pair(zeros_like(x.contiguous(at::MemoryFormat::ChannelsLast)), x);
  }, nchw, threads, warmup, rounds));
  rows.push_back(run_case("[32,64,56,56] f32 channels_last -> contiguous", [&] {
    at::Tensor cl = at::rand({32, 64, 56, 56}).contiguous(at::MemoryFormat::ChannelsLast);
    return std::make_pair(at::empty({32, 64, 56, 56}).zero_(), cl);
  }, nchw, threads, warmup, rounds));
  rows.push_back(run_case("permute(0,2,4,1,3) of [16,32,32,32,32] f32", [] {
    at::Tensor p = at::rand({16, 32, 32, 32, 32}).permute({0, 2, 4, 1, 3});
    return std::make_pair(at::empty(p.sizes()).zero_(), p);
  }, big, threads, warmup, rounds));
  rows.push_back(run_case("x[:, ::2] of [4096,8192] f32 -> contiguous", [] {
    at::Tensor s = at::rand({4096, 8192}).slice(1, 0, 8192, 2);
    return std::make_pair(at::empty(s.sizes()).zero_(), s);
  }, big, threads, warmup, rounds));
  std::printf("\nCopies into preallocated destinations, tessera and torch on %d thread(s); %s over %d "
              "placements (fresh pages)\n",
              threads, multi ? "wall-clock medians" : "CPU-time medians (this thread)",
              std::max(1, std::min(kPlacements, rounds)));
  std::printf("  %-48s %9s %9s %9s %11s %13s %11s", "case", "tessera", "torch", "memcpy",
              "tsr/memcpy", "(placements)", "tsr/torch");
  if (multi) std::printf(" %10s %11s", "memcpy xN", "tsr/mcpy xN");
  std::printf("\n  %-48s %9s %9s %9s %11s %13s %11s", "", "ms", "ms", "ms", "", "lo - hi", "");
  if (multi) std::printf(" %10s %11s", "ms", "");
  std::printf("\n");
  rule();
  for (const Row& r : rows) {
    std::printf("  %-48s %9.2f %9.2f %9.2f %11.2f %6.2f - %4.2f %11.2f", r.name.c_str(), r.tsr_ms,
                r.torch_ms, r.memcpy_ms, r.vs_memcpy, r.vs_memcpy_lo, r.vs_memcpy_hi, r.vs_torch);
    if (multi) std::printf(" %10.2f %11.2f", r.split_ms, r.vs_split);
    std::printf("\n");
  }
  if (multi)
    std::printf("  memcpy xN: the same memcpy cut into %d slices, one per thread (its helpers sleep\n"
                "  between calls, so it includes their wake-up).\n", threads);
}

}  // namespace

void bench_conversions(int warmup, int rounds) {
  const int cores = int(std::thread::hardware_concurrency());
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf(
      "\nConversions and layout copies (issue 12): CPU %s, %d hardware threads.\n"
      "OPENBLAS_CORETYPE=%s (left as the machine set it; no case here calls BLAS).\n"
      "memcpy copies the case's larger tensor (64 MiB, or 24.5 MiB for channels_last)\n"
      "between two preallocated buffers on one thread. Ratios: median over rounds of\n"
      "tessera's time / the other's in the same round (> 1: tessera slower); the rounds\n"
      "are spread over freshly allocated buffers (placements), and lo - hi gives the\n"
      "lowest and highest placement's own median tsr/memcpy.\n",
      cpu_model().c_str(), cores, coretype ? coretype : "(unset)");
  const int64_t before = tsr_get_num_threads();
  const int torch_before = at::get_num_threads();
  table(1, warmup, rounds);
  if (cores > 1) table(cores, warmup, rounds);
  BENCH_TSR(tsr_set_num_threads(before));
  at::set_num_threads(torch_before);
}

}  // namespace bench
