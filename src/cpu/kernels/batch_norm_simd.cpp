// Highway kernels of batch_norm_simd.h; see reduce_simd.cpp for the dispatch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/batch_norm_simd.cpp"
#include "cpu/kernels/simd_targets.h"  // before Highway's headers
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>

#include "cpu/kernels/batch_norm_simd.h"
#include "cpu/kernels/bf16_simd-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each kernel reads and writes arrays of a storage type S (float, double,
// or bfloat16) and computes in T = Compute<S> (float for bfloat16):
// bfloat16 widened in registers, rounded once on the store
// (bf16_simd-inl.h). The lanes, the order of the operations and the
// scalar tails are those of the float kernel, so a bfloat16 array gives
// bit for bit what the float kernel gives on it widened, rounded once.

// Two vector accumulators per sum halve the add chain's latency on runs of
// a few hundred elements (a 28x28 plane is 49 AVX2 vectors).
template <typename S>
double Sum(const S* HWY_RESTRICT x, int64_t n) {
  using T = Compute<S>;
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    s0 = hn::Add(s0, LoadAs(d, x + i));
    s1 = hn::Add(s1, LoadAs(d, x + i + N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, LoadAs(d, x + i));
  double total = double(hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1))));
  for (; i < n; ++i) total += double(T(x[i]));
  return total;
}

template <typename S>
double CenteredSquareSum(const S* HWY_RESTRICT x, int64_t n, double mean) {
  using T = Compute<S>;
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto m = hn::Set(d, T(mean));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto a = hn::Sub(LoadAs(d, x + i), m), b = hn::Sub(LoadAs(d, x + i + N), m);
    s0 = hn::MulAdd(a, a, s0);
    s1 = hn::MulAdd(b, b, s1);
  }
  for (; i + N <= n; i += N) {
    const auto a = hn::Sub(LoadAs(d, x + i), m);
    s0 = hn::MulAdd(a, a, s0);
  }
  double total = double(hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1))));
  for (; i < n; ++i) {
    const double v = double(T(x[i])) - mean;
    total += v * v;
  }
  return total;
}

template <typename S>
void Affine(const S* x, S* y, int64_t n, double alpha, double beta) {
  using T = Compute<S>;
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T a = T(alpha), b = T(beta);
  const auto va = hn::Set(d, a), vb = hn::Set(d, b);
  int64_t i = 0;
  for (; i + N <= n; i += N) StoreAs(hn::MulAdd(LoadAs(d, x + i), va, vb), d, y + i);
  for (; i < n; ++i) y[i] = S(T(x[i]) * a + b);
}

template <typename S>
void GradSums(const S* HWY_RESTRICT g, const S* HWY_RESTRICT x, int64_t n, double mean, double& g_sum,
              double& dot) {
  using T = Compute<S>;
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto m = hn::Set(d, T(mean));
  auto gs = hn::Zero(d), ds = hn::Zero(d);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto gv = LoadAs(d, g + i);
    gs = hn::Add(gs, gv);
    ds = hn::MulAdd(hn::Sub(LoadAs(d, x + i), m), gv, ds);
  }
  double gt = double(hn::GetLane(hn::SumOfLanes(d, gs)));
  double dt = double(hn::GetLane(hn::SumOfLanes(d, ds)));
  for (; i < n; ++i) {
    gt += double(T(g[i]));
    dt += (double(T(x[i])) - mean) * double(T(g[i]));
  }
  g_sum += gt;
  dot += dt;
}

template <typename S>
void InputGrad(const S* g, const S* x, S* gx, int64_t n, double a, double b, double c) {
  using T = Compute<S>;
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T ta = T(a), tb = T(b), tc = T(c);
  const auto va = hn::Set(d, ta), vb = hn::Set(d, tb), vc = hn::Set(d, tc);
  int64_t i = 0;
  for (; i + N <= n; i += N)
    StoreAs(hn::MulAdd(LoadAs(d, g + i), va, hn::MulAdd(LoadAs(d, x + i), vb, vc)), d, gx + i);
  for (; i < n; ++i) gx[i] = S(T(g[i]) * ta + (T(x[i]) * tb + tc));
}

// ---- rows of C channels, vectorized across the channels; the channels past
// the last whole vector go through a padded copy of one vector's width so
// no lane reads past a row. The per-channel arrays (acc, mean, alpha, ...)
// are of the compute type T, the rows of the storage type S.

