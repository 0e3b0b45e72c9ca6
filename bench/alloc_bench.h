// Allocator benchmarks (issue 8, item 8), run by tsr_alloc_bench:
//   part 5: random alloc+free with N live blocks: tessera's caching allocator
//           through the C API and through its internal class, glibc
//           malloc/free, torch's CPU at::empty.
//   part 6: the same workload on a device with streams (bench_device.h):
//           one stream vs two, record_stream on the other stream, events
//           that complete at once or some pairs later.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// One replacement: free live[victim], then allocate `size` bytes into its
// place. coin is uniform over uint32 (part 6: record_stream when below a
// threshold).
struct AllocOp {
  uint32_t victim;
  uint32_t size;
  uint32_t coin;
};

// A fixed, seeded workload that every contender walks alike: the sizes of
// the N blocks made first, then `per_round` replacements for each warm-up
// round and each timed round. Sizes are log-uniform in [min_size, max_size].
struct AllocWorkload {
  std::string mix;  // "512 B-1 MiB", ...
  size_t live;      // N
  size_t min_size, max_size;
  int per_round;
  std::vector<uint32_t> fill;  // N sizes
  std::vector<AllocOp> ops;    // (warmup + rounds) * per_round
};

constexpr uint64_t kAllocSeed = 20261121;

AllocWorkload make_alloc_workload(size_t live, size_t min_size, size_t max_size, int per_round,
                                  int samples, uint64_t seed = kAllocSeed);

// Sizes as "512 B", "1 MiB".
std::string bytes_label(size_t n);

struct AllocBenchSettings {
  int warmup;           // untimed rounds after the fill
  int rounds_per_pass;  // timed rounds
  int passes;           // part 5: fill, warm-up, timed rounds, clear; this many times
  int per_round;        // replacement pairs per round
  int per_round_100k;   // part 5 with N >= 100000 (glibc gets slow there)
  std::vector<size_t> live_counts;
  std::vector<size_t> max_sizes;
  int rounds() const { return rounds_per_pass * passes; }
};

void bench_alloc_random(const AllocBenchSettings& s);
void bench_alloc_streams(const AllocBenchSettings& s);

}  // namespace bench
