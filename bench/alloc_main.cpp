// tsr_alloc_bench: tessera's caching allocator side by side with glibc
// malloc and torch's CPU allocator (part 5), and on a device with streams
// (part 6). Linked with tessera's objects (not libtessera.so) to reach the
// internal CachingAllocator class; the C API contender therefore calls
// tsr_empty directly, without the shared library's PLT indirection.
// Prints figures and ratios; never passes or fails.
// Usage: tsr_alloc_bench [--quick]   (--quick: few rounds, a smoke run)
#include <torch/csrc/api/include/torch/version.h>

#include <gnu/libc-version.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "alloc_bench.h"
#include "bench_util.h"

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  bench::AllocBenchSettings s;
  s.warmup = quick ? 1 : 2;
  s.rounds_per_pass = quick ? 2 : 7;
  s.passes = quick ? 2 : 3;
  s.per_round = quick ? 2000 : 20000;
  s.per_round_100k = quick ? 500 : 2000;
  s.live_counts = {10, 1000, 100000};
  s.max_sizes = {size_t(1) << 20, size_t(8) << 20};

  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows through a pipe
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("\ntsr_alloc_bench: tessera %s (objects linked in), libtorch %s (C++), glibc %s\n",
              tsr_version_string(), TORCH_VERSION, gnu_get_libc_version());
  std::printf("cpu (/proc/cpuinfo): %s\n", bench::cpu_model().c_str());
  std::printf("OPENBLAS_CORETYPE=%s (left as the machine sets it; no BLAS runs here)\n",
              coretype ? coretype : "<unset>");
  std::printf(
      "Each pair frees the live block at a random index and allocates a block of a random size\n"
      "(log-uniform) in its place; all contenders walk the same seeded sequence, and the memory\n"
      "is never touched. ns per pair: median and min over the timed rounds. wall = steady clock;\n"
      "cpu = this thread's CPU time (user+sys; on a loaded machine the one to read). Ratios are\n"
      "medians over rounds of (this row's cpu time / the other's), rounds paired by position.\n"
      "\n5. random alloc+free. Per pass each contender in turn: make N blocks, %d warm-up +\n"
      "%d timed rounds, free all and give the memory back (tsr_empty_cache, malloc_trim);\n"
      "%d passes, the first contender rotating. %d pairs per round, %d with N = 100000\n"
      "(glibc's cost there grows with every pair: see bench/README.md).\n",
      s.warmup, s.rounds_per_pass, s.passes, s.per_round, s.per_round_100k);

  bench::bench_alloc_random(s);
  std::printf(
      "\n6. the caching allocator on a device with streams: a bench-local backend where streams\n"
      "are numbers and an event completes a set number of pairs after it is recorded (see\n"
      "bench/bench_device.h). The rows are separate allocator instances, interleaved within each\n"
      "round; %d warm-up + %d timed rounds of %d pairs (%d with N = 100000).\n"
      "  cpu/1 stream: cpu time vs the 1-stream row in the same round.\n"
      "  pending avg/max: blocks awaiting an event (freed after record_stream, their stream not\n"
      "    yet done) when an allocation looked for a free block: it cannot reuse them, and no\n"
      "    allocation ever waits for them.\n"
      "  allocs w/ pending: share of allocations that found at least one pending block.\n"
      "  new segments: segments obtained during the timed pairs; every other allocation reused\n"
      "    cached memory.\n"
      "  queries/pair: event polls (the allocator polls each stream's oldest event per allocation).\n"
      "  reserved/allocated MiB: memory held by the allocator / in live blocks, at the end.\n",
      s.warmup, s.rounds(), s.per_round, s.per_round_100k);
  bench::bench_alloc_streams(s);

  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("\npeak resident memory of the process: %.0f MiB (the blocks are never touched; "
              "tessera's\nsegments and glibc's large blocks are address space, not memory)\n",
              double(ru.ru_maxrss) / 1024.0);
  return 0;
}
