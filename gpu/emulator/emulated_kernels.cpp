#include "emulator/emulated_kernels.h"

#include "kernels/gemm_mapping.h"
#include "kernels/gemm_zero_k.h"
#include "kernels/kernel_dispatch.h"
#include "kernels/pool_dispatch.h"
#include "kernels/scan_dispatch.h"
#include "kernels/select_dispatch.h"
#include "kernels/loss_dispatch.h"
#include "kernels/sort_dispatch.h"
#include "kernels/index_dispatch.h"

namespace tsr::gpu {

void EmulatedKernels::copy(const KernelShape& shape, const KernelOperand& dst, const KernelOperand& src,
                           Stream) {
  Launcher l{this};
  dispatch_copy(l, shape, dst, src);
}

void EmulatedKernels::fill(const KernelShape& shape, const KernelOperand& dst, double value, Stream) {
  Launcher l{this};
  dispatch_fill(l, shape, dst, value);
}

void EmulatedKernels::unary(UnaryKernel op, const KernelShape& shape, const KernelOperand& out,
                            const KernelOperand& in, double alpha, tsr_dtype compute, Stream) {
  Launcher l{this};
  dispatch_unary(l, op, shape, out, in, alpha, compute);
}

void EmulatedKernels::binary(BinaryKernel op, const KernelShape& shape, const KernelOperand& out,
                             const KernelOperand& a, const KernelOperand& b, double alpha,
                             tsr_dtype compute, Stream) {
  Launcher l{this};
  dispatch_binary(l, op, shape, out, a, b, alpha, compute);
}

void EmulatedKernels::reduce(ReduceKernel op, const ReduceArgs& args, Stream) {
  Launcher l{this};
  dispatch_reduce(l, op, args);
}

void EmulatedKernels::softmax(bool log, void* out, const void* in, tsr_dtype dtype, int64_t outer,
                              int64_t dim, int64_t inner, Stream) {
  Launcher l{this};
  dispatch_softmax(l, log, out, in, dtype, outer, dim, inner);
}

void EmulatedKernels::log_softmax_backward(void* grad_in, const void* grad, const void* output,
                                           tsr_dtype dtype, int64_t outer, int64_t dim, int64_t inner,
                                           Stream) {
  Launcher l{this};
  dispatch_log_softmax_backward(l, grad_in, grad, output, dtype, outer, dim, inner);
}

void EmulatedKernels::nll_loss(void* out, const void* logp, const int64_t* target, tsr_dtype dtype,
                               int64_t n, int64_t c, Stream) {
  Launcher l{this};
  dispatch_nll_loss(l, out, logp, target, dtype, n, c);
}

void EmulatedKernels::nll_loss_backward(void* grad_logp, const void* grad, const int64_t* target,
                                        tsr_dtype dtype, int64_t n, int64_t c, Stream) {
  Launcher l{this};
  dispatch_nll_loss_backward(l, grad_logp, grad, target, dtype, n, c);
}

void EmulatedKernels::bernoulli_noise(void* out, tsr_dtype dtype, int64_t numel, uint64_t seed,
                                      uint64_t start, uint32_t threshold, double scale, Stream) {
  Launcher l{this};
  dispatch_bernoulli(l, out, dtype, numel, seed, start, threshold, scale);
}

void EmulatedKernels::non_finite_check_and_unscale(const UnscaleArgs& args, Stream) {
  Launcher l{this};
  dispatch_unscale(l, args);
}

void EmulatedKernels::sdpa_forward(const SdpaDeviceArgs& args, Stream) {
  Launcher l{this};
  dispatch_sdpa_forward(l, args);
}

void EmulatedKernels::sdpa_backward(const SdpaDeviceArgs& args, Stream) {
  Launcher l{this};
  dispatch_sdpa_backward(l, args);
}

void EmulatedKernels::where(const KernelShape& shape, const KernelOperand& out, const KernelOperand& cond,
                            const KernelOperand& a, const KernelOperand& b, Stream) {
  Launcher l{this};
  dispatch_where(l, shape, out, cond, a, b);
}

void EmulatedKernels::gather(const KernelShape& shape, const KernelOperand& out, const KernelOperand& in,
                             const KernelOperand& index, int64_t in_dim_stride, Stream) {
  Launcher l{this};
  dispatch_gather(l, shape, out, in, index, in_dim_stride);
}

void EmulatedKernels::scatter_add(const ScatterAddArgs& args, Stream) {
  Launcher l{this};
  dispatch_scatter_add(l, args);
}

void EmulatedKernels::index_bounds(const KernelShape& shape, const KernelOperand& index, int64_t limit,
                                   int64_t* first_bad, Stream) {
  Launcher l{this};
  dispatch_index_bounds(l, shape, index, limit, first_bad);
}

void EmulatedKernels::layer_norm(void* out, const void* x, const void* weight, const void* bias, tsr_dtype dtype,
                                 int64_t rows, int64_t cols, double eps, Stream) {
  Launcher l{this};
  dispatch_layer_norm(l, out, x, weight, bias, dtype, rows, cols, eps);
}

namespace {

// What cublasGemmStridedBatchedEx computes for g, element by element
// (column-major; C is not read when beta is 0), summing in Acc: float for
// float16/bfloat16 (CUBLAS_COMPUTE_32F), C rounded once.
template <typename T, typename Acc = T>
void column_major_gemm(const ColumnMajorGemm& g, Acc alpha, Acc beta) {
  for (int32_t p = 0; p < g.batch; ++p) {
    const T* a = static_cast<const T*>(g.a) + p * g.stride_a;
    const T* b = static_cast<const T*>(g.b) + p * g.stride_b;
    T* c = static_cast<T*>(g.c) + p * g.stride_c;
    for (int64_t j = 0; j < g.n; ++j)
      for (int64_t i = 0; i < g.m; ++i) {
        Acc s = 0;
        for (int64_t l = 0; l < g.k; ++l) {
          const Acc x = Acc(g.trans_a ? a[l + i * g.lda] : a[i + l * g.lda]);
          const Acc y = Acc(g.trans_b ? b[j + l * g.ldb] : b[l + j * g.ldb]);
          s += x * y;
        }
        T& out = c[i + j * g.ldc];
        out = T(beta == Acc(0) ? alpha * s : alpha * s + beta * Acc(out));
      }
  }
}

}  // namespace

void EmulatedKernels::gemm(const GemmArgs& args, Stream) {
  check_gemm_dtype(args);
  const GemmMapping m = map_gemm(args);
  Launcher l{this};
  switch (m.kind) {
    case GemmMapping::Empty: return;
    case GemmMapping::Refused: fail(m.status, "gemm: ", m.why);
    case GemmMapping::ZeroK: return gemm_zero_k(l, args);
    case GemmMapping::Call: break;
  }
  launches_.push_back("gemm");
  const float alpha = float(args.alpha), beta = float(args.beta);
  switch (args.dtype) {
    case TSR_FLOAT32: return column_major_gemm<float>(m.gemm, alpha, beta);
    case TSR_FLOAT16: return column_major_gemm<Half, float>(m.gemm, alpha, beta);
    case TSR_BFLOAT16: return column_major_gemm<BFloat16, float>(m.gemm, alpha, beta);
    default: return column_major_gemm<double>(m.gemm, args.alpha, args.beta);
  }
}

void EmulatedKernels::max_pool2d(const MaxPool2dArgs& args, Stream) {
  Launcher l{this};
  dispatch_max_pool2d(l, args);
}

void EmulatedKernels::max_pool2d_backward(const MaxPool2dArgs& args, Stream) {
  Launcher l{this};
  dispatch_max_pool2d_backward(l, args);
}

// ---- scans and products (issue 32, cuda-reduce) ----
void EmulatedKernels::scan(const ScanArgs& args, Stream) {
  Launcher l{this};
  dispatch_scan(l, args);
}

// ---- softplus and the elementwise losses (cuda-sort-loss) -------------------
void EmulatedKernels::loss_map(LossKernel op, const LossMapArgs& args, Stream) {
  Launcher l{this};
  dispatch_loss_map(l, op, args);
}

void EmulatedKernels::sort_slices(const SortSlicesArgs& args, Stream) {
  Launcher l{this};
  dispatch_sort_slices(l, args);
}

// ---- the scatter / index family ----------------------------------------------

void EmulatedKernels::scatter_reduce(const ScatterReduceArgs& args, Stream) {
  Launcher l{this};
  dispatch_scatter_reduce(l, args);
}

void EmulatedKernels::nonzero_blocks(const NonzeroArgs& args, Stream) {
  Launcher l{this};
  dispatch_nonzero_blocks(l, args);
}

}  // namespace tsr::gpu
