// Part 4: elementwise ops and reductions on cuda:0, each against the copy
// floor: the fewest bytes the op must move (every input read once, the
// output written once) at the bandwidth of a device-to-device cudaMemcpy
// measured in the same run. float32 [4096, 4096] operands (64 MiB each);
// GPU time from events around tessera's calls. bench/cuda/torch_reference.py
// times PyTorch on the same cases.
#include <string>

#include "cuda_bench.h"

namespace cuda_bench {
namespace {

constexpr int64_t kSide = 4096;
constexpr double kMatrixBytes = double(kSide) * kSide * 4;

// Bytes per millisecond of a device-to-device copy of 256 MiB.
double copy_bytes_per_ms(int rounds) {
  const size_t bytes = size_t(256) << 20;
  void *src = nullptr, *dst = nullptr;
  CUDA(cudaMalloc(&src, bytes));
  CUDA(cudaMalloc(&dst, bytes));
  cudaStream_t stream;
  CUDA(cudaStreamCreate(&stream));
  auto copy = [&] { CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream)); };
  cuda_gpu_ms(stream, copy);
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) ms.push_back(cuda_gpu_ms(stream, copy));
  CUDA(cudaStreamDestroy(stream));
  CUDA(cudaFree(dst));
  CUDA(cudaFree(src));
  return 2.0 * double(bytes) / median(ms);
}

// Median GPU time of op (a call returning tsr_status) over rounds, printed
// with the bytes it must move and its ratio to the copy floor; an op the
// device refuses is reported and skipped.
template <typename Op>
void time_op(const char* name, double bytes, double floor_bytes_per_ms, int rounds, Op&& op) {
  if (const tsr_status st = op(); st != TSR_OK) {  // warm-up, and the check
    std::printf("  %-40s %s: %s\n", name, tsr_status_name(st), tsr_last_error_message());
    return;
  }
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) ms.push_back(tessera_gpu_ms([&] { TSR(op()); }));
  const double t = median(ms), floor_ms = bytes / floor_bytes_per_ms;
  std::printf("  %-40s %8.3f ms  %7.1f GB/s   floor %.3f ms   ratio %.2f\n", name, t,
              bytes / (t * 1e-3) / 1e9, floor_ms, t / floor_ms);
}

tsr_tensor* random_matrix(tsr_generator* g) {
  const int64_t sizes[] = {kSide, kSide};
  tsr_tensor *cpu = nullptr, *gpu = nullptr;
  TSR(tsr_randn(2, sizes, TSR_FLOAT32, g, &cpu));
  TSR(tsr_to_device(cpu, TSR_DEVICE_CUDA, 0, false, &gpu));
  tsr_tensor_release(cpu);
  return gpu;
}

}  // namespace

void ops_bench(int rounds) {
  const double floor_rate = copy_bytes_per_ms(rounds);
  std::printf("\n4. elementwise ops and reductions on the GPU, float32 [4096,4096] (GPU milliseconds;\n"
              "   floor = bytes moved at the device-to-device copy rate, %.0f GB/s)\n",
              floor_rate / 1e6);
  tsr_generator* g = nullptr;
  TSR(tsr_generator_create(3, &g));
  tsr_tensor *a = random_matrix(g), *b = random_matrix(g), *bt = nullptr;
  TSR(tsr_transpose(b, 0, 1, &bt));
  // Each op's result is released at once: the caching allocator hands the
  // same block back on the next round.
  auto unary = [](auto fn) {
    return [fn] {
      tsr_tensor* out = nullptr;
      const tsr_status st = fn(&out);
      tsr_tensor_release(out);
      return st;
    };
  };
  const double m = kMatrixBytes, row = m / kSide;
  time_op("a + b", 3 * m, floor_rate, rounds, unary([&](tsr_tensor** o) { return tsr_add(a, b, o); }));
  time_op("a + b.t()", 3 * m, floor_rate, rounds, unary([&](tsr_tensor** o) { return tsr_add(a, bt, o); }));
  time_op("relu(a)", 2 * m, floor_rate, rounds, unary([&](tsr_tensor** o) { return tsr_relu(a, o); }));
  time_op("a.to(float16)", 1.5 * m, floor_rate, rounds,
          unary([&](tsr_tensor** o) { return tsr_to_dtype(a, TSR_FLOAT16, o); }));
  const int64_t dim0 = 0, dim1 = 1;
  time_op("a.sum(0)", m + row, floor_rate, rounds,
          unary([&](tsr_tensor** o) { return tsr_sum(a, 1, &dim0, false, o); }));
  time_op("a.sum(1)", m + row, floor_rate, rounds,
          unary([&](tsr_tensor** o) { return tsr_sum(a, 1, &dim1, false, o); }));
  for (int64_t dim : {dim0, dim1}) {
    const std::string name = "a.max(" + std::to_string(dim) + ") (values, indices)";
    time_op(name.c_str(), m + 3 * row, floor_rate, rounds, [&] {
      tsr_tensor *v = nullptr, *i = nullptr;
      const tsr_status st = tsr_max_dim(a, dim, false, &v, &i);
      tsr_tensor_release(i);
      tsr_tensor_release(v);
      return st;
    });
  }
  time_op("softmax(a, 0)", 2 * m, floor_rate, rounds,
          unary([&](tsr_tensor** o) { return tsr_softmax(a, 0, o); }));
  time_op("softmax(a, 1)", 2 * m, floor_rate, rounds,
          unary([&](tsr_tensor** o) { return tsr_softmax(a, 1, o); }));
  tsr_tensor_release(bt);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
  tsr_generator_release(g);
}

}  // namespace cuda_bench
