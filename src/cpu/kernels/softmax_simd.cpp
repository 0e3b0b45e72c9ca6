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
// propagates NaN; x86's max instruction alone would drop it).
template <typename T>
T RowMax(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  auto mx = hn::Set(d, -std::numeric_limits<T>::infinity());
  auto any_nan = hn::IsNaN(hn::Zero(d));  // all false
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    mx = hn::Max(mx, v);
    any_nan = hn::Or(any_nan, hn::IsNaN(v));
  }
  T m = hn::GetLane(hn::MaxOfLanes(d, mx));
  bool has_nan = !hn::AllFalse(d, any_nan);
  for (; i < n; ++i) {
    has_nan |= std::isnan(x[i]);
    m = x[i] > m ? x[i] : m;
  }
  return has_nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

// y = exp(x - mx); returns the sum of y. Highway's Exp gives 0 for NaN
// (and x - mx is NaN when mx is +inf), so a row whose maximum is not
// finite goes through std::exp, which propagates it as ATen does.
template <typename T>
T ExpShifted(const T* HWY_RESTRICT x, T* HWY_RESTRICT y, int64_t n, T mx) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const auto vmx = hn::Set(d, mx);
  auto s = hn::Zero(d);
  int64_t i = 0;
  for (; std::isfinite(mx) && i + N <= n; i += N) {
    const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vmx));
    hn::StoreU(e, d, y + i);
    s = hn::Add(s, e);
  }
  if (std::isfinite(mx) && i < n) {
    // The tail as one vector padded with -inf (exp gives 0 there): a short
    // row (56 elements, 16 lanes) would otherwise spend most of its time in
    // scalar exp.
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
    for (int64_t k = 0; k < N; ++k) buf[k] = i + k < n ? x[i + k] : -std::numeric_limits<T>::infinity();
    const auto e = hn::Exp(d, hn::Sub(hn::Load(d, buf), vmx));
    hn::Store(e, d, buf);
    for (int64_t k = 0; i + k < n; ++k) y[i + k] = buf[k];
    s = hn::Add(s, e);
    i = n;
  }
  T total = hn::GetLane(hn::SumOfLanes(d, s));
  for (; i < n; ++i) total += y[i] = std::exp(x[i] - mx);
  return total;
}

template <typename T>
void Softmax(const T* HWY_RESTRICT x, T* HWY_RESTRICT y, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  const T r = T(1) / ExpShifted(x, y, n, RowMax(x, n));
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
  const T log_s = std::log(ExpShifted(x, y, n, mx));  // y is scratch here
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
