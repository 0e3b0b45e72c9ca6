// Highway kernels of softmax_simd.h; see reduce_simd.cpp for the dispatch.
#define TSR_SIMD_KEEP_AVX512  // compute-bound: AVX-512 pays
#include "cpu/kernels/simd_targets.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/softmax_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

#include <cmath>
#include <limits>

#include "cpu/kernels/softmax_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The row's maximum; NaN when any element is NaN (ATen's maximum
// propagates NaN; x86's max instruction alone would drop it). A row of at
// least a vector ends with the vector of its last N elements, overlapping
// the one before (a maximum may count an element twice).
template <typename T>
T RowMax(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto mx = hn::Set(d, -std::numeric_limits<T>::infinity());
  auto any_nan = hn::IsNaN(hn::Zero(d));  // all false
  auto visit = [&](const T* at) {
    const auto v = hn::LoadU(d, at);
    mx = hn::Max(mx, v);
    any_nan = hn::Or(any_nan, hn::IsNaN(v));
  };
  int64_t i = 0;
  for (; i + N <= n; i += N) visit(x + i);
  if (i < n && n >= N) {
    visit(x + n - N);
    i = n;
  }
  T m = hn::GetLane(hn::MaxOfLanes(d, mx));
  bool has_nan = !hn::AllFalse(d, any_nan);
  for (; i < n; ++i) {
    has_nan |= std::isnan(x[i]);
    m = x[i] > m ? x[i] : m;
  }
  return has_nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

// The sum of exp(x - mx) over the row, and with Store, y = exp(x - mx).
// Highway's Exp gives 0 for NaN (and x - mx is NaN when mx is +inf), so a
// row whose maximum is not finite goes through std::exp, which propagates
// it as ATen does. A row of at least a vector ends with the vector of its
// last N elements, whose lanes already summed are masked out of the sum
// (and stored again with the same values): a short row (56 elements, 16
// lanes) would otherwise spend most of its time in scalar exp. Shorter
// rows go through a vector padded with -inf (exp gives 0 there).
template <bool Store, typename T>
T ExpShifted(const T* HWY_RESTRICT x, T* HWY_RESTRICT y, int64_t n, T mx) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto vmx = hn::Set(d, mx);
  auto s = hn::Zero(d);
  int64_t i = 0;
  if (std::isfinite(mx)) {
    for (; i + N <= n; i += N) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vmx));
      if constexpr (Store) hn::StoreU(e, d, y + i);
      s = hn::Add(s, e);
    }
    if (i < n && n >= N) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + n - N), vmx));
      if constexpr (Store) hn::StoreU(e, d, y + n - N);
      s = hn::Add(s, hn::IfThenZeroElse(hn::FirstN(d, size_t(N - (n - i))), e));
      i = n;
    } else if (i < n) {
      HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
      for (int64_t k = 0; k < N; ++k) buf[k] = k < n ? x[k] : -std::numeric_limits<T>::infinity();
      const auto e = hn::Exp(d, hn::Sub(hn::Load(d, buf), vmx));
      hn::Store(e, d, buf);
      if constexpr (Store)
        for (int64_t k = 0; k < n; ++k) y[k] = buf[k];
      s = hn::Add(s, e);
      i = n;
    }
  }
  T total = hn::GetLane(hn::SumOfLanes(d, s));
  for (; i < n; ++i) {
    const T e = std::exp(x[i] - mx);
    if constexpr (Store) y[i] = e;
    total += e;
  }
  return total;
}

template <typename T>
void Softmax(const T* HWY_RESTRICT x, T* HWY_RESTRICT y, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T r = T(1) / ExpShifted<true>(x, y, n, RowMax(x, n));
  const auto vr = hn::Set(d, r);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, y + i), vr), d, y + i);
  for (; i < n; ++i) y[i] *= r;
}

// (x - max) - log(sum): log(sum) is kept apart from max, as ATen does, so
// a large |max| does not round away log(sum)'s low bits.
template <typename T>
void LogSoftmax(const T* HWY_RESTRICT x, T* HWY_RESTRICT y, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T mx = RowMax(x, n);
  const T log_s = std::log(ExpShifted<false>(x, y, n, mx));
  const auto vmx = hn::Set(d, mx), vls = hn::Set(d, log_s);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, x + i), vmx), vls), d, y + i);
  for (; i < n; ++i) y[i] = (x[i] - mx) - log_s;
}

// `rows` consecutive rows of n: one dispatch for all.
void SoftmaxF32(const float* x, float* y, int64_t n, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) Softmax(x + r * n, y + r * n, n);
}
void SoftmaxF64(const double* x, double* y, int64_t n, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) Softmax(x + r * n, y + r * n, n);
}
void LogSoftmaxF32(const float* x, float* y, int64_t n, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) LogSoftmax(x + r * n, y + r * n, n);
}
void LogSoftmaxF64(const double* x, double* y, int64_t n, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) LogSoftmax(x + r * n, y + r * n, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(SoftmaxF32);
HWY_EXPORT(SoftmaxF64);
HWY_EXPORT(LogSoftmaxF32);
HWY_EXPORT(LogSoftmaxF64);

void softmax_rows(const float* x, float* y, int64_t n, int64_t rows) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF32)(x, y, n, rows);
}
void softmax_rows(const double* x, double* y, int64_t n, int64_t rows) {
  HWY_DYNAMIC_DISPATCH(SoftmaxF64)(x, y, n, rows);
}
void log_softmax_rows(const float* x, float* y, int64_t n, int64_t rows) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxF32)(x, y, n, rows);
}
void log_softmax_rows(const double* x, double* y, int64_t n, int64_t rows) {
  HWY_DYNAMIC_DISPATCH(LogSoftmaxF64)(x, y, n, rows);
}

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
