// CudaKernels' row methods (reductions, softmax, nll loss): one thread per
// output row, kernel_dispatch.h's host half with the CUDA launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/kernel_dispatch.h"

namespace tsr::cuda {

void CudaKernels::reduce(ReduceKernel op, const ReduceArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_reduce(l, op, args);
}

void CudaKernels::softmax(bool log, void* out, const void* in, tsr_dtype dtype, int64_t outer, int64_t dim,
                          int64_t inner, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_softmax(l, log, out, in, dtype, outer, dim, inner);
}

void CudaKernels::log_softmax_backward(void* grad_in, const void* grad, const void* output, tsr_dtype dtype,
                                       int64_t outer, int64_t dim, int64_t inner, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_log_softmax_backward(l, grad_in, grad, output, dtype, outer, dim, inner);
}

void CudaKernels::nll_loss(void* out, const void* logp, const int64_t* target, tsr_dtype dtype, int64_t n,
                           int64_t c, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_nll_loss(l, out, logp, target, dtype, n, c);
}

void CudaKernels::nll_loss_backward(void* grad_logp, const void* grad, const int64_t* target,
                                    tsr_dtype dtype, int64_t n, int64_t c, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_nll_loss_backward(l, grad_logp, grad, target, dtype, n, c);
}

}  // namespace tsr::cuda
