// Highway kernels of pow_simd.h, compiled once per target by
// foreach_target.h and picked at run time by HWY_DYNAMIC_DISPATCH. SLEEF's
// pow as elementwise_simd.cpp calls its exp: the AVX2 and SSE4 variants
// directly on the target's registers.
#include "cpu/kernels/simd_targets.h"  // before Highway: no AVX-512 (memory bound)

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/pow_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "cpu/kernels/simd_common-inl.h"

#include <cmath>
#include <cstring>

#include "cpu/kernels/pow_simd.h"

#if HWY_ARCH_X86
#include <immintrin.h>
#include <sleef.h>  // the SSE4 variants; the AVX2 ones need __AVX__ at compile time:
extern "C" {        // declared here, called only from the AVX2 target
__m256 Sleef_powf8_u10avx2(__m256, __m256);
__m256d Sleef_powd4_u10avx2(__m256d, __m256d);
}
#endif

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// SLEEF's (float, double) pair on full vectors. Through function pointers,
// as elementwise_simd.cpp's Sleef2: clang refuses a direct call to the AVX2
// functions declared above ("changes the ABI"), although every caller here
// is compiled for the AVX2 target by HWY_BEFORE_NAMESPACE.
template <typename T, typename FF, typename FD>
HWY_INLINE V<T> SleefPow2(V<T> x, V<T> y, FF ff, FD fd) {
  if constexpr (sizeof(T) == 4) return V<T>{ff(x.raw, y.raw)};
  else return V<T>{fd(x.raw, y.raw)};
}

template <typename T>
HWY_INLINE V<T> VPow(V<T> x, V<T> y) {
#if HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
  return SleefPow2<T>(x, y, Sleef_powf8_u10avx2, Sleef_powd4_u10avx2);
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
  return SleefPow2<T>(x, y, Sleef_powf4_u10sse4, Sleef_powd2_u10sse4);
#else
  return x;  // unused: PowBodyT does nothing on these targets
#endif
}

// The special exponents: 0 x*x, 1 x*x*x, 2 1/(x*x), 3 sqrt, 4 1/sqrt, 5 1/x.
template <typename T, int k>
HWY_INLINE V<T> Special(V<T> x) {
  const D<T> d;
  const V<T> one = hn::Set(d, T(1));
  if constexpr (k == 0) return hn::Mul(x, x);
  else if constexpr (k == 1) return hn::Mul(hn::Mul(x, x), x);
  else if constexpr (k == 2) return hn::Div(one, hn::Mul(x, x));
  else if constexpr (k == 3) return hn::Sqrt(x);
  else if constexpr (k == 4) return hn::Div(one, hn::Sqrt(x));
  else return hn::Div(one, x);
}

template <typename T, int k>
HWY_INLINE void SpecialLoop(T* o, const T* x, size_t n) {
  MapUnary(o, x, n, [](V<T> v) HWY_ATTR { return Special<T, k>(v); });
}

template <typename T>
void SpecialT(int k, void* o0, const void* x0, size_t n) {
  T* o = static_cast<T*>(o0);
  const T* x = static_cast<const T*>(x0);
  switch (k) {
    case 0: return SpecialLoop<T, 0>(o, x, n);
    case 1: return SpecialLoop<T, 1>(o, x, n);
    case 2: return SpecialLoop<T, 2>(o, x, n);
    case 3: return SpecialLoop<T, 3>(o, x, n);
    case 4: return SpecialLoop<T, 4>(o, x, n);
    default: return SpecialLoop<T, 5>(o, x, n);
  }
}
void SpecialF32(int k, void* o, const void* x, size_t n) { SpecialT<float>(k, o, x, n); }
void SpecialF64(int k, void* o, const void* x, size_t n) { SpecialT<double>(k, o, x, n); }

