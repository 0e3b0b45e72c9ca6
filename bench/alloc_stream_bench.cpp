// Part 6: part 5's workload through the caching allocator on a device with
// streams (bench_device.h), to see what streams and record_stream cost:
// one stream; two streams with allocations alternating between them; and
// two streams where a fraction of the blocks get record_stream on the other
// stream before they are freed, so the free is deferred until an event
// recorded on that stream completes (at once, or `delay` pairs later).
#include <memory>

#include "alloc/caching_allocator.h"
#include "alloc_bench.h"
#include "bench_device.h"
#include "bench_util.h"

namespace bench {
namespace {

struct RowSpec {
  std::string name;
  bool two_streams;
  double record_fraction;  // of the freed blocks
  uint64_t delay;          // pairs until an event on a stream completes
};

struct Row {
  const AllocWorkload* w;
  RowSpec spec;
  std::unique_ptr<BenchDevice> dev;  // outlives alloc (declared first)
  std::unique_ptr<tsr::alloc::CachingAllocator> alloc;
  tsr::Stream streams[2];
  uint64_t threshold;  // record_stream when op.coin < threshold
  size_t cursor = 0;
  struct Live {
    void* ptr;
    int s;
  };
  std::vector<Live> live;
  // Counted in the timed rounds only (reset after warm-up).
  int64_t pairs = 0, pending_sum = 0, allocs_with_pending = 0, pending_max = 0;

