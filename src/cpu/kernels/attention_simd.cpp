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

float ExpShiftedSumF32(float* x, int64_t n, float shift) { return ExpShiftedSum(x, n, shift); }
double ExpShiftedSumF64(double* x, int64_t n, double shift) { return ExpShiftedSum(x, n, shift); }

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(ExpShiftedSumF32);
HWY_EXPORT(ExpShiftedSumF64);

float exp_shifted_sum(float* x, int64_t n, float shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF32)(x, n, shift);
}
double exp_shifted_sum(double* x, int64_t n, double shift) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftedSumF64)(x, n, shift);
}

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