// SLEEF's pow over whole vectors of the first n elements; returns how many
// it did (the caller finishes the rest with std::pow; all of them on
// targets without SLEEF). bc as Bcast.
template <typename T>
size_t PowBodyT(void* o0, const void* a0, const void* b0, size_t n, int bc) {
#if !(HWY_ARCH_X86 && (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4))
  return 0;  // no SLEEF: the caller's scalar loop does every element, as 0.1 did
#endif
  const D<T> d;
  const size_t N = hn::Lanes(d);
  T* o = static_cast<T*>(o0);
  const T* a = static_cast<const T*>(a0);
  const T* b = static_cast<const T*>(b0);
  const V<T> ka = hn::Set(d, a[0]), kb = hn::Set(d, b[0]);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V<T> va = Bcast(bc) == Bcast::A ? ka : hn::LoadU(d, a + i);
    const V<T> vb = Bcast(bc) == Bcast::B ? kb : hn::LoadU(d, b + i);
    hn::StoreU(VPow<T>(va, vb), d, o + i);
  }
  return i;
}
size_t PowBodyF32(void* o, const void* a, const void* b, size_t n, int bc) {
  return PowBodyT<float>(o, a, b, n, bc);
}
size_t PowBodyF64(void* o, const void* a, const void* b, size_t n, int bc) {
  return PowBodyT<double>(o, a, b, n, bc);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(SpecialF32);
HWY_EXPORT(SpecialF64);
HWY_EXPORT(PowBodyF32);
HWY_EXPORT(PowBodyF64);

namespace {

// ATen's vectorized_loop step: two 256-bit vectors (kPowBlockBytes).
constexpr int64_t kBlockBytes = kPowBlockBytes;

// The special-cased exponent's code for SpecialT, -1 for a general one.
int special_code(double e) {
  if (e == 2.0) return 0;
  if (e == 3.0) return 1;
  if (e == -2.0) return 2;
  if (e == 0.5) return 3;
  if (e == -0.5) return 4;
  if (e == -1.0) return 5;
  return -1;
}

// The SLEEF body over whole blocks, then `tail(i)` for each remaining i.
template <typename T, typename Tail>
void pow_run(T* o, const T* a, const T* b, int64_t n, Bcast bc, Tail tail) {
  const int64_t body = n - n % (kBlockBytes / int64_t(sizeof(T)));
  int64_t i = 0;
  if (body > 0) {
    if constexpr (sizeof(T) == 4) i = int64_t(HWY_DYNAMIC_DISPATCH(PowBodyF32)(o, a, b, size_t(body), int(bc)));
    else i = int64_t(HWY_DYNAMIC_DISPATCH(PowBodyF64)(o, a, b, size_t(body), int(bc)));
  }
  for (; i < n; ++i) o[i] = tail(i);
}

}  // namespace

bool pow_scalar(tsr_dtype d, void* out, const void* x, double e, int64_t n) {
  if (d != TSR_FLOAT32 && d != TSR_FLOAT64) return false;
  const int k = special_code(e);
  if (k >= 0) {
    if (d == TSR_FLOAT32) HWY_DYNAMIC_DISPATCH(SpecialF32)(k, out, x, size_t(n));
    else HWY_DYNAMIC_DISPATCH(SpecialF64)(k, out, x, size_t(n));
    return true;
  }
  if (d == TSR_FLOAT32) {
    const float ef = float(e);  // Vectorized<float>(exp): the exponent rounded to float
    const auto* px = static_cast<const float*>(x);
    pow_run<float>(static_cast<float*>(out), px, &ef, n, Bcast::B,
                   [px, e](int64_t i) { return float(std::pow(double(px[i]), e)); });
  } else {
    const auto* px = static_cast<const double*>(x);
    pow_run<double>(static_cast<double*>(out), px, &e, n, Bcast::B,
                    [px, e](int64_t i) { return std::pow(px[i], e); });
  }
  return true;
}

bool pow(tsr_dtype d, void* out, const void* a, const void* b, int64_t n, Bcast bc) {
  auto run = [&]<typename T>() {
    const T* pa = static_cast<const T*>(a);
    const T* pb = static_cast<const T*>(b);
    const bool ba = bc == Bcast::A, bb = bc == Bcast::B;
    pow_run<T>(static_cast<T*>(out), pa, pb, n, bc,
               [pa, pb, ba, bb](int64_t i) { return T(std::pow(pa[ba ? 0 : i], pb[bb ? 0 : i])); });
  };
  if (d == TSR_FLOAT32) run.template operator()<float>();
  else if (d == TSR_FLOAT64) run.template operator()<double>();
  else return false;
  return true;
}

}  // namespace tsr::kernels::simd
#endif