  Row(const AllocWorkload* workload, RowSpec rs) : w(workload), spec(std::move(rs)) {
    dev = std::make_unique<BenchDevice>(spec.delay);
    alloc = std::make_unique<tsr::alloc::CachingAllocator>(*dev, 0);
    streams[0] = tsr::Stream{dev->device(), tsr::kDefaultStreamId};
    streams[1] = tsr::Stream{dev->device(), dev->create_stream(0)};
    threshold = uint64_t(spec.record_fraction * 4294967296.0);
  }
  void fill() {
    for (size_t i = 0; i < w->fill.size(); ++i) {
      int s = spec.two_streams ? int(i & 1) : 0;
      live.push_back({alloc->allocate_on(w->fill[i], streams[s]), s});
    }
  }
  void round() {
    for (int k = 0; k < w->per_round; ++k) {
      const AllocOp& op = w->ops[cursor++];
      Live& v = live[op.victim];
      if (op.coin < threshold) alloc->record_stream(v.ptr, streams[1 - v.s]);
      alloc->free(v.ptr);
      v.s = spec.two_streams ? int(cursor & 1) : 0;
      v.ptr = alloc->allocate_on(op.size, streams[v.s]);
      keep(v.ptr);
      dev->advance();
      // Blocks still pending when that allocation looked for a free block
      // (it polled the events first; nothing was recorded since).
      const int64_t p = dev->outstanding();
      pending_sum += p;
      allocs_with_pending += p != 0;
      pending_max = std::max(pending_max, p);
    }
    pairs += w->per_round;
  }
  void reset_counts() { pairs = pending_sum = allocs_with_pending = pending_max = 0; }
  void clear() {
    for (const Live& v : live) alloc->free(v.ptr);
    live.clear();
  }
};

double mib(int64_t b) { return double(b) / double(1 << 20); }

struct ConfigResult {
  std::string label;
  std::vector<double> cpu_ns;
};

ConfigResult run_config(const AllocBenchSettings& s, size_t live, size_t max_size,
                        const char* tag) {
  const int per_round = live >= 100000 ? s.per_round_100k : s.per_round;
  const AllocWorkload w =
      make_alloc_workload(live, 512, max_size, per_round, s.warmup + s.rounds());
  std::vector<RowSpec> specs = {
      {"1 stream", false, 0.0, 0},
      {"2 streams, alternating", true, 0.0, 0},
      {"2 streams, 25% record_stream, events done at once", true, 0.25, 0},
      {"2 streams, 25% record_stream, other stream 100 pairs behind", true, 0.25, 100},
      {"2 streams, 100% record_stream, 100 pairs behind", true, 1.0, 100},
      {"2 streams, 25% record_stream, 10000 pairs behind", true, 0.25, 10000},
  };
  std::vector<std::unique_ptr<Row>> rows;
  for (auto& spec : specs) rows.push_back(std::make_unique<Row>(&w, spec));
  for (auto& r : rows) r->fill();

  std::vector<Contender> cs;
  for (auto& r : rows) cs.push_back({r->spec.name, [row = r.get()] { row->round(); }, false});
  measure_interleaved(cs, 0, s.warmup);
  std::vector<tsr::alloc::MemoryStats> st0;
  std::vector<BenchDevice::Counters> dc0;
  for (auto& r : rows) {
    r->reset_counts();
    st0.push_back(r->alloc->stats().all);
    dc0.push_back(r->dev->counters());
  }
  Samples smp = measure_interleaved(cs, 0, s.rounds());

  std::printf("\n%s. bench device, N = %zu live blocks, sizes %s log-uniform; %d rounds of %d "
              "pairs (seed %llu)\n",
              tag, live, w.mix.c_str(), s.rounds(), per_round, (unsigned long long)kAllocSeed);
  std::printf("  %-58s %8s %8s %8s %8s %8s %9s %8s %8s %15s\n", "row", "wall med", "cpu med",
              "cpu/", "pending", "pending", "allocs w/", "new", "queries", "reserved/");
  std::printf("  %-58s %8s %8s %8s %8s %8s %9s %8s %8s %15s\n", "", "ns", "ns", "1 stream",
              "avg", "max", "pending", "segments", "/pair", "allocated MiB");
  rule();
  ConfigResult result{std::to_string(live) + ", " + w.mix, {}};
  for (size_t i = 0; i < rows.size(); ++i) {
    Row& r = *rows[i];
    const auto st = r.alloc->stats().all;
    const auto dc = r.dev->counters();
    const double pairs = double(r.pairs);
    char mem[48];
    std::snprintf(mem, sizeof mem, "%.0f/%.0f", mib(st.reserved_bytes.current),
                  mib(st.allocated_bytes.current));
    result.cpu_ns.push_back(median(smp.cpu[i]) * 1e9 / per_round);
    std::printf("  %-58s %8.1f %8.1f %8.2f %8.1f %8lld %8.1f%% %8lld %8.2f %15s\n",
                r.spec.name.c_str(), median(smp.wall[i]) * 1e9 / per_round, result.cpu_ns[i],
                paired_ratio(smp.cpu[i], smp.cpu[0]), double(r.pending_sum) / pairs,
                (long long)r.pending_max, 100.0 * double(r.allocs_with_pending) / pairs,
                (long long)(st.num_device_alloc - st0[i].num_device_alloc),
                double(dc.queries - dc0[i].queries) / pairs, mem);
    if (dc.waits != dc0[i].waits || st.num_sync_all_streams != st0[i].num_sync_all_streams)
      std::printf("    (waited on the device %lld times)\n",
                  (long long)(dc.waits - dc0[i].waits));
  }
  for (auto& r : rows) r->clear();
  return result;
}

}  // namespace

void bench_alloc_streams(const AllocBenchSettings& s) {
  std::vector<ConfigResult> results;
  int part = 0;
  for (size_t max_size : s.max_sizes)
    for (size_t live : s.live_counts) {
      std::string tag = "6" + std::string(1, char('a' + part++));
      results.push_back(run_config(s, live, max_size, tag.c_str()));
    }

  std::printf("\n6. summary: cpu med ns per alloc+free pair on the bench device (rs: share of "
              "the freed blocks given\n   record_stream on the other stream; behind: pairs "
              "until that stream's event completes)\n");
  std::printf("  %-24s %9s %9s %12s %13s %13s %15s\n", "N live, sizes", "1 stream", "2 streams",
              "25% rs, 0", "25% rs, 100", "100% rs, 100", "25% rs, 10000");
  rule();
  for (const auto& r : results)
    std::printf("  %-24s %9.1f %9.1f %12.1f %13.1f %13.1f %15.1f\n", r.label.c_str(),
                r.cpu_ns[0], r.cpu_ns[1], r.cpu_ns[2], r.cpu_ns[3], r.cpu_ns[4], r.cpu_ns[5]);
}

}  // namespace bench