// The per-block lambdas below are inlined by force: GCC left the bfloat16
// ones (larger, with their conversions) as calls per 8 channels, which
// made the bfloat16 transform slower than the float32 one.
#ifndef TSR_LAMBDA_INLINE
#define TSR_LAMBDA_INLINE __attribute__((always_inline))
#endif

// f(c, lanes): for each block of channels starting at c, `lanes` valid
// lanes (N, or fewer for the last block).
template <class D, typename F>
HWY_INLINE void ForChannelBlocks(D d, int64_t C, F&& f) {
  const int64_t N = int64_t(hn::Lanes(d));
  for (int64_t c = 0; c < C; c += N) f(c, std::min<int64_t>(N, C - c));
}
// The first `lanes` elements at p (zeros after them), through a buffer
// when fewer than a vector: Highway 1.0.3 has no LoadN, and its MaskedLoad
// may read the whole vector on targets without masked loads.
template <class D, typename P>
HWY_INLINE hn::Vec<D> LoadPart(D d, const P* p, int64_t lanes) {
  if (lanes == int64_t(hn::Lanes(d))) return LoadAs(d, p);
  HWY_ALIGN P buf[hn::MaxLanes(d)] = {};
  for (int64_t i = 0; i < lanes; ++i) buf[i] = p[i];
  return LoadAs(d, buf);
}
template <class D, typename P>
HWY_INLINE void StorePart(hn::Vec<D> v, D d, P* p, int64_t lanes) {
  if (lanes == int64_t(hn::Lanes(d))) return StoreAs(v, d, p);
  HWY_ALIGN P buf[hn::MaxLanes(d)];
  StoreAs(v, d, buf);
  for (int64_t i = 0; i < lanes; ++i) p[i] = buf[i];
}

// The sums over rows: each block's lanes take the rows two at a time,
// acc = (acc + term(row r)) + term(row r + 1) started from zero (the
// order every lane keeps, whatever the grouping below). Up to kGroup whole
// blocks keep their sums in registers over all the rows (independent add
// chains, no store-to-load round trip through acc per row pair); a last
// partial block goes row by row through acc's padded copy.
constexpr int64_t kGroup = 4;

template <int64_t K, class D, typename T, typename Term>
HWY_INLINE void RowsAccumulateBlocks(D d, int64_t rows, int64_t C, int64_t c0, T* acc, Term& term) {
  const int64_t N = int64_t(hn::Lanes(d));
  // Unrolled by force: GCC otherwise keeps s[] on the stack.
  hn::Vec<D> s[K];
  HWY_UNROLL(4)
  for (int64_t k = 0; k < K; ++k) s[k] = hn::LoadU(d, acc + c0 + k * N);
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    HWY_UNROLL(4)
    for (int64_t k = 0; k < K; ++k) {
      const int64_t c = c0 + k * N;
      s[k] = hn::Add(term(s[k], r * C + c, c, N), term(hn::Zero(d), (r + 1) * C + c, c, N));
    }
  }
  for (; r < rows; ++r) {
    HWY_UNROLL(4)
    for (int64_t k = 0; k < K; ++k) s[k] = term(s[k], r * C + c0 + k * N, c0 + k * N, N);
  }
  HWY_UNROLL(4)
  for (int64_t k = 0; k < K; ++k) hn::StoreU(s[k], d, acc + c0 + k * N);
}

template <class D, typename T, typename Term>
HWY_INLINE void RowsAccumulate(D d, int64_t rows, int64_t C, T* acc, Term&& term) {
  const int64_t N = int64_t(hn::Lanes(d));
  int64_t c = 0;
  for (; c + kGroup * N <= C; c += kGroup * N) RowsAccumulateBlocks<kGroup>(d, rows, C, c, acc, term);
  for (; c + N <= C; c += N) RowsAccumulateBlocks<1>(d, rows, C, c, acc, term);
  if (c == C) return;
  const int64_t lanes = C - c;
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    auto s = LoadPart(d, acc + c, lanes);
    s = hn::Add(term(s, r * C + c, c, lanes), term(hn::Zero(d), (r + 1) * C + c, c, lanes));
    StorePart(s, d, acc + c, lanes);
  }
  for (; r < rows; ++r) StorePart(term(LoadPart(d, acc + c, lanes), r * C + c, c, lanes), d, acc + c, lanes);
}

template <typename S, typename T = Compute<S>>
void RowsSum(const S* HWY_RESTRICT x, int64_t rows, int64_t C, T* HWY_RESTRICT acc) {
  const hn::ScalableTag<T> d;
  RowsAccumulate(d, rows, C, acc, [&](auto s, int64_t o, int64_t, int64_t lanes) TSR_LAMBDA_INLINE { return hn::Add(s, LoadPart(d, x + o, lanes)); });
}

