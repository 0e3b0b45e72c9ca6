// CudaKernels' selection and layer_norm methods: select_dispatch.h's host
// half with the CUDA launcher.
#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/select_dispatch.h"

namespace tsr::cuda {

void CudaKernels::where(const KernelShape& shape, const KernelOperand& out, const KernelOperand& cond,
                        const KernelOperand& a, const KernelOperand& b, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_where(l, shape, out, cond, a, b);
}

void CudaKernels::gather(const KernelShape& shape, const KernelOperand& out, const KernelOperand& in,
                         const KernelOperand& index, int64_t in_dim_stride, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_gather(l, shape, out, in, index, in_dim_stride);
}

void CudaKernels::scatter_add(const ScatterAddArgs& args, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_scatter_add(l, args);
}

void CudaKernels::index_bounds(const KernelShape& shape, const KernelOperand& index, int64_t limit,
                               int64_t* first_bad, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_index_bounds(l, shape, index, limit, first_bad);
}

void CudaKernels::layer_norm(void* out, const void* x, const void* weight, const void* bias, tsr_dtype dtype,
                             int64_t rows, int64_t cols, double eps, Stream s) {
  CudaLauncher l(s);
  gpu::dispatch_layer_norm(l, out, x, weight, bias, dtype, rows, cols, eps);
}

}  // namespace tsr::cuda
