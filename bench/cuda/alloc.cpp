// Part 1: a cached allocation and free through tessera (tsr_empty on
// cuda:0 + release: the caching allocator hands back a cached block) vs
// cudaMalloc + cudaFree, for a mix of sizes, in host time per pair.
#include <chrono>

#include "cuda_bench.h"

namespace cuda_bench {
namespace {

constexpr int kPairsPerRound = 200;

template <typename Body>
double host_us_per_pair(Body&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kPairsPerRound; ++i) body();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / kPairsPerRound;
}

}  // namespace

void alloc_bench(int rounds) {
  static const int64_t sizes[] = {512, 4 << 10, 64 << 10, 1 << 20, 8 << 20, 64 << 20};
  std::printf("\n1. allocate + free one block (host microseconds per pair)\n");
  for (const int64_t bytes : sizes) {
    auto tessera = [&] {
      tsr_tensor* t = nullptr;
      TSR(tsr_empty(1, &bytes, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_DEVICE_CUDA, 0, &t));
      tsr_tensor_release(t);
    };
    auto runtime = [&] {
      void* p = nullptr;
      CUDA(cudaMalloc(&p, size_t(bytes)));
      CUDA(cudaFree(p));
    };
    tessera();  // warm-up: the first call reserves the segment
    runtime();
    std::vector<double> ours, theirs, ratios;
    for (int r = 0; r < rounds; ++r) {
      // Alternate which goes first, so a slow spell hits both.
      double a = 0, b = 0;
      if (r % 2) {
        a = host_us_per_pair(tessera);
        b = host_us_per_pair(runtime);
      } else {
        b = host_us_per_pair(runtime);
        a = host_us_per_pair(tessera);
      }
      ours.push_back(a);
      theirs.push_back(b);
      ratios.push_back(a / b);
    }
    std::printf("  %8lld bytes: tessera %8.3f us, cudaMalloc+cudaFree %8.3f us, ratio %.3f\n",
                static_cast<long long>(bytes), median(ours), median(theirs), median(ratios));
  }
}

}  // namespace cuda_bench