template <typename S, typename T = Compute<S>>
void RowsCenteredSquareSum(const S* HWY_RESTRICT x, int64_t rows, int64_t C, const T* mean, T* HWY_RESTRICT acc) {
  const hn::ScalableTag<T> d;
  RowsAccumulate(d, rows, C, acc, [&](auto s, int64_t o, int64_t c, int64_t lanes) TSR_LAMBDA_INLINE {
    const auto v = hn::Sub(LoadPart(d, x + o, lanes), LoadPart(d, mean + c, lanes));
    return hn::MulAdd(v, v, s);
  });
}

// The maps walk rows in memory order, each row's blocks in turn.
template <typename S, typename T = Compute<S>>
void RowsAffine(const S* x, S* y, int64_t rows, int64_t C, const T* alpha, const T* beta) {
  const hn::ScalableTag<T> d;
  for (int64_t r = 0; r < rows; ++r)
    ForChannelBlocks(d, C, [&](int64_t c, int64_t lanes) TSR_LAMBDA_INLINE {
      const int64_t o = r * C + c;
      StorePart(hn::MulAdd(LoadPart(d, x + o, lanes), LoadPart(d, alpha + c, lanes), LoadPart(d, beta + c, lanes)),
                d, y + o, lanes);
    });
}

template <typename S, typename T = Compute<S>>
void RowsGradSums(const S* HWY_RESTRICT g, const S* HWY_RESTRICT x, int64_t rows, int64_t C, const T* mean,
                  T* g_sum, T* dot) {
  const hn::ScalableTag<T> d;
  RowsAccumulate(d, rows, C, g_sum, [&](auto s, int64_t o, int64_t, int64_t lanes) TSR_LAMBDA_INLINE { return hn::Add(s, LoadPart(d, g + o, lanes)); });
  RowsAccumulate(d, rows, C, dot, [&](auto s, int64_t o, int64_t c, int64_t lanes) TSR_LAMBDA_INLINE {
    const auto v = hn::Sub(LoadPart(d, x + o, lanes), LoadPart(d, mean + c, lanes));
    return hn::MulAdd(v, LoadPart(d, g + o, lanes), s);
  });
}

template <typename S, typename T = Compute<S>>
void RowsInputGrad(const S* g, const S* x, S* gx, int64_t rows, int64_t C, const T* a, const T* b, const T* k) {
  const hn::ScalableTag<T> d;
  for (int64_t r = 0; r < rows; ++r)
    ForChannelBlocks(d, C, [&](int64_t c, int64_t lanes) TSR_LAMBDA_INLINE {
      const int64_t o = r * C + c;
      const auto xb = hn::MulAdd(LoadPart(d, x + o, lanes), LoadPart(d, b + c, lanes), LoadPart(d, k + c, lanes));
      StorePart(hn::MulAdd(LoadPart(d, g + o, lanes), LoadPart(d, a + c, lanes), xb), d, gx + o, lanes);
    });
}

// One set of exported kernels per storage type S (compute type T).
#define TSR_BN_KERNELS(SUFFIX, S, T)                                                                         \
  double Sum##SUFFIX(const S* x, int64_t n) { return Sum(x, n); }                                            \
  double CenteredSquareSum##SUFFIX(const S* x, int64_t n, double m) { return CenteredSquareSum(x, n, m); }   \
  void Affine##SUFFIX(const S* x, S* y, int64_t n, double a, double b) { Affine(x, y, n, a, b); }            \
  void GradSums##SUFFIX(const S* g, const S* x, int64_t n, double m, double& gs, double& dot) {              \
    GradSums(g, x, n, m, gs, dot);                                                                           \
  }                                                                                                          \
  void InputGrad##SUFFIX(const S* g, const S* x, S* gx, int64_t n, double a, double b, double c) {           \
    InputGrad(g, x, gx, n, a, b, c);                                                                         \
  }                                                                                                          \
  void RowsSum##SUFFIX(const S* x, int64_t rows, int64_t C, T* acc) { RowsSum(x, rows, C, acc); }            \
  void RowsCenteredSquareSum##SUFFIX(const S* x, int64_t rows, int64_t C, const T* m, T* acc) {              \
    RowsCenteredSquareSum(x, rows, C, m, acc);                                                               \
  }                                                                                                          \
  void RowsAffine##SUFFIX(const S* x, S* y, int64_t rows, int64_t C, const T* a, const T* b) {               \
    RowsAffine(x, y, rows, C, a, b);                                                                         \
  }                                                                                                          \
  void RowsGradSums##SUFFIX(const S* g, const S* x, int64_t rows, int64_t C, const T* m, T* gs, T* dot) {    \
    RowsGradSums(g, x, rows, C, m, gs, dot);                                                                 \
  }                                                                                                          \
  void RowsInputGrad##SUFFIX(const S* g, const S* x, S* gx, int64_t rows, int64_t C, const T* a, const T* b, \
                             const T* k) {                                                                   \
    RowsInputGrad(g, x, gx, rows, C, a, b, k);                                                               \
  }
