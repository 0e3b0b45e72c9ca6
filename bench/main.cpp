// tsr_bench: tessera (through its C API only) side by side with memcpy and
// libtorch C++ in one process. Prints figures and ratios; never passes or
// fails. Usage: tsr_bench [--quick] [--conversions]   (--quick: few rounds, a
// smoke run; --conversions: the conversions and layout copies table only)
//
// Threads: the main tables pin both libraries to one thread
// (tsr_set_num_threads(1), at::set_num_threads(1)) to compare like for like.
// The copy tables are then repeated with both at torch's default thread count
// and at one thread per core, labelled as such.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstring>
#include <string>
#include <thread>

#include "bench_util.h"
#include "call_bench.h"
#include "convert_bench.h"
#include "copy_bench.h"

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const bool only_conversions = argc > 1 && std::strcmp(argv[argc - 1], "--conversions") == 0;
  const int copy_warmup = quick ? 1 : 3, copy_rounds = quick ? 3 : 21;
  const int call_warmup = quick ? 1 : 5, call_rounds = quick ? 5 : 41;
  const int call_batch = quick ? 2000 : 20000;

  const int torch_default_threads = at::get_num_threads();
  const int cores = int(std::thread::hardware_concurrency());
  std::printf("tessera %s (C API), libtorch %s (C++), %d hardware threads\n",
              tsr_version_string(), TORCH_VERSION, cores);
  std::printf("torch default intra-op threads: %d; ATen parallel backend:\n%s",
              torch_default_threads, at::get_parallel_info().c_str());
  std::printf(
      "Figures: median and min over %d rounds (copies) / %d batches of %d calls, contenders\n"
      "interleaved within each round. wall = steady clock; cpu = this thread's CPU time\n"
      "(user+sys, leaves out time spent waiting for a core on a loaded machine; '-' where\n"
      "torch may use other threads). ratio = median over rounds of (tessera's time / this\n"
      "row's time) in the same round: > 1 means tessera is slower. GB/s counts bytes read +\n"
      "bytes written (2 x tensor bytes).\n",
      copy_rounds, call_rounds, call_batch);

  const int64_t tsr_default_threads = tsr_get_num_threads();
  if (only_conversions) {
    bench::bench_conversions(copy_warmup, copy_rounds);
    return 0;
  }
  at::set_num_threads(1);
  BENCH_TSR(tsr_set_num_threads(1));
  bench::bench_transpose_copy(copy_warmup, copy_rounds, "torch 1 thread");
  bench::bench_channels_last_copy(copy_warmup, copy_rounds, "torch 1 thread");
  bench::bench_conversions(copy_warmup, copy_rounds);
  at::set_num_threads(1);
  bench::bench_call_costs(call_warmup, call_rounds, call_batch);

  // The same copies with both free to use threads.
  std::string label = "torch and tessera: " + std::to_string(torch_default_threads) + " thread(s)";
  at::set_num_threads(torch_default_threads);
  BENCH_TSR(tsr_set_num_threads(torch_default_threads));
  bench::bench_transpose_copy(copy_warmup, copy_rounds, label.c_str());
  bench::bench_channels_last_copy(copy_warmup, copy_rounds, label.c_str());
  if (cores > 1 && cores != torch_default_threads) {
    label = "torch and tessera " + std::to_string(cores) + " threads, one per core";
    at::set_num_threads(cores);
    BENCH_TSR(tsr_set_num_threads(cores));
    bench::bench_transpose_copy(copy_warmup, copy_rounds, label.c_str());
    bench::bench_channels_last_copy(copy_warmup, copy_rounds, label.c_str());
  }
  BENCH_TSR(tsr_set_num_threads(tsr_default_threads));
  return 0;
}
