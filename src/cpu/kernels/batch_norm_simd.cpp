// Highway kernels of batch_norm_simd.h; see reduce_simd.cpp for the dispatch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/batch_norm_simd.cpp"
#include "cpu/kernels/simd_targets.h"  // before Highway's headers
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>

#include "cpu/kernels/batch_norm_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Two vector accumulators per sum halve the add chain's latency on runs of
// a few hundred elements (a 28x28 plane is 49 AVX2 vectors).
template <typename T>
double Sum(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, x + i));
    s1 = hn::Add(s1, hn::LoadU(d, x + i + N));
  }
  for (; i + N <= n; i += N) s0 = hn::Add(s0, hn::LoadU(d, x + i));
  double total = double(hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1))));
  for (; i < n; ++i) total += double(x[i]);
  return total;
}

template <typename T>
double CenteredSquareSum(const T* HWY_RESTRICT x, int64_t n, double mean) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto m = hn::Set(d, T(mean));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto a = hn::Sub(hn::LoadU(d, x + i), m), b = hn::Sub(hn::LoadU(d, x + i + N), m);
    s0 = hn::MulAdd(a, a, s0);
    s1 = hn::MulAdd(b, b, s1);
  }
  for (; i + N <= n; i += N) {
    const auto a = hn::Sub(hn::LoadU(d, x + i), m);
    s0 = hn::MulAdd(a, a, s0);
  }
  double total = double(hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1))));
  for (; i < n; ++i) {
    const double v = double(x[i]) - mean;
    total += v * v;
  }
  return total;
}

template <typename T>
void Affine(const T* x, T* y, int64_t n, double alpha, double beta) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T a = T(alpha), b = T(beta);
  const auto va = hn::Set(d, a), vb = hn::Set(d, b);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), va, vb), d, y + i);
  for (; i < n; ++i) y[i] = x[i] * a + b;
}

template <typename T>
void GradSums(const T* HWY_RESTRICT g, const T* HWY_RESTRICT x, int64_t n, double mean, double& g_sum,
              double& dot) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto m = hn::Set(d, T(mean));
  auto gs = hn::Zero(d), ds = hn::Zero(d);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto gv = hn::LoadU(d, g + i);
    gs = hn::Add(gs, gv);
    ds = hn::MulAdd(hn::Sub(hn::LoadU(d, x + i), m), gv, ds);
  }
  double gt = double(hn::GetLane(hn::SumOfLanes(d, gs)));
  double dt = double(hn::GetLane(hn::SumOfLanes(d, ds)));
  for (; i < n; ++i) {
    gt += double(g[i]);
    dt += (double(x[i]) - mean) * double(g[i]);
  }
  g_sum += gt;
  dot += dt;
}

template <typename T>
void InputGrad(const T* g, const T* x, T* gx, int64_t n, double a, double b, double c) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T ta = T(a), tb = T(b), tc = T(c);
  const auto va = hn::Set(d, ta), vb = hn::Set(d, tb), vc = hn::Set(d, tc);
  int64_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::MulAdd(hn::LoadU(d, g + i), va, hn::MulAdd(hn::LoadU(d, x + i), vb, vc)), d, gx + i);
  for (; i < n; ++i) gx[i] = g[i] * ta + (x[i] * tb + tc);
}

// ---- rows of C channels, vectorized across the channels; the channels past
// the last whole vector go through a padded copy of one vector's width so
// no lane reads past a row.

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
template <class D, typename T>
HWY_INLINE hn::Vec<D> LoadPart(D d, const T* p, int64_t lanes) {
  if (lanes == int64_t(hn::Lanes(d))) return hn::LoadU(d, p);
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)] = {};
  for (int64_t i = 0; i < lanes; ++i) buf[i] = p[i];
  return hn::Load(d, buf);
}
template <class D, typename T>
HWY_INLINE void StorePart(hn::Vec<D> v, D d, T* p, int64_t lanes) {
  if (lanes == int64_t(hn::Lanes(d))) return hn::StoreU(v, d, p);
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, buf);
  for (int64_t i = 0; i < lanes; ++i) p[i] = buf[i];
}

// The sums over rows walk the rows in memory order, two at a time, adding
// into acc (C elements, in L1) block by block: one sequential stream, and
// the blocks' add chains independent of each other.
template <class D, typename T, typename Term>
HWY_INLINE void RowsAccumulate(D d, int64_t rows, int64_t C, T* acc, Term&& term) {
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2)
    ForChannelBlocks(d, C, [&](int64_t c, int64_t lanes) {
      auto s = LoadPart(d, acc + c, lanes);
      s = hn::Add(term(s, r * C + c, c, lanes), term(hn::Zero(d), (r + 1) * C + c, c, lanes));
      StorePart(s, d, acc + c, lanes);
    });
  for (; r < rows; ++r)
    ForChannelBlocks(d, C, [&](int64_t c, int64_t lanes) {
      StorePart(term(LoadPart(d, acc + c, lanes), r * C + c, c, lanes), d, acc + c, lanes);
    });
}

