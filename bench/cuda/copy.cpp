// Part 2: strided copies on cuda:0 through tessera vs device-to-device
// cudaMemcpy of the same number of bytes (the bandwidth ceiling): the
// transpose of a 4096x4096 float32 matrix made contiguous (new tensor, and
// into a preallocated one with tsr_copy_), and NCHW [32,64,56,56] float32 to
// channels_last. GPU time from events; GB/s counts bytes read + written.
#include "cuda_bench.h"

namespace cuda_bench {
namespace {

tsr_tensor* device_tensor(int64_t ndim, const int64_t* sizes, tsr_memory_format fmt) {
  tsr_tensor* t = nullptr;
  TSR(tsr_empty(ndim, sizes, TSR_FLOAT32, fmt, TSR_DEVICE_CUDA, 0, &t));
  return t;
}

// Times tessera's copy and cudaMemcpy of nbytes, rounds times each
// (alternating), and prints both rows.
template <typename Body>
void compare(const char* name, size_t nbytes, int rounds, Body&& tessera) {
  void *src = nullptr, *dst = nullptr;
  CUDA(cudaMalloc(&src, nbytes));
  CUDA(cudaMalloc(&dst, nbytes));
  cudaStream_t stream;
  CUDA(cudaStreamCreate(&stream));
  auto memcpy_d2d = [&] { CUDA(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, stream)); };
  tessera_gpu_ms(tessera);  // warm-up: kernels loaded, blocks cached
  cuda_gpu_ms(stream, memcpy_d2d);
  std::vector<double> ours, theirs;
  for (int r = 0; r < rounds; ++r) {
    ours.push_back(tessera_gpu_ms(tessera));
    theirs.push_back(cuda_gpu_ms(stream, memcpy_d2d));
  }
  const double t = median(ours), m = median(theirs);
  std::printf("  %s (%.1f MiB)\n", name, double(nbytes) / (1 << 20));
  row("tessera", t, "ms", t, 2.0 * double(nbytes));
  row("cudaMemcpy device to device", m, "ms", t, 2.0 * double(nbytes));
  CUDA(cudaStreamDestroy(stream));
  CUDA(cudaFree(dst));
  CUDA(cudaFree(src));
}

}  // namespace

void copy_bench(int rounds) {
  std::printf("\n2. strided copies on the GPU (GPU milliseconds)\n");
  const int64_t square[] = {4096, 4096};
  tsr_tensor* m = device_tensor(2, square, TSR_CONTIGUOUS_FORMAT);
  tsr_tensor* mt = nullptr;
  TSR(tsr_transpose(m, 0, 1, &mt));
  const size_t matrix_bytes = size_t(tsr_tensor_nbytes(m));
  compare("transpose(4096x4096).contiguous()", matrix_bytes, rounds, [&] {
    tsr_tensor* out = nullptr;
    TSR(tsr_contiguous(mt, TSR_CONTIGUOUS_FORMAT, &out));
    tsr_tensor_release(out);
  });
  tsr_tensor* dense = device_tensor(2, square, TSR_CONTIGUOUS_FORMAT);
  compare("copy_ of the transpose into a preallocated matrix", matrix_bytes, rounds,
          [&] { TSR(tsr_copy_(dense, mt)); });

  const int64_t nchw[] = {32, 64, 56, 56};
  tsr_tensor* x = device_tensor(4, nchw, TSR_CONTIGUOUS_FORMAT);
  compare("NCHW [32,64,56,56] -> channels_last", size_t(tsr_tensor_nbytes(x)), rounds, [&] {
    tsr_tensor* out = nullptr;
    TSR(tsr_contiguous(x, TSR_CHANNELS_LAST, &out));
    tsr_tensor_release(out);
  });
  tsr_tensor_release(x);
  tsr_tensor_release(dense);
  tsr_tensor_release(mt);
  tsr_tensor_release(m);
}

}  // namespace cuda_bench
