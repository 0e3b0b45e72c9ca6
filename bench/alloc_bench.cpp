// Part 5: random-size alloc+free with N live blocks. Every contender keeps
// N blocks live and, for each pair, frees the block at a random index and
// allocates one of a random size in its place; all walk the same seeded
// sequence (AllocWorkload). The memory is never touched: the figures are
// the allocators' bookkeeping (and, for glibc, the system calls it makes),
// not page faults.
#include "alloc_bench.h"

#include <ATen/ATen.h>
#include <malloc.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "alloc/caching_allocator.h"
#include "bench_util.h"
#include "core/device_allocator.h"

namespace bench {

AllocWorkload make_alloc_workload(size_t live, size_t min_size, size_t max_size, int per_round,
                                  int samples, uint64_t seed) {
  AllocWorkload w{bytes_label(min_size) + "-" + bytes_label(max_size), live, min_size, max_size,
                  per_round, {}, {}};
  std::mt19937_64 rng(seed);
  const double lo = std::log(double(min_size)), hi = std::log(double(max_size));
  auto size = [&] {
    double u = double(rng() >> 11) * 0x1.0p-53;  // [0, 1)
    double s = std::floor(std::exp(lo + u * (hi - lo)));
    return uint32_t(std::clamp(s, double(min_size), double(max_size)));
  };
  w.fill.resize(live);
  for (auto& s : w.fill) s = size();
  w.ops.resize(size_t(samples) * size_t(per_round));
  for (auto& op : w.ops) {
    uint64_t x = rng();
    op.victim = uint32_t(((x >> 32) * uint64_t(live)) >> 32);
    op.coin = uint32_t(x);
    op.size = size();
  }
  return w;
}

std::string bytes_label(size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " B";
}

namespace {

double mib(int64_t b) { return double(b) / double(1 << 20); }

// The contenders' live sets. fill() makes the N blocks and rewinds to the
// start of the workload's replacements; round() does the next per_round of
// them; clear() frees everything and lets the allocator give its memory back
// (untimed), so the next contender starts from an empty heap or cache.
struct TsrApiState {
  const AllocWorkload* w;
  size_t cursor = 0;
  std::vector<tsr_tensor*> live;
  static tsr_tensor* make(uint32_t n) {
    const int64_t size = n;
    tsr_tensor* t = nullptr;
    BENCH_TSR(tsr_empty(1, &size, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CPU, 0, &t));
    return t;
  }
  void fill() {
    cursor = 0;
    for (uint32_t n : w->fill) live.push_back(make(n));
  }
  void round() {
    for (int k = 0; k < w->per_round; ++k) {
      const AllocOp& op = w->ops[cursor++];
      tsr_tensor_release(live[op.victim]);
      live[op.victim] = make(op.size);
    }
  }
  void clear() {
    for (tsr_tensor* t : live) tsr_tensor_release(t);
    live.clear();
    BENCH_TSR(tsr_empty_cache(TSR_DEVICE_CPU, 0));
    malloc_trim(0);  // the tensor handles
  }
};

struct InternalState {
  const AllocWorkload* w;
  tsr::alloc::CachingAllocator* alloc;
  size_t cursor = 0;
  std::vector<void*> live;
  void fill() {
    cursor = 0;
    for (uint32_t n : w->fill) live.push_back(alloc->allocate(n));
  }
  void round() {
    for (int k = 0; k < w->per_round; ++k) {
      const AllocOp& op = w->ops[cursor++];
      alloc->free(live[op.victim]);
      live[op.victim] = alloc->allocate(op.size);
      keep(live[op.victim]);
    }
  }
  void clear() {
    for (void* p : live) alloc->free(p);
    live.clear();
    alloc->empty_cache();
    malloc_trim(0);  // the allocator's block records
  }
};

struct MallocState {
  const AllocWorkload* w;
  size_t cursor = 0;
  std::vector<void*> live;
  void fill() {
    cursor = 0;
    for (uint32_t n : w->fill) live.push_back(std::malloc(n));
  }
  void round() {
    for (int k = 0; k < w->per_round; ++k) {
      const AllocOp& op = w->ops[cursor++];
      std::free(live[op.victim]);
      live[op.victim] = std::malloc(op.size);
      keep(live[op.victim]);
    }
  }
  void clear() {
    for (void* p : live) std::free(p);
    live.clear();
    malloc_trim(0);
  }
};

struct TorchState {
  const AllocWorkload* w;
  size_t cursor = 0;
  std::vector<at::Tensor> live;
  void fill() {
    cursor = 0;
    for (uint32_t n : w->fill) live.push_back(at::empty({int64_t(n)}, at::kByte));
  }
  void round() {
    for (int k = 0; k < w->per_round; ++k) {
      const AllocOp& op = w->ops[cursor++];
      live[op.victim].reset();  // free first, as the others do
      live[op.victim] = at::empty({int64_t(op.size)}, at::kByte);
      keep(live[op.victim].unsafeGetTensorImpl());
    }
  }
  void clear() {
    live.clear();
    malloc_trim(0);
  }
};

struct AllocContender {
  std::string name;
  std::function<void()> fill, round, clear;
  std::function<void()> after_timed;  // may be empty
};

// `passes` times, each contender in turn (the first one rotating): fill,
// `warmup` untimed rounds, `rounds` timed rounds, clear. Only one contender
// has live blocks at a time (glibc's heap is shared by malloc, torch and
// tessera's bookkeeping; interleaving the rounds would let each contender's
// blocks shape the others' heap). samples[i][pass * rounds + r].
Samples measure_passes(const std::vector<AllocContender>& cs, int warmup, int rounds,
                       int passes) {
  const size_t n = cs.size();
  const size_t total = size_t(rounds) * size_t(passes);
  Samples s{std::vector<std::vector<double>>(n, std::vector<double>(total)),
            std::vector<std::vector<double>>(n, std::vector<double>(total))};
  for (int p = 0; p < passes; ++p)
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (size_t(p) + k) % n;
      cs[i].fill();
      for (int w = 0; w < warmup; ++w) cs[i].round();
      for (int r = 0; r < rounds; ++r) {
        double c0 = thread_cpu_s(), t0 = now_s();
        cs[i].round();
        double t1 = now_s(), c1 = thread_cpu_s();
        s.wall[i][size_t(p) * size_t(rounds) + size_t(r)] = t1 - t0;
        s.cpu[i][size_t(p) * size_t(rounds) + size_t(r)] = c1 - c0;
      }
      if (cs[i].after_timed) cs[i].after_timed();
      cs[i].clear();
    }
  return s;
}

struct ConfigResult {
  std::string label;
  double cpu_ns[4];
};

ConfigResult run_config(const AllocBenchSettings& s, size_t live, size_t max_size,
                        const char* tag) {
  const int per_round = live >= 100000 ? s.per_round_100k : s.per_round;
  const AllocWorkload w =
      make_alloc_workload(live, 512, max_size, per_round, s.warmup + s.rounds_per_pass);
  tsr::alloc::CachingAllocator& global = tsr::alloc::caching_allocator(tsr::kCpu);
  // The internal contender gets its own instance of the class over the same
  // CPU backend, so its figures are of the class alone, with no tensor ever
  // made through it.
  auto internal_alloc =
      std::make_unique<tsr::alloc::CachingAllocator>(*tsr::find_backend(TSR_DEVICE_CPU), 0);

  TsrApiState api{&w, 0, {}};
  InternalState internal{&w, internal_alloc.get(), 0, {}};
  MallocState mal{&w, 0, {}};
  TorchState torch{&w, 0, {}};
  // Segments obtained during the timed rounds of a pass, and what the
  // allocator holds at their end (last pass).
  // (at_timed: num_device_alloc when the first timed round starts.)
  struct Held {
    int64_t new_segments = 0, reserved = 0, allocated = 0, at_timed = 0;
  } api_held, internal_held;
  auto snap = [](tsr::alloc::CachingAllocator& a, Held& h) {
    const auto st = a.stats().all;
    h.new_segments = st.num_device_alloc - h.at_timed;
    h.reserved = st.reserved_bytes.current;
    h.allocated = st.allocated_bytes.current;
  };

  std::vector<AllocContender> cs = {
      {"tessera tsr_empty(uint8 [n]) + tsr_tensor_release", [&] { api.fill(); },
       [&] {
         if (api.cursor == size_t(s.warmup) * size_t(per_round))
           api_held.at_timed = global.stats().all.num_device_alloc;
         api.round();
       },
       [&] { api.clear(); }, [&] { snap(global, api_held); }},
      {"tessera CachingAllocator::allocate + free (CPU)", [&] { internal.fill(); },
       [&] {
         if (internal.cursor == size_t(s.warmup) * size_t(per_round))
           internal_held.at_timed = internal_alloc->stats().all.num_device_alloc;
         internal.round();
       },
       [&] { internal.clear(); }, [&] { snap(*internal_alloc, internal_held); }},
      {"glibc malloc + free", [&] { mal.fill(); }, [&] { mal.round(); }, [&] { mal.clear(); },
       nullptr},
      {"torch at::empty({n}, kByte) + release", [&] { torch.fill(); }, [&] { torch.round(); },
       [&] { torch.clear(); }, nullptr},
  };
  Samples smp = measure_passes(cs, s.warmup, s.rounds_per_pass, s.passes);

  std::printf("\n%s. random alloc+free, N = %zu live blocks, sizes %s log-uniform; %d passes of "
              "%d+%d rounds of %d pairs (seed %llu)\n",
              tag, live, w.mix.c_str(), s.passes, s.warmup, s.rounds_per_pass, per_round,
              (unsigned long long)kAllocSeed);
  std::printf("  %-52s %11s %11s %11s %11s %13s\n", "contender", "wall med ns", "wall min ns",
              "cpu med ns", "cpu/malloc", "cpu/at::empty");
  rule();
  ConfigResult r{std::to_string(live) + ", " + w.mix, {}};
  for (size_t i = 0; i < cs.size(); ++i) {
    r.cpu_ns[i] = median(smp.cpu[i]) * 1e9 / per_round;
    std::printf("  %-52s %11.1f %11.1f %11.1f %11.2f %13.2f\n", cs[i].name.c_str(),
                median(smp.wall[i]) * 1e9 / per_round, minimum(smp.wall[i]) * 1e9 / per_round,
                r.cpu_ns[i], paired_ratio(smp.cpu[i], smp.cpu[2]),
                paired_ratio(smp.cpu[i], smp.cpu[3]));
  }
  std::printf("  tessera at the end of the timed rounds (last pass): C API instance %.0f MiB "
              "reserved for %.0f MiB\n  allocated, %lld new segments; internal instance %.0f MiB "
              "reserved for %.0f MiB allocated,\n  %lld new segments (in %d timed pairs)\n",
              mib(api_held.reserved), mib(api_held.allocated), (long long)api_held.new_segments,
              mib(internal_held.reserved), mib(internal_held.allocated),
              (long long)internal_held.new_segments, s.rounds_per_pass * per_round);
  return r;
}

}  // namespace

void bench_alloc_random(const AllocBenchSettings& s) {
  std::vector<ConfigResult> results;
  int part = 0;
  for (size_t max_size : s.max_sizes)
    for (size_t live : s.live_counts) {
      std::string tag = "5" + std::string(1, char('a' + part++));
      results.push_back(run_config(s, live, max_size, tag.c_str()));
    }

  std::printf("\n5. summary: cpu med ns per alloc+free pair\n");
  std::printf("  %-24s %10s %10s %10s %10s %16s %20s\n", "N live, sizes", "tsr_empty",
              "internal", "malloc", "at::empty", "internal/malloc", "tsr_empty/at::empty");
  rule();
  for (const auto& r : results)
    std::printf("  %-24s %10.1f %10.1f %10.1f %10.1f %16.2f %20.2f\n", r.label.c_str(),
                r.cpu_ns[0], r.cpu_ns[1], r.cpu_ns[2], r.cpu_ns[3], r.cpu_ns[1] / r.cpu_ns[2],
                r.cpu_ns[0] / r.cpu_ns[3]);
  std::printf("  (summary ratios are of the medians; the per-table ratios are medians of "
              "per-round ratios)\n");
}

}  // namespace bench
