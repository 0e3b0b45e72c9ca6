// The CUDA plugin's DeviceKernels: the functors of gpu/kernels/ launched as
// real __global__ kernels (grid-stride loops, 64-bit indexing unless every
// offset fits in 32 bits) on the stream's cudaStream_t, gemm through
// cuBLAS. Launch failures throw tsr::Error(TSR_ERR_INTERNAL) naming the
// kernel and the CUDA error.
#pragma once

#include "core/device_kernels.h"

namespace tsr::cuda {

class CudaKernels final : public tsr::DeviceKernels {
 public:
  void copy(const KernelShape& shape, const KernelOperand& dst, const KernelOperand& src,
            Stream s) override;
  void fill(const KernelShape& shape, const KernelOperand& dst, double value, Stream s) override;
  void unary(UnaryKernel op, const KernelShape& shape, const KernelOperand& out, const KernelOperand& in,
             double alpha, tsr_dtype compute, Stream s) override;
  void binary(BinaryKernel op, const KernelShape& shape, const KernelOperand& out, const KernelOperand& a,
              const KernelOperand& b, double alpha, tsr_dtype compute, Stream s) override;
  void reduce(ReduceKernel op, const ReduceArgs& args, Stream s) override;
  void softmax(bool log, void* out, const void* in, tsr_dtype dtype, int64_t outer, int64_t dim,
               int64_t inner, Stream s) override;
  void log_softmax_backward(void* grad_in, const void* grad, const void* output, tsr_dtype dtype,
                            int64_t outer, int64_t dim, int64_t inner, Stream s) override;
  void nll_loss(void* out, const void* logp, const int64_t* target, tsr_dtype dtype, int64_t n, int64_t c,
                Stream s) override;
  void nll_loss_backward(void* grad_logp, const void* grad, const int64_t* target, tsr_dtype dtype,
                         int64_t n, int64_t c, Stream s) override;
  void bernoulli_noise(void* out, tsr_dtype dtype, int64_t numel, uint64_t seed, uint64_t start,
                       uint32_t threshold, double scale, Stream s) override;
  void non_finite_check_and_unscale(const UnscaleArgs& args, Stream s) override;
  void sdpa_forward(const SdpaDeviceArgs& args, Stream s) override;
  void sdpa_backward(const SdpaDeviceArgs& args, Stream s) override;
  // cublasGemmStridedBatchedEx through gemm_mapping.h (gemm.cu).
  void gemm(const GemmArgs& args, Stream s) override;
  // Selection and layer_norm (cuda_select.cu).
  void where(const KernelShape& shape, const KernelOperand& out, const KernelOperand& cond, const KernelOperand& a,
             const KernelOperand& b, Stream s) override;
  void gather(const KernelShape& shape, const KernelOperand& out, const KernelOperand& in, const KernelOperand& index,
              int64_t in_dim_stride, Stream s) override;
  void scatter_add(const ScatterAddArgs& args, Stream s) override;
  void index_bounds(const KernelShape& shape, const KernelOperand& index, int64_t limit, int64_t* first_bad,
                    Stream s) override;
  void layer_norm(void* out, const void* x, const void* weight, const void* bias, tsr_dtype dtype, int64_t rows,
                  int64_t cols, double eps, Stream s) override;
  // Max pooling (cuda_pool.cu).
  void max_pool2d(const MaxPool2dArgs& args, Stream s) override;
  void max_pool2d_backward(const MaxPool2dArgs& args, Stream s) override;
  // ---- scans and products (issue 32, cuda-reduce; cuda_scan.cu) ----
  void scan(const ScanArgs& args, Stream s) override;
  // Softplus and the elementwise losses (cuda_loss.cu; cuda-sort-loss).
  void loss_map(LossKernel op, const LossMapArgs& args, Stream s) override;
  // sort, topk, kthvalue (cuda_sort.cu; cuda-sort-loss).
  void sort_slices(const SortSlicesArgs& args, Stream s) override;
  // The scatter / index family (cuda_index.cu).
  void scatter_reduce(const ScatterReduceArgs& args, Stream s) override;
  void nonzero_blocks(const NonzeroArgs& args, Stream s) override;
};

// The process-wide instance (stateless but for cuBLAS handles, created per
// device on first use).
tsr::DeviceKernels& cuda_kernels();

}  // namespace tsr::cuda
