// CudaKernels' elementwise methods: kernel_dispatch.h's host half with the
// CUDA launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/kernel_dispatch.h"

namespace tsr::cuda {

DeviceKernels& cuda_kernels() {
  static CudaKernels kernels;
  return kernels;
}

void CudaKernels::copy(const KernelShape& shape, const KernelOperand& dst, const KernelOperand& src,
                       Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_copy(l, shape, dst, src);
}

void CudaKernels::fill(const KernelShape& shape, const KernelOperand& dst, double value, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_fill(l, shape, dst, value);
}

void CudaKernels::unary(UnaryKernel op, const KernelShape& shape, const KernelOperand& out,
                        const KernelOperand& in, double alpha, tsr_dtype compute, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_unary(l, op, shape, out, in, alpha, compute);
}

void CudaKernels::binary(BinaryKernel op, const KernelShape& shape, const KernelOperand& out,
                         const KernelOperand& a, const KernelOperand& b, double alpha, tsr_dtype compute,
                         Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_binary(l, op, shape, out, a, b, alpha, compute);
}

void CudaKernels::bernoulli_noise(void* out, tsr_dtype dtype, int64_t numel, uint64_t seed,
                                  uint64_t start, uint32_t threshold, double scale, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_bernoulli(l, out, dtype, numel, seed, start, threshold, scale);
}

void CudaKernels::non_finite_check_and_unscale(const UnscaleArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_unscale(l, args);
}

void CudaKernels::sdpa_forward(const SdpaDeviceArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_sdpa_forward(l, args);
}

void CudaKernels::sdpa_backward(const SdpaDeviceArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_sdpa_backward(l, args);
}

}  // namespace tsr::cuda
