// What the elementwise Highway kernels (elementwise_simd, integer_simd,
// mask_simd, pow_simd) share, included by each after hwy/highway.h, once
// per target (Highway's -inl.h convention: the include guard toggles with
// HWY_TARGET_TOGGLE so that foreach_target.h compiles it for every target):
// the tag and vector aliases and the unary loop with its partial tail.
#if defined(TSR_SIMD_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TSR_SIMD_COMMON_INL_H_
#undef TSR_SIMD_COMMON_INL_H_
#else
#define TSR_SIMD_COMMON_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
using D = hn::ScalableTag<T>;
template <typename T>
using V = hn::Vec<D<T>>;

// o[i] = f(x[i]) for i < n, where f maps a whole vector: unaligned vectors,
// then the last partial one through aligned buffers (lanes past n are
// zero in, dropped out), so f never reads or writes past the arrays. o may
// be x (in place: each vector is loaded before it is stored).
template <typename T, typename F>
HWY_INLINE void MapUnary(T* o, const T* x, size_t n, F f) {
  const D<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f(hn::LoadU(d, x + i)), d, o + i);
  if (i == n) return;
  const size_t r = n - i;
  HWY_ALIGN T tx[hn::MaxLanes(d)] = {}, to[hn::MaxLanes(d)];
  std::memcpy(tx, x + i, r * sizeof(T));
  hn::Store(f(hn::Load(d, tx)), d, to);
  std::memcpy(o + i, to, r * sizeof(T));
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#endif  // TSR_SIMD_COMMON_INL_H_
