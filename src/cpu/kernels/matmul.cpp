#include "cpu/kernels/matmul.h"

#include <cblas.h>

#include <algorithm>

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/views.h"
#include "cpu/dnnl/dnnl_matmul.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/threads.h"

namespace tsr::kernels {

namespace {

// A gemm is split over threads in blocks of output rows, one BLAS call each,
// cut so that every element comes out as with one thread, whatever the
// thread count. OpenBLAS computes a row-major product as the column-major
// C^T = B^T A^T, so our rows are its columns, and two things there depend
// on how the rows are cut:
// - its kernels take the columns in groups of their unroll (4, 8, 16 or 24,
//   and 12 in the Haswell and Zen sgemm kernels, which OPENBLAS_CORETYPE
//   selects), with other code for a short last group: cuts fall on
//   multiples of kGemmRowQuantum, a multiple of every one of them;
// - small products may take other kernels, which round differently (the
//   AVX-512 "direct" sgemm of OpenBLAS builds for SkylakeX and later runs
//   products below 28 * 512 * 512 multiply-adds): every block has at least
//   kGemmMinBlockMacs multiply-adds, above that bound, so a block takes the
//   kernel the whole product takes.
// Measured with Debian's OpenBLAS 0.3.21, OPENBLAS_CORETYPE unset, Haswell,
// Zen, SkylakeX, Sandybridge and Prescott, 1,120 products (5 x 7 x 4 sizes,
// float and double, every transpose) on 2, 3 and 4 threads: every split
// product (576 of each 3,360) matched the one-call product bit for bit; cut
// at multiples of 16 rows instead, 84 (unset) and 284 (Haswell) did not.
// Below 2 * kGemmMinBlockMacs one thread does it all, which costs little:
// 8M multiply-adds take ~0.2-0.4 ms on one core.
constexpr int64_t kGemmRowQuantum = 48;
constexpr int64_t kGemmMinBlockMacs = int64_t{1} << 23;

// A 2-D operand as BLAS wants it: a leading dimension and whether it is
// transposed; copies to contiguous only when neither dim has stride 1.
struct BlasOperand {
  Tensor t;
  bool trans;
  int64_t ld;
};

BlasOperand blas_operand(const Tensor& m) {
  const int64_t rows = m.sizes()[0], cols = m.sizes()[1];
  const int64_t s0 = m.strides()[0], s1 = m.strides()[1];
  if ((s1 == 1 || cols == 1) && s0 >= std::max<int64_t>(1, cols)) return {m, false, s0};
  if ((s0 == 1 || rows == 1) && s1 >= std::max<int64_t>(1, rows)) return {m, true, s1};
  Tensor c = contiguous_copy(m, m.dtype());
  return {c, false, std::max<int64_t>(1, cols)};
}

// out[M,N] (contiguous) = a[M,K] @ b[K,N].
void gemm(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t M = a.sizes()[0], K = a.sizes()[1], N = b.sizes()[1];
  if (M == 0 || N == 0) return;
  if (K == 0) {
    fill(out, 0.0);
    return;
  }
  TSR_CHECK(M <= INT32_MAX && N <= INT32_MAX && K <= INT32_MAX, TSR_ERR_UNSUPPORTED,
            "matmul: dimensions above 2^31-1 are not supported by the BLAS interface");
  BlasOperand A = blas_operand(a), B = blas_operand(b);
  auto ta = A.trans ? CblasTrans : CblasNoTrans, tb = B.trans ? CblasTrans : CblasNoTrans;
  // OpenBLAS runs single-threaded (threads.cpp): rows of the output are
  // split over parallel_for instead, each block one gemm on the rows of a
  // it needs, cut as kGemmRowQuantum says. Row m of a starts at m * ld, or
  // at m when a is read transposed.
  const double row_macs = double(N) * double(K);
  const int64_t tasks =
      std::min<int64_t>(num_threads(), int64_t(double(M) * row_macs / double(kGemmMinBlockMacs)));
  int64_t block = M, blocks = 1;
  if (tasks > 1) {
    block = (M + tasks - 1) / tasks;
    block = (block + kGemmRowQuantum - 1) / kGemmRowQuantum * kGemmRowQuantum;
    blocks = (M + block - 1) / block;
    // A short last block joins the one before it.
    if (blocks > 1 && double(M - (blocks - 1) * block) * row_macs < double(kGemmMinBlockMacs)) --blocks;
  }
  const int64_t a_row_step = A.trans ? 1 : A.ld;
  parallel_for(blocks, 1, [&](int64_t first, int64_t last) {
    const int64_t begin = first * block, end = last == blocks ? M : last * block;
    const int rows = int(end - begin);
    if (out.dtype() == TSR_FLOAT32)
      cblas_sgemm(CblasRowMajor, ta, tb, rows, int(N), int(K), 1.0f,
                  A.t.data<float>() + begin * a_row_step, int(A.ld), B.t.data<float>(), int(B.ld), 0.0f,
                  out.data<float>() + begin * N, int(N));
    else
      cblas_dgemm(CblasRowMajor, ta, tb, rows, int(N), int(K), 1.0,
                  A.t.data<double>() + begin * a_row_step, int(A.ld), B.t.data<double>(), int(B.ld), 0.0,
                  out.data<double>() + begin * N, int(N));
  });
}

[[noreturn]] void size_mismatch(const Shape& a, const Shape& b) {
  fail(TSR_ERR_SHAPE_MISMATCH, "mat1 and mat2 shapes cannot be multiplied (", a, " and ", b, ")");
}

}  // namespace

Shape matmul_sizes(const Shape& a, const Shape& b) {
  TSR_CHECK(!a.empty() && !b.empty(), TSR_ERR_SHAPE_MISMATCH,
            "both arguments to matmul need to be at least 1D, but they are ", a.size(), "D and ",
            b.size(), "D");
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  if (a2.back() != b2[b2.size() - 2]) size_mismatch(a, b);
  Shape batch = broadcast_shapes(Shape(a2.begin(), a2.end() - 2), Shape(b2.begin(), b2.end() - 2));
  Shape out = batch;
  if (a.size() > 1) out.push_back(a2[a2.size() - 2]);
  if (b.size() > 1) out.push_back(b2.back());
  return out;
}

MatmulOperands matmul_operands(const Tensor& a, const Tensor& b) {
  TSR_CHECK(a.device() == b.device(), TSR_ERR_DEVICE_MISMATCH,
            "Expected all tensors to be on the same device");
  TSR_CHECK(a.dtype() == b.dtype(), TSR_ERR_DTYPE_MISMATCH,
            "expected scalar type ", scalar_type_name(a.dtype()), " but found ", scalar_type_name(b.dtype()));
  TSR_CHECK(a.dtype() == TSR_FLOAT32 || a.dtype() == TSR_FLOAT64 || is_16bit_float(a.dtype()),
            TSR_ERR_DTYPE_MISMATCH,
            "matmul supports bfloat16, float16, float32 and float64 in this version, got ", dtype_name(a.dtype()));
  MatmulOperands r;
  r.out_sizes = matmul_sizes(a.sizes(), b.sizes());
  const Tensor a2 = a.ndim() == 1 ? views::unsqueeze(a, 0) : a;
  const Tensor b2 = b.ndim() == 1 ? views::unsqueeze(b, 1) : b;
  r.m = a2.sizes()[a2.ndim() - 2], r.n = b2.sizes().back(), r.k = a2.sizes().back();
  r.batch = Shape(r.out_sizes.begin(),
                  r.out_sizes.begin() + (int64_t(r.out_sizes.size()) - (a.ndim() > 1) - (b.ndim() > 1)));
  Shape ea = r.batch, eb = r.batch;
  r.batched_sizes = r.batch;
  r.batched_sizes.insert(r.batched_sizes.end(), {r.m, r.n});
  ea.insert(ea.end(), {r.m, r.k});
  eb.insert(eb.end(), {r.k, r.n});
  r.a = views::expand_or_self(a2, ea);
  r.b = views::expand_or_self(b2, eb);
  return r;
}

namespace {

// The batched product of matmul_operands' views in out (contiguous
// [batch..., m, n], float32 or float64, of a's dtype), one gemm per batch
// index.
void batched_gemm(const Tensor& out, const MatmulOperands& mm) {
  const Shape& batch = mm.batch;
  int64_t nbatch = checked_numel(batch);
  // Walk the batch with flat indices, selecting one 2-D slice at a time.
  for (int64_t i = 0; i < nbatch; ++i) {
    Tensor as = mm.a, bs = mm.b, os = out;
    int64_t rem = i;
    for (int64_t d = int64_t(batch.size()) - 1; d >= 0; --d) {
      int64_t idx = rem % batch[d];
      rem /= batch[d];
      as = views::select(as, d, idx);
      bs = views::select(bs, d, idx);
      os = views::select(os, d, idx);
    }
    gemm(os, as, bs);
  }
}

// matmul's result (out_sizes) from the batched one.
Tensor unbatched(const Tensor& out, const MatmulOperands& mm) {
  if (out.sizes() == mm.out_sizes) return out;  // 2-D: no view (a TensorImpl, an allocation) needed
  return make_view(out, mm.out_sizes, contiguous_strides(mm.out_sizes), 0);
}

// The product of bfloat16/float16 operands: float32 sums of their exact
// products, in out_dtype (float32, or a's dtype: rounded once). bfloat16
// through oneDNN's AVX512_BF16 kernels; float16 (no AVX512-FP16 kernel in
// oneDNN 2.6, and torch 2.x's CPU float16 matmul accumulates in float32)
// and bfloat16 where oneDNN declines: the operands converted to float32,
// the float32 gemm (thread-count independent as above).
Tensor lowp_matmul(const Tensor& a, const Tensor& b, tsr_dtype out_dtype) {
  const MatmulOperands mm = matmul_operands(a, b);
  Tensor out = empty_cpu(mm.batched_sizes, out_dtype);
  if (out.numel() == 0) return unbatched(out, mm);
  if (mm.k == 0) {
    fill(out, 0.0);
    return unbatched(out, mm);
  }
  if (a.dtype() == TSR_BFLOAT16 && onednn::matmul_bf16(out, mm.a, mm.b, Tensor())) return unbatched(out, mm);
  // The operands converted before matmul_operands expands them, so that a
  // broadcast operand is converted once.
  const MatmulOperands wide = matmul_operands(converted(a, TSR_FLOAT32), converted(b, TSR_FLOAT32));
  Tensor sums = out_dtype == TSR_FLOAT32 ? out : empty_cpu(mm.batched_sizes, TSR_FLOAT32);
  batched_gemm(sums, wide);
  if (out_dtype != TSR_FLOAT32) copy_strided(out, sums);
  return unbatched(out, mm);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (is_16bit_float(a.dtype()) && a.dtype() == b.dtype()) return lowp_matmul(a, b, a.dtype());
  const MatmulOperands mm = matmul_operands(a, b);
  Tensor out = empty_cpu(mm.batched_sizes, a.dtype());
  batched_gemm(out, mm);
  return unbatched(out, mm);
}

Tensor matmul_float32(const Tensor& a, const Tensor& b) {
  TSR_CHECK(is_16bit_float(a.dtype()), TSR_ERR_INTERNAL, "matmul_float32 called for ", dtype_name(a.dtype()));
  return lowp_matmul(a, b, TSR_FLOAT32);
}

}  // namespace tsr::kernels
