// gemm_mapping.h: the column-major cuBLAS arguments of a row-major
// GemmArgs, checked by handing exactly those arguments to OpenBLAS's
// column-major cblas_sgemm/cblas_dgemm (per batch) and comparing with a
// row-major reference; the refusals; EmulatedKernels::gemm.
#include <cblas.h>

#include "emulator/emulated_kernels.h"
#include "emulator_test_util.h"
#include "kernels/gemm_mapping.h"

namespace tsr::gpu::test {
namespace {

// A row-major problem in one buffer per operand: A[i] (m x k), B[i]
// (k x n) with any strides, C[i] (m x n) with row stride ldc.
struct Problem {
  int64_t batch, m, n, k;
  int64_t ars, acs, abs, brs, bcs, bbs, crs, cbs;
};

template <typename T>
std::vector<T> filled(size_t n, int seed) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(double(int64_t((i * 37 + size_t(seed) * 11) % 19) - 9) / 4.0);
  return v;
}

int64_t span(int64_t batch, int64_t bs, int64_t r, int64_t rs, int64_t c, int64_t cs) {
  return (batch - 1) * bs + (r - 1) * rs + (c - 1) * cs + 1;
}

template <typename T>
void check_problem(const Problem& p, double alpha, double beta) {
  const tsr_dtype dt = sizeof(T) == 4 ? TSR_FLOAT32 : TSR_FLOAT64;
  std::vector<T> a = filled<T>(size_t(span(p.batch, p.abs, p.m, p.ars, p.k, p.acs)), 1);
  std::vector<T> b = filled<T>(size_t(span(p.batch, p.bbs, p.k, p.brs, p.n, p.bcs)), 2);
  std::vector<T> c0 = filled<T>(size_t(span(p.batch, p.cbs, p.m, p.crs, p.n, 1)), 3);
  // Row-major reference in double.
  std::vector<double> want(c0.begin(), c0.end());
  for (int64_t q = 0; q < p.batch; ++q)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < p.k; ++l)
          s += double(a[size_t(q * p.abs + i * p.ars + l * p.acs)]) * double(b[size_t(q * p.bbs + l * p.brs + j * p.bcs)]);
        double& o = want[size_t(q * p.cbs + i * p.crs + j)];
        o = alpha * s + beta * o;
      }
  std::vector<T> c = c0;
  const GemmArgs args{dt, p.batch, p.m, p.n, p.k, a.data(), p.ars, p.acs, p.abs, b.data(), p.brs, p.bcs, p.bbs,
                      c.data(), p.crs, p.cbs, alpha, beta};
  const GemmMapping m = map_gemm(args);
  ASSERT_EQ(m.kind, GemmMapping::Call) << (m.why ? m.why : "");
  const ColumnMajorGemm& g = m.gemm;
  EXPECT_EQ(g.m, p.n);
  EXPECT_EQ(g.n, p.m);
  for (int32_t q = 0; q < g.batch; ++q) {
    const T* qa = static_cast<const T*>(g.a) + q * g.stride_a;
    const T* qb = static_cast<const T*>(g.b) + q * g.stride_b;
    T* qc = static_cast<T*>(g.c) + q * g.stride_c;
    const auto ta = g.trans_a ? CblasTrans : CblasNoTrans, tb = g.trans_b ? CblasTrans : CblasNoTrans;
    if constexpr (sizeof(T) == 4)
      cblas_sgemm(CblasColMajor, ta, tb, g.m, g.n, g.k, float(alpha), qa, g.lda, qb, g.ldb, float(beta), qc, g.ldc);
    else
      cblas_dgemm(CblasColMajor, ta, tb, g.m, g.n, g.k, alpha, qa, g.lda, qb, g.ldb, beta, qc, g.ldc);
  }
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (size_t i = 0; i < c.size(); ++i)
    ASSERT_NEAR(double(c[i]), want[i], tol * (1 + std::fabs(want[i]))) << "element " << i;
  // The emulator runs the same mapping through its own column-major loop.
  std::vector<T> e = c0;
  GemmArgs eargs = args;
  eargs.c = e.data();
  EmulatedKernels k;
  k.gemm(eargs, kNoStream);
  for (size_t i = 0; i < e.size(); ++i)
    ASSERT_NEAR(double(e[i]), want[i], tol * (1 + std::fabs(want[i]))) << "emulated element " << i;
}

template <typename T>
void check_all() {
  // batch, m, n, k, A (rs, cs, bs), B (rs, cs, bs), C (rs, bs)
  check_problem<T>({1, 3, 4, 5, 5, 1, 0, 4, 1, 0, 4, 0}, 1, 0);            // contiguous
  check_problem<T>({1, 3, 4, 5, 1, 3, 0, 4, 1, 0, 4, 0}, 1, 0);            // A transposed
  check_problem<T>({1, 3, 4, 5, 5, 1, 0, 1, 5, 0, 4, 0}, 1, 0);            // B transposed
  check_problem<T>({1, 3, 4, 5, 1, 3, 0, 1, 5, 0, 4, 0}, 2, 0);            // both, alpha
  check_problem<T>({1, 3, 4, 5, 9, 1, 0, 7, 1, 0, 6, 0}, 1, 0.5);          // sliced (ld > cols), beta
  check_problem<T>({3, 3, 4, 5, 5, 1, 0, 4, 1, 20, 4, 12}, 1, 0);          // A broadcast over batch
  check_problem<T>({3, 2, 3, 4, 1, 2, 8, 3, 1, 0, 5, 10}, -1, 1);          // B broadcast, A transposed
  check_problem<T>({2, 1, 1, 6, 6, 1, 6, 1, 1, 6, 1, 1}, 1, 0);            // vector dot products
  check_problem<T>({1, 4, 1, 3, 3, 1, 0, 1, 1, 0, 1, 0}, 1, 0);            // n == 1, B's strides (1, 1)
}

