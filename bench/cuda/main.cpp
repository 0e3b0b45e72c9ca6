// tsr_cuda_bench [--quick]: tessera on CUDA device 0 next to the CUDA
// runtime doing the same work (bench/README.md). Without a usable device it
// prints "no CUDA device: <reason>" and exits 0: a benchmark, not a test.
#include <cstring>

#include "cuda_bench.h"

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    std::printf("no CUDA device: %s\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices");
    return 0;
  }
  if (tsr_cuda_init() != TSR_OK) {
    std::printf("no CUDA device: %s\n", tsr_last_error_message());
    return 0;
  }
  cudaDeviceProp prop{};
  CUDA(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0, driver = 0;
  CUDA(cudaRuntimeGetVersion(&runtime));
  CUDA(cudaDriverGetVersion(&driver));
  std::printf("GPU: %s (sm_%d%d, %.1f GiB), CUDA runtime %d, driver %d; tessera %s\n", prop.name,
              prop.major, prop.minor, double(prop.totalGlobalMem) / (1 << 30), runtime, driver,
              tsr_version_string());
  std::printf("medians over rounds; ratio = tessera / this row (> 1: tessera slower)\n");
  const int rounds = quick ? 3 : 21;
  cuda_bench::alloc_bench(rounds);
  cuda_bench::copy_bench(rounds);
  cuda_bench::train_step_bench(rounds);
  cuda_bench::ops_bench(rounds);
  return 0;
}