TSR_BN_KERNELS(F32, float, float)
TSR_BN_KERNELS(F64, double, double)
TSR_BN_KERNELS(BF16, BFloat16, float)
#undef TSR_BN_KERNELS

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

#define TSR_BN_DISPATCH(SUFFIX, S, T)                                                                         \
  HWY_EXPORT(Sum##SUFFIX);                                                                                   \
  HWY_EXPORT(CenteredSquareSum##SUFFIX);                                                                     \
  HWY_EXPORT(Affine##SUFFIX);                                                                                \
  HWY_EXPORT(GradSums##SUFFIX);                                                                              \
  HWY_EXPORT(InputGrad##SUFFIX);                                                                             \
  HWY_EXPORT(RowsSum##SUFFIX);                                                                               \
  HWY_EXPORT(RowsCenteredSquareSum##SUFFIX);                                                                 \
  HWY_EXPORT(RowsAffine##SUFFIX);                                                                            \
  HWY_EXPORT(RowsGradSums##SUFFIX);                                                                          \
  HWY_EXPORT(RowsInputGrad##SUFFIX);                                                                         \
  double bn_sum(const S* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(Sum##SUFFIX)(x, n); }                   \
  double bn_centered_square_sum(const S* x, int64_t n, double mean) {                                        \
    return HWY_DYNAMIC_DISPATCH(CenteredSquareSum##SUFFIX)(x, n, mean);                                      \
  }                                                                                                          \
  void bn_affine(const S* x, S* y, int64_t n, double alpha, double beta) {                                   \
    HWY_DYNAMIC_DISPATCH(Affine##SUFFIX)(x, y, n, alpha, beta);                                              \
  }                                                                                                          \
  void bn_grad_sums(const S* g, const S* x, int64_t n, double mean, double& g_sum, double& dot) {            \
    HWY_DYNAMIC_DISPATCH(GradSums##SUFFIX)(g, x, n, mean, g_sum, dot);                                       \
  }                                                                                                          \
  void bn_input_grad(const S* g, const S* x, S* gx, int64_t n, double a, double b, double c) {               \
    HWY_DYNAMIC_DISPATCH(InputGrad##SUFFIX)(g, x, gx, n, a, b, c);                                           \
  }                                                                                                          \
  void bn_rows_sum(const S* x, int64_t rows, int64_t C, T* acc) {                                            \
    HWY_DYNAMIC_DISPATCH(RowsSum##SUFFIX)(x, rows, C, acc);                                                  \
  }                                                                                                          \
  void bn_rows_centered_square_sum(const S* x, int64_t rows, int64_t C, const T* mean, T* acc) {             \
    HWY_DYNAMIC_DISPATCH(RowsCenteredSquareSum##SUFFIX)(x, rows, C, mean, acc);                              \
  }                                                                                                          \
  void bn_rows_affine(const S* x, S* y, int64_t rows, int64_t C, const T* alpha, const T* beta) {            \
    HWY_DYNAMIC_DISPATCH(RowsAffine##SUFFIX)(x, y, rows, C, alpha, beta);                                    \
  }                                                                                                          \
  void bn_rows_grad_sums(const S* g, const S* x, int64_t rows, int64_t C, const T* mean, T* g_sum, T* dot) { \
    HWY_DYNAMIC_DISPATCH(RowsGradSums##SUFFIX)(g, x, rows, C, mean, g_sum, dot);                             \
  }                                                                                                          \
  void bn_rows_input_grad(const S* g, const S* x, S* gx, int64_t rows, int64_t C, const T* a, const T* b,    \
                          const T* k) {                                                                      \
    HWY_DYNAMIC_DISPATCH(RowsInputGrad##SUFFIX)(g, x, gx, rows, C, a, b, k);                                 \
  }
TSR_BN_DISPATCH(F32, float, float)
TSR_BN_DISPATCH(F64, double, double)
TSR_BN_DISPATCH(BF16, BFloat16, float)
#undef TSR_BN_DISPATCH

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
