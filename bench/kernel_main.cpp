// tsr_kernel_bench: tessera's CPU kernels (through the C API) side by side
// with libtorch 1.13 C++ and a hand-written floor, in one process (issue
// 12, item 7). Prints figures and ratios; never passes or fails.
// Usage: tsr_kernel_bench [--quick] [--elementwise | --reductions | --indexing]
// (--quick: few rounds, a smoke run; the others: those cases only)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "bench_util.h"
#include "elementwise_bench.h"
#include "index_bench.h"
#include "reduce_bench.h"

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  // --elementwise: only the elementwise cases
  const bool only_ew = argc > 1 && std::strcmp(argv[argc - 1], "--elementwise") == 0;
  const int warmup = quick ? 1 : 2, rounds = quick ? 3 : 11;
  const int cores = int(std::thread::hardware_concurrency());
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("tessera %s (C API), libtorch %s (C++), CPU: %s, %d hardware threads\n", tsr_version_string(),
              TORCH_VERSION, bench::cpu_model().c_str(), cores);
  std::printf("OPENBLAS_CORETYPE is left as the machine sets it: %s\n", coretype ? coretype : "(unset)");
  std::printf("ATen parallel backend:\n%s", at::get_parallel_info().c_str());
  std::printf(
      "Figures: medians over %d rounds, contenders interleaved within each round. wall = steady\n"
      "clock; cpu = this thread's CPU time (leaves out waiting for a core on a loaded machine).\n",
      rounds);
  const bool only_red = argc > 1 && std::strcmp(argv[argc - 1], "--reductions") == 0;
  const bool only_index = argc > 1 && std::strcmp(argv[argc - 1], "--indexing") == 0;
  if (!only_red && !only_index) bench::bench_elementwise(warmup, rounds);
  if (only_ew) return 0;
  if (!only_index) {
    bench::bench_reductions(warmup, rounds, 1);
    if (cores > 1) bench::bench_reductions(warmup, rounds, cores);
  }
  if (only_red) return 0;
  bench::bench_indexing(warmup, rounds, 1);
  if (cores > 1) bench::bench_indexing(warmup, rounds, cores);
  return 0;
}
