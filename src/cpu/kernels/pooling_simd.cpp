// Highway kernels of pooling_simd.h; see reduce_simd.cpp for the dispatch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/pooling_simd.cpp"
#include "cpu/kernels/simd_targets.h"  // before Highway's headers
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cmath>
#include <limits>

#include "cpu/kernels/bf16_simd-inl.h"
#include "cpu/kernels/pooling_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// S: the storage type, compared in T = Compute<S> (bfloat16 widened to
// float in registers: exact, order and NaNs kept). Index has T's width, so
// a comparison's mask selects values and indices lane for lane.
template <typename S, typename Index>
void MaxPoolPixel(const S* HWY_RESTRICT x, const int64_t* offsets, const Index* flat, int64_t count, int64_t C,
                  S* HWY_RESTRICT y, int64_t* HWY_RESTRICT indices) {
  using T = Compute<S>;
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  const int64_t N = int64_t(hn::Lanes(d));
  int64_t c = 0;
  for (; c + N <= C; c += N) {
    auto best = hn::Set(d, -std::numeric_limits<T>::infinity());
    auto at = hn::Set(di, flat[0]);
    for (int64_t i = 0; i < count; ++i) {
      const auto v = LoadAs(d, x + offsets[i] + c);
      const auto take = hn::Or(hn::Gt(v, best), hn::IsNaN(v));
      best = hn::IfThenElse(take, v, best);
      at = hn::IfThenElse(hn::RebindMask(di, take), hn::Set(di, flat[i]), at);
    }
    StoreAs(best, d, y + c);
    HWY_ALIGN Index buf[HWY_MAX_BYTES / sizeof(Index)];
    hn::Store(at, di, buf);
    for (int64_t j = 0; j < N; ++j) indices[c + j] = int64_t(buf[j]);
  }
  for (; c < C; ++c) {  // the channels past the last whole vector
    T best = -std::numeric_limits<T>::infinity();
    Index at = flat[0];
    for (int64_t i = 0; i < count; ++i) {
      const T v = T(x[offsets[i] + c]);
      if (v > best || std::isnan(v)) best = v, at = flat[i];
    }
    y[c] = S(best);
    indices[c] = int64_t(at);
  }
}

void MaxPoolPixelF32(const float* x, const int64_t* offsets, const int32_t* flat, int64_t count, int64_t C,
                     float* y, int64_t* indices) {
  MaxPoolPixel(x, offsets, flat, count, C, y, indices);
}
void MaxPoolPixelF64(const double* x, const int64_t* offsets, const int64_t* flat, int64_t count, int64_t C,
                     double* y, int64_t* indices) {
  MaxPoolPixel(x, offsets, flat, count, C, y, indices);
}
void MaxPoolPixelBF16(const BFloat16* x, const int64_t* offsets, const int32_t* flat, int64_t count, int64_t C,
                      BFloat16* y, int64_t* indices) {
  MaxPoolPixel(x, offsets, flat, count, C, y, indices);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(MaxPoolPixelF32);
HWY_EXPORT(MaxPoolPixelF64);
HWY_EXPORT(MaxPoolPixelBF16);

void max_pool_pixel(const float* x, const int64_t* offsets, const int32_t* flat, int64_t count, int64_t C,
                    float* y, int64_t* indices) {
  HWY_DYNAMIC_DISPATCH(MaxPoolPixelF32)(x, offsets, flat, count, C, y, indices);
}
void max_pool_pixel(const double* x, const int64_t* offsets, const int64_t* flat, int64_t count, int64_t C,
                    double* y, int64_t* indices) {
  HWY_DYNAMIC_DISPATCH(MaxPoolPixelF64)(x, offsets, flat, count, C, y, indices);
}
void max_pool_pixel(const BFloat16* x, const int64_t* offsets, const int32_t* flat, int64_t count, int64_t C,
                    BFloat16* y, int64_t* indices) {
  HWY_DYNAMIC_DISPATCH(MaxPoolPixelBF16)(x, offsets, flat, count, C, y, indices);
}

}  // namespace tsr::kernels::simd
#endif  // HWY_ONCE