template <typename T>
void RowsSum(const T* HWY_RESTRICT x, int64_t rows, int64_t C, T* HWY_RESTRICT acc) {
  const hn::ScalableTag<T> d;
  RowsAccumulate(d, rows, C, acc, [&](auto s, int64_t o, int64_t, int64_t lanes) { return hn::Add(s, LoadPart(d, x + o, lanes)); });
}

template <typename T>
void RowsCenteredSquareSum(const T* HWY_RESTRICT x, int64_t rows, int64_t C, const T* mean, T* HWY_RESTRICT acc) {
  const hn::ScalableTag<T> d;
  RowsAccumulate(d, rows, C, acc, [&](auto s, int64_t o, int64_t c, int64_t lanes) {
    const auto v = hn::Sub(LoadPart(d, x + o, lanes), LoadPart(d, mean + c, lanes));
    return hn::MulAdd(v, v, s);
  });
}

// The maps walk rows in memory order, each row's blocks in turn.
template <typename T>
void RowsAffine(const T* x, T* y, int64_t rows, int64_t C, const T* alpha, const T* beta) {
  const hn::ScalableTag<T> d;
  for (int64_t r = 0; r < rows; ++r)
    ForChannelBlocks(d, C, [&](int64_t c, int64_t lanes) {
      const int64_t o = r * C + c;
      StorePart(hn::MulAdd(LoadPart(d, x + o, lanes), LoadPart(d, alpha + c, lanes), LoadPart(d, beta + c, lanes)),
                d, y + o, lanes);
    });
}

template <typename T>
void RowsGradSums(const T* HWY_RESTRICT g, const T* HWY_RESTRICT x, int64_t rows, int64_t C, const T* mean,
                  T* g_sum, T* dot) {
  const hn::ScalableTag<T> d;
  RowsAccumulate(d, rows, C, g_sum, [&](auto s, int64_t o, int64_t, int64_t lanes) { return hn::Add(s, LoadPart(d, g + o, lanes)); });
  RowsAccumulate(d, rows, C, dot, [&](auto s, int64_t o, int64_t c, int64_t lanes) {
    const auto v = hn::Sub(LoadPart(d, x + o, lanes), LoadPart(d, mean + c, lanes));
    return hn::MulAdd(v, LoadPart(d, g + o, lanes), s);
  });
}

template <typename T>
void RowsInputGrad(const T* g, const T* x, T* gx, int64_t rows, int64_t C, const T* a, const T* b, const T* k) {
  const hn::ScalableTag<T> d;
  for (int64_t r = 0; r < rows; ++r)
    ForChannelBlocks(d, C, [&](int64_t c, int64_t lanes) {
      const int64_t o = r * C + c;
      const auto xb = hn::MulAdd(LoadPart(d, x + o, lanes), LoadPart(d, b + c, lanes), LoadPart(d, k + c, lanes));
      StorePart(hn::MulAdd(LoadPart(d, g + o, lanes), LoadPart(d, a + c, lanes), xb), d, gx + o, lanes);
    });
}

#define TSR_BN_ROWS(SUFFIX, T)                                                                                  \
  void RowsSum##SUFFIX(const T* x, int64_t rows, int64_t C, T* acc) { RowsSum(x, rows, C, acc); }            \
  void RowsCenteredSquareSum##SUFFIX(const T* x, int64_t rows, int64_t C, const T* m, T* acc) {              \
    RowsCenteredSquareSum(x, rows, C, m, acc);                                                               \
  }                                                                                                          \
  void RowsAffine##SUFFIX(const T* x, T* y, int64_t rows, int64_t C, const T* a, const T* b) {               \
    RowsAffine(x, y, rows, C, a, b);                                                                         \
  }                                                                                                          \
  void RowsGradSums##SUFFIX(const T* g, const T* x, int64_t rows, int64_t C, const T* m, T* gs, T* dot) {    \
    RowsGradSums(g, x, rows, C, m, gs, dot);                                                                 \
  }                                                                                                          \
  void RowsInputGrad##SUFFIX(const T* g, const T* x, T* gx, int64_t rows, int64_t C, const T* a, const T* b, \
                             const T* k) {                                                                   \
    RowsInputGrad(g, x, gx, rows, C, a, b, k);                                                               \
  }
TSR_BN_ROWS(F32, float)
TSR_BN_ROWS(F64, double)
#undef TSR_BN_ROWS