TEST(GemmMapping, AgreesWithColumnMajorBlas) {
  check_all<float>();
  check_all<double>();
}

GemmArgs plain(float* a, float* b, float* c) {
  return GemmArgs{TSR_FLOAT32, 1, 2, 3, 4, a, 4, 1, 0, b, 3, 1, 0, c, 3, 0, 1.0, 0.0};
}

TEST(GemmMapping, Refusals) {
  float a[8] = {}, b[12] = {}, c[6] = {};
  GemmArgs g = plain(a, b, c);
  g.a_row_stride = 2;  // rows overlap: ld 2 < 4 columns, and no unit row stride
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::Refused);
  EXPECT_EQ(map_gemm(g).status, TSR_ERR_INVALID_ARGUMENT);
  g = plain(a, b, c);
  g.b_row_stride = 2;
  g.b_col_stride = 2;  // no unit stride
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::Refused);
  g = plain(a, b, c);
  g.c_row_stride = 2;  // C's rows overlap
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::Refused);
  g = plain(a, b, c);
  g.m = -1;
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::Refused);
  g = plain(a, b, c);
  g.a_batch_stride = -4;
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::Refused);
  g = plain(a, b, c);
  g.n = int64_t(1) << 31;  // past the 32-bit API
  g.b_row_stride = g.n;
  g.c_row_stride = g.n;
  const GemmMapping big = map_gemm(g);
  EXPECT_EQ(big.kind, GemmMapping::Refused);
  EXPECT_EQ(big.status, TSR_ERR_UNSUPPORTED);
  g = plain(a, b, c);
  g.a_row_stride = int64_t(1) << 32;  // a leading dimension past 2^31 - 1
  EXPECT_EQ(map_gemm(g).status, TSR_ERR_UNSUPPORTED);
  g = plain(a, b, c);
  g.m = 0;
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::Empty);
  g = plain(a, b, c);
  g.k = 0;
  EXPECT_EQ(map_gemm(g).kind, GemmMapping::ZeroK);
}

TEST(EmulatedGemm, ZeroKScalesOrZeroesC) {
  float a[1] = {}, b[1] = {};
  float c[6] = {NAN, 1, 2, 3, 4, 5};
  GemmArgs g = plain(a, b, c);
  g.k = 0;
  EmulatedKernels k;
  k.gemm(g, kNoStream);  // beta 0: C is not read, NaN does not survive
  for (float v : c) EXPECT_EQ(v, 0.0f);
  for (int i = 0; i < 6; ++i) c[i] = float(i);
  g.beta = 2;
  k.gemm(g, kNoStream);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c[i], 2.0f * float(i));
}

// float16/bfloat16 as cuBLAS with CUBLAS_COMPUTE_32F: products summed in
// float32, C rounded once. 4096 ones: a float16 or bfloat16 sum would stop
// at 2048 or 256 (x + 1 == x there); float32 reaches 4096, which both
// formats hold exactly.
template <typename T>
void check_low_precision_gemm(tsr_dtype dtype) {
  const int64_t k = 4096;
  std::vector<T> a(size_t(k), T(1.0f)), b(size_t(k), T(1.0f));
  std::vector<T> c(1, T(5.0f));
  GemmArgs g{dtype, 1, 1, 1, k, a.data(), k, 1, 0, b.data(), 1, 1, 0, c.data(), 1, 0, 1.0, 0.0};
  EmulatedKernels kernels;
  kernels.gemm(g, kNoStream);
  EXPECT_EQ(float(c[0]), 4096.0f);
  // A mixed problem against a float32 reference rounded once.
  std::vector<T> x = filled<T>(12, 1), y = filled<T>(20, 2), z = filled<T>(15, 3), z0 = z;
  GemmArgs h{dtype, 1, 3, 5, 4, x.data(), 4, 1, 0, y.data(), 5, 1, 0, z.data(), 5, 0, 1.5, 0.5};
  kernels.gemm(h, kNoStream);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      float s = 0;
      for (int64_t l = 0; l < 4; ++l) s += float(x[size_t(i * 4 + l)]) * float(y[size_t(l * 5 + j)]);
      const T want = T(1.5f * s + 0.5f * float(z0[size_t(i * 5 + j)]));
      EXPECT_EQ(float(z[size_t(i * 5 + j)]), float(want)) << "element " << i << "," << j;
    }
}

TEST(EmulatedGemm, HalfAndBFloat16SumInFloat32) {
  check_low_precision_gemm<Half>(TSR_FLOAT16);
  check_low_precision_gemm<BFloat16>(TSR_BFLOAT16);
}

TEST(EmulatedGemm, ErrorsChangeNothing) {
  float a[8] = {}, b[12] = {}, c[6] = {7, 7, 7, 7, 7, 7};
  EmulatedKernels k;
  GemmArgs g = plain(a, b, c);
  g.dtype = TSR_INT32;
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.gemm(g, kNoStream); });
  g = plain(a, b, c);
  g.a_row_stride = 2;
  expect_error(TSR_ERR_INVALID_ARGUMENT, [&] { k.gemm(g, kNoStream); });
  g = plain(a, b, c);
  g.n = int64_t(1) << 31;
  g.b_row_stride = g.c_row_stride = g.n;
  expect_error(TSR_ERR_UNSUPPORTED, [&] { k.gemm(g, kNoStream); });
  for (float v : c) EXPECT_EQ(v, 7.0f);
  EXPECT_TRUE(k.launches().empty());
}

}  // namespace
}  // namespace tsr::gpu::test
