// Highway kernels of attention_simd.h; see reduce_simd.cpp for the dispatch.
#define TSR_SIMD_KEEP_AVX512  // compute-bound: AVX-512 pays
#include "cpu/kernels/simd_targets.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/attention_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

#include <cmath>
#include <limits>

#include "cpu/kernels/attention_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
T ExpShiftedSum(T* HWY_RESTRICT x, int64_t n, T shift) {
  const hn::ScalableTag<T> d;
  const int64_t N = int64_t(hn::Lanes(d));
  int64_t i = 0;
  auto s = hn::Zero(d);
  if (std::isfinite(shift)) {
    const auto vs = hn::Set(d, shift);
    for (; i + N <= n; i += N) {
      const auto e = hn::Exp(d, hn::Sub(hn::LoadU(d, x + i), vs));
      hn::StoreU(e, d, x + i);
      s = hn::Add(s, e);
    }
    if (i < n) {  // the tail through a vector padded with -inf (exp gives 0 there)
      HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
      const int64_t rest = n - i;
      for (int64_t k = 0; k < N; ++k) buf[k] = k < rest ? x[i + k] : -std::numeric_limits<T>::infinity();
      const auto e = hn::Exp(d, hn::Sub(hn::Load(d, buf), vs));
      hn::Store(e, d, buf);
      for (int64_t k = 0; k < rest; ++k) x[i + k] = buf[k];
      s = hn::Add(s, e);
      i = n;
    }
  }
  T total = hn::GetLane(hn::SumOfLanes(d, s));
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - shift);
    total += x[i];
  }
  return total;
}

// The row's maximum, NaN when any element is NaN (torch's softmax
// propagates it; x86's max instruction alone would drop it); -inf for n == 0.
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

float RowMaxF32(const float* x, int64_t n) { return RowMax(x, n); }
double RowMaxF64(const double* x, int64_t n) { return RowMax(x, n); }
float ExpShiftedSumF32(float* x, int64_t n, float shift) { return ExpShiftedSum(x, n, shift); }
double ExpShiftedSumF64(double* x, int64_t n, double shift) { return ExpShiftedSum(x, n, shift); }

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(RowMaxF32);
HWY_EXPORT(RowMaxF64);
HWY_EXPORT(ExpShiftedSumF32);
HWY_EXPORT(ExpShiftedSumF64);

float row_max(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(RowMaxF32)(x, n); }
double row_max(const double* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(RowMaxF64)(x, n); }
float exp_shifted_sum(float* x, int64_t n, float shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF32)(x, n, shift);
}
double exp_shifted_sum(double* x, int64_t n, double shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF64)(x, n, shift);
}

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