double SumF32(const float* x, int64_t n) { return Sum(x, n); }
double SumF64(const double* x, int64_t n) { return Sum(x, n); }
double CenteredSquareSumF32(const float* x, int64_t n, double m) { return CenteredSquareSum(x, n, m); }
double CenteredSquareSumF64(const double* x, int64_t n, double m) { return CenteredSquareSum(x, n, m); }
void AffineF32(const float* x, float* y, int64_t n, double a, double b) { Affine(x, y, n, a, b); }
void AffineF64(const double* x, double* y, int64_t n, double a, double b) { Affine(x, y, n, a, b); }
void GradSumsF32(const float* g, const float* x, int64_t n, double m, double& gs, double& dot) {
  GradSums(g, x, n, m, gs, dot);
}
void GradSumsF64(const double* g, const double* x, int64_t n, double m, double& gs, double& dot) {
  GradSums(g, x, n, m, gs, dot);
}
void InputGradF32(const float* g, const float* x, float* gx, int64_t n, double a, double b, double c) {
  InputGrad(g, x, gx, n, a, b, c);
}
void InputGradF64(const double* g, const double* x, double* gx, int64_t n, double a, double b, double c) {
  InputGrad(g, x, gx, n, a, b, c);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(CenteredSquareSumF32);
HWY_EXPORT(CenteredSquareSumF64);
HWY_EXPORT(AffineF32);
HWY_EXPORT(AffineF64);
HWY_EXPORT(GradSumsF32);
HWY_EXPORT(GradSumsF64);
HWY_EXPORT(InputGradF32);
HWY_EXPORT(InputGradF64);
HWY_EXPORT(RowsSumF32);
HWY_EXPORT(RowsSumF64);
HWY_EXPORT(RowsCenteredSquareSumF32);
HWY_EXPORT(RowsCenteredSquareSumF64);
HWY_EXPORT(RowsAffineF32);
HWY_EXPORT(RowsAffineF64);
HWY_EXPORT(RowsGradSumsF32);
HWY_EXPORT(RowsGradSumsF64);
HWY_EXPORT(RowsInputGradF32);
HWY_EXPORT(RowsInputGradF64);

double bn_sum(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF32)(x, n); }
double bn_sum(const double* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF64)(x, n); }
double bn_centered_square_sum(const float* x, int64_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(CenteredSquareSumF32)(x, n, mean);
}
double bn_centered_square_sum(const double* x, int64_t n, double mean) {
  return HWY_DYNAMIC_DISPATCH(CenteredSquareSumF64)(x, n, mean);
}
void bn_affine(const float* x, float* y, int64_t n, double alpha, double beta) {
  HWY_DYNAMIC_DISPATCH(AffineF32)(x, y, n, alpha, beta);
}
void bn_affine(const double* x, double* y, int64_t n, double alpha, double beta) {
  HWY_DYNAMIC_DISPATCH(AffineF64)(x, y, n, alpha, beta);
}
void bn_grad_sums(const float* g, const float* x, int64_t n, double mean, double& g_sum, double& dot) {
  HWY_DYNAMIC_DISPATCH(GradSumsF32)(g, x, n, mean, g_sum, dot);
}
void bn_grad_sums(const double* g, const double* x, int64_t n, double mean, double& g_sum, double& dot) {
  HWY_DYNAMIC_DISPATCH(GradSumsF64)(g, x, n, mean, g_sum, dot);
}
void bn_input_grad(const float* g, const float* x, float* gx, int64_t n, double a, double b, double c) {
  HWY_DYNAMIC_DISPATCH(InputGradF32)(g, x, gx, n, a, b, c);
}
void bn_input_grad(const double* g, const double* x, double* gx, int64_t n, double a, double b, double c) {
  HWY_DYNAMIC_DISPATCH(InputGradF64)(g, x, gx, n, a, b, c);
}

#define TSR_BN_ROWS_DISPATCH(SUFFIX, T)                                                                       \
  void bn_rows_sum(const T* x, int64_t rows, int64_t C, T* acc) {                                            \
    HWY_DYNAMIC_DISPATCH(RowsSum##SUFFIX)(x, rows, C, acc);                                                  \
  }                                                                                                          \
  void bn_rows_centered_square_sum(const T* x, int64_t rows, int64_t C, const T* mean, T* acc) {             \
    HWY_DYNAMIC_DISPATCH(RowsCenteredSquareSum##SUFFIX)(x, rows, C, mean, acc);                              \
  }                                                                                                          \
  void bn_rows_affine(const T* x, T* y, int64_t rows, int64_t C, const T* alpha, const T* beta) {            \
    HWY_DYNAMIC_DISPATCH(RowsAffine##SUFFIX)(x, y, rows, C, alpha, beta);                                    \
  }                                                                                                          \
  void bn_rows_grad_sums(const T* g, const T* x, int64_t rows, int64_t C, const T* mean, T* g_sum, T* dot) { \
    HWY_DYNAMIC_DISPATCH(RowsGradSums##SUFFIX)(g, x, rows, C, mean, g_sum, dot);                             \
  }                                                                                                          \
  void bn_rows_input_grad(const T* g, const T* x, T* gx, int64_t rows, int64_t C, const T* a, const T* b,    \
                          const T* k) {                                                                      \
    HWY_DYNAMIC_DISPATCH(RowsInputGrad##SUFFIX)(g, x, gx, rows, C, a, b, k);                                 \
  }
TSR_BN_ROWS_DISPATCH(F32, float)
TSR_BN_ROWS_DISPATCH(F64, double)
#undef TSR_BN_ROWS_DISPATCH

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
