// CudaKernels::gemm: one cublasGemmStridedBatchedEx call with the
// arguments gemm_mapping.h derives (no copies), on the stream's
// cudaStream_t; k == 0 scales C with an elementwise kernel instead.
#include <cublas_v2.h>

#include <mutex>
#include <vector>

#include "kernels/cuda_kernels.h"
#include "kernels/cuda_launch.cuh"
#include "kernels/gemm_mapping.h"
#include "kernels/gemm_zero_k.h"

namespace tsr::cuda {

namespace {

void check_cublas(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    fail(TSR_ERR_INTERNAL, "cuBLAS ", what, " failed: ", cublasGetStatusName(st), " (",
         cublasGetStatusString(st), ")");
}

// One handle per device, created on the device's first gemm and kept for
// the process (cuBLAS handles are bound to the device current at creation).
cublasHandle_t handle_for(int device) {
  static std::mutex mu;
  static std::vector<cublasHandle_t> handles;
  std::lock_guard<std::mutex> lock(mu);
  if (size_t(device) >= handles.size()) handles.resize(size_t(device) + 1, nullptr);
  if (!handles[size_t(device)]) {
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    handles[size_t(device)] = h;
  }
  return handles[size_t(device)];
}

}  // namespace

void CudaKernels::gemm(const GemmArgs& args, Stream s) {
  gpu::check_gemm_dtype(args);
  const gpu::GemmMapping m = gpu::map_gemm(args);
  if (m.kind == gpu::GemmMapping::Refused) fail(m.status, "gemm: ", m.why);
  if (m.kind == gpu::GemmMapping::Empty) return;
  CudaLauncher l(s);
  if (m.kind == gpu::GemmMapping::ZeroK) return gpu::gemm_zero_k(l, args);
  const gpu::ColumnMajorGemm& g = m.gemm;
  const cublasHandle_t h = handle_for(s.device.index);
  check_cublas(cublasSetStream(h, l.stream()), "cublasSetStream");
  const cublasOperation_t ta = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (args.dtype == TSR_FLOAT64) {
    const double alpha = args.alpha, beta = args.beta;
    check_cublas(cublasGemmStridedBatchedEx(h, ta, tb, g.m, g.n, g.k, &alpha, g.a, CUDA_R_64F, g.lda,
                                            g.stride_a, g.b, CUDA_R_64F, g.ldb, g.stride_b, &beta, g.c,
                                            CUDA_R_64F, g.ldc, g.stride_c, g.batch, CUBLAS_COMPUTE_64F,
                                            CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx (float64)");
    return;
  }
  // float32, and float16/bfloat16 on tensor cores: products summed in
  // float32, C rounded once (torch's cublasGemmEx call for Half/BFloat16,
  // CUBLAS_COMPUTE_32F).
  const cudaDataType_t type = args.dtype == TSR_FLOAT32   ? CUDA_R_32F
                              : args.dtype == TSR_FLOAT16 ? CUDA_R_16F
                                                          : CUDA_R_16BF;
  const float alpha = float(args.alpha), beta = float(args.beta);
  check_cublas(cublasGemmStridedBatchedEx(h, ta, tb, g.m, g.n, g.k, &alpha, g.a, type, g.lda, g.stride_a, g.b,
                                          type, g.ldb, g.stride_b, &beta, g.c, type, g.ldc, g.stride_c, g.batch,
                                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
}

}  // namespace tsr::cuda
