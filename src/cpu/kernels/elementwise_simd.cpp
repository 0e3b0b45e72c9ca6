// Highway kernels of elementwise_simd.h, compiled once per target by
// foreach_target.h and picked at run time by HWY_DYNAMIC_DISPATCH.
//
// Transcendentals: on x86 the AVX2 and SSE4 targets call SLEEF's variants for
// that instruction set directly (Sleef_expf8_u10avx2 on a __m256, ...), the
// 1-ulp functions ATen's Vectorized<float> uses; other targets (SSE2/SSSE3,
// NEON, scalar emulation) apply the scalar std:: function lane by lane.
#include "cpu/kernels/simd_targets.h"  // before Highway: no AVX-512 (memory bound)

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/elementwise_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "cpu/kernels/simd_common-inl.h"

#include <cmath>
#include <cstring>

#include "cpu/kernels/elementwise_simd.h"

#if HWY_ARCH_X86
#include <immintrin.h>
#include <sleef.h>  // the SSE4 variants; its AVX2 ones need __AVX__ at compile time:
extern "C" {        // declared here, called only from the AVX2 target
__m256 Sleef_expf8_u10avx2(__m256);
__m256 Sleef_logf8_u10avx2(__m256);
__m256 Sleef_tanhf8_u10avx2(__m256);
__m256 Sleef_erff8_u10avx2(__m256);
__m256d Sleef_expd4_u10avx2(__m256d);
__m256d Sleef_logd4_u10avx2(__m256d);
__m256d Sleef_tanhd4_u10avx2(__m256d);
__m256d Sleef_erfd4_u10avx2(__m256d);
}
#endif

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef TSR_SLEEF
#undef TSR_SLEEF_ON
#if HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
#define TSR_SLEEF(name, f, d) Sleef_##name##f##8##_u10avx2, Sleef_##name##d##4##_u10avx2
#define TSR_SLEEF_ON 1
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
#define TSR_SLEEF(name, f, d) Sleef_##name##f##4##_u10sse4, Sleef_##name##d##2##_u10sse4
#define TSR_SLEEF_ON 1
#else
#define TSR_SLEEF_ON 0
#endif

// Applies a scalar function lane by lane (targets without SLEEF).
template <typename T, typename F>
HWY_INLINE V<T> PerLane(V<T> v, F f) {
  const D<T> d;
  HWY_ALIGN T tmp[hn::MaxLanes(d)];
  hn::Store(v, d, tmp);
  for (size_t k = 0; k < hn::Lanes(d); ++k) tmp[k] = f(tmp[k]);
  return hn::Load(d, tmp);
}

#if TSR_SLEEF_ON
// SLEEF function pair (float, double) applied to a full vector.
template <typename T, typename FF, typename FD>
HWY_INLINE V<T> Sleef2(V<T> v, FF ff, FD fd) {
  if constexpr (sizeof(T) == 4) return V<T>{ff(v.raw)};
  else return V<T>{fd(v.raw)};
}
template <typename T>
HWY_INLINE V<T> VExp(V<T> v) { return Sleef2<T>(v, TSR_SLEEF(exp, f, d)); }
template <typename T>
HWY_INLINE V<T> VLog(V<T> v) { return Sleef2<T>(v, TSR_SLEEF(log, f, d)); }
template <typename T>
HWY_INLINE V<T> VTanh(V<T> v) { return Sleef2<T>(v, TSR_SLEEF(tanh, f, d)); }
template <typename T>
HWY_INLINE V<T> VErf(V<T> v) { return Sleef2<T>(v, TSR_SLEEF(erf, f, d)); }
#else
template <typename T>
HWY_INLINE V<T> VExp(V<T> v) { return PerLane<T>(v, [](T x) { return std::exp(x); }); }
template <typename T>
HWY_INLINE V<T> VLog(V<T> v) { return PerLane<T>(v, [](T x) { return std::log(x); }); }
template <typename T>
HWY_INLINE V<T> VTanh(V<T> v) { return PerLane<T>(v, [](T x) { return std::tanh(x); }); }
template <typename T>
HWY_INLINE V<T> VErf(V<T> v) { return PerLane<T>(v, [](T x) { return std::erf(x); }); }
#endif

// The erf inside gelu: float32 takes ATen 1.13's Vectorized<float>::erf
// (vec256_float.h, which GeluKernelImpl uses): Abramowitz-Stegun 7.1.26,
// sign(x) * (1 - t * r(t) * exp(-x^2)) with t = 1 / (1 + p |x|), absolute
// error below 1.5e-7, one exp instead of SLEEF's erf (5x faster here).
// float64 keeps SLEEF's erf (ATen's Vectorized<double>::erf is Sleef_erfd4_u10).
template <typename T>
HWY_INLINE V<T> GeluErf(V<T> x) {
  if constexpr (sizeof(T) == 8) {
    return VErf<T>(x);
  } else {
    const D<T> d;
    const V<T> one = hn::Set(d, 1.0f);
    const V<T> sign = hn::And(hn::Set(d, -0.0f), x);
    const V<T> ax = hn::Xor(sign, x);
    const V<T> t = hn::Div(one, hn::MulAdd(hn::Set(d, 0.3275911f), ax, one));
    V<T> r = hn::MulAdd(hn::Set(d, 1.061405429f), t, hn::Set(d, -1.453152027f));
    r = hn::MulAdd(r, t, hn::Set(d, 1.421413741f));
    r = hn::MulAdd(r, t, hn::Set(d, -0.284496736f));
    r = hn::MulAdd(r, t, hn::Set(d, 0.254829592f));
    const V<T> e = hn::Neg(VExp<T>(hn::Neg(hn::Mul(x, x))));
    return hn::Xor(sign, hn::MulAdd(hn::Mul(e, t), r, one));
  }
}

// ATen's gelu constants (GeluKernelImpl / GeluBackwardKernelImpl).
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kAlpha = 1.12837916709551257390 * kSqrt1_2 * 0.5;
constexpr double kBeta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5;  // sqrt(2/pi)
constexpr double kKappa = 0.044715;
constexpr double k2_SqrtPi = 1.12837916709551257390;  // M_2_SQRTPI

// The tanh gelu's inner value beta * (x + kappa * x^3), in ATen's order.
template <typename T>
HWY_INLINE V<T> GeluTanhInner(V<T> x, V<T> x_cube) {
  const D<T> d;
  return hn::Mul(hn::Set(d, T(kBeta)), hn::Add(x, hn::Mul(hn::Set(d, T(kKappa)), x_cube)));
}

// (g, x) -> g * d/dx gelu(x), erf form: ATen's GeluBackwardKernelImpl.
template <typename T>
HWY_INLINE V<T> GeluBackwardV(V<T> g, V<T> x) {
  const D<T> d;
  const V<T> one = hn::Set(d, T(1));
  const V<T> cdf = hn::Mul(hn::Set(d, T(0.5)), hn::Add(one, GeluErf<T>(hn::Mul(x, hn::Set(d, T(kSqrt1_2))))));
  const V<T> pdf = hn::Mul(hn::Set(d, T(kAlpha)), VExp<T>(hn::Mul(hn::Mul(hn::Set(d, T(-0.5)), x), x)));
  return hn::Mul(g, hn::Add(cdf, hn::Mul(x, pdf)));
}

// The same for the tanh form, step by step as ATen's vectorized kernel
// (and activation.cpp's scalar gelu_tanh_backward).
template <typename T>
HWY_INLINE V<T> GeluTanhBackwardV(V<T> g, V<T> x) {
  const D<T> d;
  const V<T> one = hn::Set(d, T(1)), half = hn::Set(d, T(0.5));
  const V<T> x_sq = hn::Mul(x, x);
  const V<T> t = VTanh<T>(GeluTanhInner<T>(x, hn::Mul(x_sq, x)));
  const V<T> left = hn::Mul(half, x), right = hn::Add(one, t);
  const V<T> left_derivative = hn::Mul(half, right);
  const V<T> tanh_derivative = hn::Sub(one, hn::Mul(t, t));
  const V<T> inner_derivative =
      hn::Mul(hn::Set(d, T(kBeta)), hn::Add(one, hn::Mul(hn::Set(d, T(3 * kKappa)), x_sq)));
  const V<T> right_derivative = hn::Mul(hn::Mul(left, tanh_derivative), inner_derivative);
  return hn::Mul(g, hn::Add(left_derivative, right_derivative));
}

// One vector of op(a, b), in the order of the scalar formulas.
template <typename T>
HWY_INLINE V<T> BinV(Bin op, V<T> a, V<T> b) {
  const D<T> d;
  const V<T> one = hn::Set(d, T(1));
  switch (op) {
    case Bin::Add: return hn::Add(a, b);
    case Bin::Sub: return hn::Sub(a, b);
    case Bin::Mul: return hn::Mul(a, b);
    case Bin::Div: return hn::Div(a, b);
    case Bin::ReluBackward: return hn::IfThenZeroElse(hn::Le(b, hn::Zero(d)), a);  // NaN y passes g
    case Bin::TanhBackward: return hn::Mul(a, hn::Sub(one, hn::Mul(b, b)));
    case Bin::SigmoidBackward: return hn::Mul(hn::Mul(a, hn::Sub(one, b)), b);
    case Bin::SqrtBackward: return hn::Div(a, hn::Mul(hn::Set(d, T(2)), b));
    case Bin::GeluBackward: return GeluBackwardV<T>(a, b);
    case Bin::GeluTanhBackward: return GeluTanhBackwardV<T>(a, b);
    case Bin::ErfBackward:
      return hn::Mul(hn::Mul(a, hn::Set(d, T(k2_SqrtPi))), VExp<T>(hn::Neg(hn::Mul(b, b))));
    // Compare and select, not Min/Max (whose NaN result is the target's):
    // a NaN x fails the comparison and passes through, as std::max/min.
    case Bin::ClampMin: return hn::IfThenElse(hn::Lt(a, b), b, a);
    case Bin::ClampMax: return hn::IfThenElse(hn::Lt(b, a), b, a);
  }
  return a;  // unreachable: every op returns above
}

template <typename T, Bin op, Bcast bc>
HWY_INLINE void BinLoop(T* HWY_RESTRICT o, const T* a, const T* b, size_t n) {
  const D<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  if (n >= N) {
    for (; i + N <= n; i += N) {
      const V<T> va = bc == Bcast::A ? hn::Set(d, a[0]) : hn::LoadU(d, a + i);
      const V<T> vb = bc == Bcast::B ? hn::Set(d, b[0]) : hn::LoadU(d, b + i);
      hn::StoreU(BinV<T>(op, va, vb), d, o + i);
    }
    if (i == n) return;
    i = n - N;  // last whole vector overlaps: each lane computes the same value
    if (o == a || o == b) {  // in place: the overlap would read outputs
      i = n - (n % N);
    } else {
      const V<T> va = bc == Bcast::A ? hn::Set(d, a[0]) : hn::LoadU(d, a + i);
      const V<T> vb = bc == Bcast::B ? hn::Set(d, b[0]) : hn::LoadU(d, b + i);
      hn::StoreU(BinV<T>(op, va, vb), d, o + i);
      return;
    }
  }
  const size_t r = n - i;
  HWY_ALIGN T ta[hn::MaxLanes(d)] = {}, tb[hn::MaxLanes(d)] = {}, to[hn::MaxLanes(d)];
  for (size_t k = 0; k < r; ++k) {
    ta[k] = bc == Bcast::A ? a[0] : a[i + k];
    tb[k] = bc == Bcast::B ? b[0] : b[i + k];
  }
  hn::Store(BinV<T>(op, hn::Load(d, ta), hn::Load(d, tb)), d, to);
  std::memcpy(o + i, to, r * sizeof(T));
}

template <typename T, Bin op>
HWY_INLINE void BinBc(T* o, const T* a, const T* b, size_t n, Bcast bc) {
  switch (bc) {
    case Bcast::None: return BinLoop<T, op, Bcast::None>(o, a, b, n);
    case Bcast::B: return BinLoop<T, op, Bcast::B>(o, a, b, n);
    case Bcast::A: return BinLoop<T, op, Bcast::A>(o, a, b, n);
  }
}

template <typename T>
void BinaryT(int op, T* o, const T* a, const T* b, size_t n, int bc) {
  const Bcast c = Bcast(bc);
  switch (Bin(op)) {
    case Bin::Add: return BinBc<T, Bin::Add>(o, a, b, n, c);
    case Bin::Sub: return BinBc<T, Bin::Sub>(o, a, b, n, c);
    case Bin::Mul: return BinBc<T, Bin::Mul>(o, a, b, n, c);
    case Bin::Div: return BinBc<T, Bin::Div>(o, a, b, n, c);
    case Bin::ReluBackward: return BinBc<T, Bin::ReluBackward>(o, a, b, n, c);
    case Bin::TanhBackward: return BinBc<T, Bin::TanhBackward>(o, a, b, n, c);
    case Bin::SigmoidBackward: return BinBc<T, Bin::SigmoidBackward>(o, a, b, n, c);
    case Bin::SqrtBackward: return BinBc<T, Bin::SqrtBackward>(o, a, b, n, c);
    case Bin::GeluBackward: return BinBc<T, Bin::GeluBackward>(o, a, b, n, c);
    case Bin::GeluTanhBackward: return BinBc<T, Bin::GeluTanhBackward>(o, a, b, n, c);
    case Bin::ErfBackward: return BinBc<T, Bin::ErfBackward>(o, a, b, n, c);
    case Bin::ClampMin: return BinBc<T, Bin::ClampMin>(o, a, b, n, c);
    case Bin::ClampMax: return BinBc<T, Bin::ClampMax>(o, a, b, n, c);
  }
}

void BinaryF32(int op, float* o, const float* a, const float* b, size_t n, int bc) {
  BinaryT<float>(op, o, a, b, n, bc);
}
void BinaryF64(int op, double* o, const double* a, const double* b, size_t n, int bc) {
  BinaryT<double>(op, o, a, b, n, bc);
}

// o[i] = a[i] + k * b[i]: the product rounded, then the sum (this file is
// compiled with -ffp-contract=off, so neither the lanes nor the scalar tail
// become one fma). o may be a.
template <typename T>
void AddScaledT(T* o, const T* a, const T* b, T k, size_t n) {
  const D<T> d;
  const size_t N = hn::Lanes(d);
  const V<T> vk = hn::Set(d, k);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::Mul(vk, hn::LoadU(d, b + i))), d, o + i);
  for (; i < n; ++i) o[i] = a[i] + k * b[i];
}
void AddScaledF32(float* o, const float* a, const float* b, float k, size_t n) { AddScaledT(o, a, b, k, n); }
void AddScaledF64(double* o, const double* a, const double* b, double k, size_t n) { AddScaledT(o, a, b, k, n); }

template <typename T, Un op>
HWY_INLINE V<T> UnV(V<T> x) {
  const D<T> d;
  if constexpr (op == Un::Exp) return VExp<T>(x);
  else if constexpr (op == Un::Log) return VLog<T>(x);
  else if constexpr (op == Un::Tanh) return VTanh<T>(x);
  else if constexpr (op == Un::Erf) return VErf<T>(x);
  else if constexpr (op == Un::Sigmoid) {
    const V<T> one = hn::Set(d, T(1));
    return hn::Div(one, hn::Add(one, VExp<T>(hn::Neg(x))));
  } else if constexpr (op == Un::Gelu) {
    // x * 0.5 * (1 + erf(x * sqrt(1/2))), the scalar kernel's order
    const V<T> e = GeluErf<T>(hn::Mul(x, hn::Set(d, T(kSqrt1_2))));
    return hn::Mul(hn::Mul(x, hn::Set(d, T(0.5))), hn::Add(hn::Set(d, T(1)), e));
  } else if constexpr (op == Un::GeluTanh) {
    // 0.5 * x * (1 + tanh(inner)), ATen's vectorized order
    const V<T> t = VTanh<T>(GeluTanhInner<T>(x, hn::Mul(hn::Mul(x, x), x)));
    return hn::Mul(hn::Mul(hn::Set(d, T(0.5)), x), hn::Add(hn::Set(d, T(1)), t));
  } else if constexpr (op == Un::Relu) {
    return hn::IfThenZeroElse(hn::Le(x, hn::Zero(d)), x);
  } else if constexpr (op == Un::Neg) {
    return hn::Neg(x);
  } else {
    return hn::Sqrt(x);
  }
}

template <typename T, Un op>
HWY_INLINE void UnLoop(T* o, const T* x, size_t n) {
  MapUnary(o, x, n, [](V<T> v) HWY_ATTR { return UnV<T, op>(v); });
}

template <typename T>
void UnaryT(int op, T* o, const T* x, size_t n) {
  switch (Un(op)) {
    case Un::Exp: return UnLoop<T, Un::Exp>(o, x, n);
    case Un::Log: return UnLoop<T, Un::Log>(o, x, n);
    case Un::Tanh: return UnLoop<T, Un::Tanh>(o, x, n);
    case Un::Erf: return UnLoop<T, Un::Erf>(o, x, n);
    case Un::Sigmoid: return UnLoop<T, Un::Sigmoid>(o, x, n);
    case Un::Gelu: return UnLoop<T, Un::Gelu>(o, x, n);
    case Un::Relu: return UnLoop<T, Un::Relu>(o, x, n);
    case Un::Neg: return UnLoop<T, Un::Neg>(o, x, n);
    case Un::Sqrt: return UnLoop<T, Un::Sqrt>(o, x, n);
    case Un::GeluTanh: return UnLoop<T, Un::GeluTanh>(o, x, n);
  }
}

void UnaryF32(int op, float* o, const float* x, size_t n) { UnaryT<float>(op, o, x, n); }
void UnaryF64(int op, double* o, const double* x, size_t n) { UnaryT<double>(op, o, x, n); }

// ---- bfloat16 relu and relu backward on the 16-bit patterns, 16 lanes a
// vector: their float32 results are an input's value or +0, which the
// float path's widening and rounding keep as they are except for a NaN,
// whose quiet bit the rounding sets (core/half.h's float_to_bf16); so do
// these. The autocast CNN's activations, a float32 round trip per element
// saved.
using D16 = hn::ScalableTag<int16_t>;
using V16 = hn::Vec<D16>;

HWY_INLINE hn::Mask<D16> Bf16IsNaN(V16 v) {
  const D16 d;
  return hn::Gt(hn::And(v, hn::Set(d, int16_t(0x7fff))), hn::Set(d, int16_t(0x7f80)));
}
HWY_INLINE V16 Bf16Quiet(V16 v) {
  return hn::IfThenElse(Bf16IsNaN(v), hn::Or(v, hn::Set(D16(), int16_t(0x40))), v);
}
// float relu: x <= 0 gives +0 (-0 and negatives; not a NaN, whatever its sign).
HWY_INLINE V16 Bf16Relu(V16 x) {
  return hn::IfThenZeroElse(hn::AndNot(Bf16IsNaN(x), hn::Lt(x, hn::Zero(D16()))), Bf16Quiet(x));
}
// y <= 0 (+0, -0, negatives; not a NaN) gives +0, else g.
HWY_INLINE V16 Bf16ReluBackward(V16 g, V16 y) {
  const auto pass = hn::Or(Bf16IsNaN(y), hn::Gt(y, hn::Zero(D16())));
  return hn::IfThenElseZero(pass, Bf16Quiet(g));
}

// o[i] = f(a[i], b[i]) over n 16-bit elements (a or b read once as a[0] /
// b[0] when it broadcasts), the last partial vector through buffers.
template <Bcast bc, typename F>
HWY_INLINE void Bf16Loop(int16_t* o, const int16_t* a, const int16_t* b, size_t n, F f) {
  if (n == 0) return;  // a[0] and b[0] are read below
  const D16 d;
  const size_t N = hn::Lanes(d);
  const V16 a0 = hn::Set(d, a[0]), b0 = hn::Set(d, b[0]);
  size_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(f(bc == Bcast::A ? a0 : hn::LoadU(d, a + i), bc == Bcast::B ? b0 : hn::LoadU(d, b + i)), d, o + i);
  if (i == n) return;
  HWY_ALIGN int16_t ta[hn::MaxLanes(d)] = {}, tb[hn::MaxLanes(d)] = {}, to[hn::MaxLanes(d)];
  for (size_t k = 0; k < n - i; ++k) {
    ta[k] = bc == Bcast::A ? a[0] : a[i + k];
    tb[k] = bc == Bcast::B ? b[0] : b[i + k];
  }
  hn::Store(f(hn::Load(d, ta), hn::Load(d, tb)), d, to);
  std::memcpy(o + i, to, (n - i) * sizeof(int16_t));
}

void ReluBF16(int16_t* o, const int16_t* x, size_t n) {
  Bf16Loop<Bcast::None>(o, x, x, n, [](V16 v, V16) { return Bf16Relu(v); });
}
void ReluBackwardBF16(int16_t* o, const int16_t* g, const int16_t* y, size_t n, int bc) {
  auto f = [](V16 gv, V16 yv) { return Bf16ReluBackward(gv, yv); };
  switch (Bcast(bc)) {
    case Bcast::None: return Bf16Loop<Bcast::None>(o, g, y, n, f);
    case Bcast::A: return Bf16Loop<Bcast::A>(o, g, y, n, f);
    case Bcast::B: return Bf16Loop<Bcast::B>(o, g, y, n, f);
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <array>

#include "cpu/kernels/convert_simd.h"

namespace tsr::kernels::simd {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(UnaryF32);
HWY_EXPORT(ReluBF16);
HWY_EXPORT(ReluBackwardBF16);
HWY_EXPORT(UnaryF64);
HWY_EXPORT(AddScaledF32);
HWY_EXPORT(AddScaledF64);
HWY_EXPORT(TargetName);

namespace {

// float16/bfloat16: chunks converted to float32 in L1-sized buffers.
constexpr int64_t kChunk = 1024;

void to_float(tsr_dtype d, const void* s, float* f, int64_t n) {
  if (d == TSR_FLOAT16) half_to_float_n(static_cast<const uint16_t*>(s), f, n, false);
  else bf16_to_float_n(static_cast<const uint16_t*>(s), f, n, false);
}
void from_float(tsr_dtype d, const float* f, void* s, int64_t n) {
  if (d == TSR_FLOAT16) float_to_half_n(f, static_cast<uint16_t*>(s), n, false);
  else float_to_bf16_n(f, static_cast<uint16_t*>(s), n, false);
}

// The float16/bfloat16 path of every kernel below: n elements in chunks of
// kChunk, each of the K inputs converted to float32 (one that broadcasts,
// its one element, once), compute(fin, fo, m) on the chunk's m elements in
// float32, fo converted back into out. One conversion each way per
// element, so the result is the float32 kernel's, rounded once.
template <size_t K, typename Compute>
void in_float_chunks(tsr_dtype d, void* out, const std::array<const void*, K>& ins,
                     const std::array<bool, K>& broadcast, int64_t n, const Compute& compute) {
  alignas(64) float fin[K][kChunk], fo[kChunk];
  const float* chunks[K];
  for (size_t k = 0; k < K; ++k) {
    chunks[k] = fin[k];
    if (broadcast[k]) to_float(d, ins[k], fin[k], 1);
  }
  auto* po = static_cast<uint16_t*>(out);
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = n - i < kChunk ? n - i : kChunk;
    for (size_t k = 0; k < K; ++k)
      if (!broadcast[k]) to_float(d, static_cast<const uint16_t*>(ins[k]) + i, fin[k], m);
    compute(chunks, fo, m);
    from_float(d, fo, po + i, m);
  }
}

bool is_16bit_float(tsr_dtype d) { return d == TSR_FLOAT16 || d == TSR_BFLOAT16; }

}  // namespace

bool binary(Bin op, tsr_dtype d, void* out, const void* a, const void* b, int64_t n, Bcast bc) {
  if (d == TSR_BFLOAT16 && op == Bin::ReluBackward) {
    HWY_DYNAMIC_DISPATCH(ReluBackwardBF16)(static_cast<int16_t*>(out), static_cast<const int16_t*>(a),
                                           static_cast<const int16_t*>(b), size_t(n), int(bc));
    return true;
  }
  switch (d) {
    case TSR_FLOAT32:
      HWY_DYNAMIC_DISPATCH(BinaryF32)(int(op), static_cast<float*>(out), static_cast<const float*>(a),
                                      static_cast<const float*>(b), size_t(n), int(bc));
      return true;
    case TSR_FLOAT64:
      HWY_DYNAMIC_DISPATCH(BinaryF64)(int(op), static_cast<double*>(out), static_cast<const double*>(a),
                                      static_cast<const double*>(b), size_t(n), int(bc));
      return true;
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
      in_float_chunks<2>(d, out, {a, b}, {bc == Bcast::A, bc == Bcast::B}, n,
                         [&](const float* const* f, float* fo, int64_t m) {
                           HWY_DYNAMIC_DISPATCH(BinaryF32)(int(op), fo, f[0], f[1], size_t(m), int(bc));
                         });
      return true;
    default: return false;
  }
}

bool binary_scalar(Bin op, tsr_dtype d, void* out, const void* a, double k, int64_t n) {
  const float kf = float(k);
  switch (d) {
    case TSR_FLOAT32: return binary(op, d, out, a, &kf, n, Bcast::B);
    case TSR_FLOAT64: return binary(op, d, out, a, &k, n, Bcast::B);
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
      // The scalar as a float, as the float32 kernel takes it (not rounded
      // to the 16-bit dtype first).
      in_float_chunks<1>(d, out, {a}, {false}, n, [&](const float* const* f, float* fo, int64_t m) {
        HWY_DYNAMIC_DISPATCH(BinaryF32)(int(op), fo, f[0], &kf, size_t(m), int(Bcast::B));
      });
      return true;
    default: return false;
  }
}

bool unary(Un op, tsr_dtype d, void* out, const void* x, int64_t n) {
  if (d == TSR_BFLOAT16 && op == Un::Relu) {
    HWY_DYNAMIC_DISPATCH(ReluBF16)(static_cast<int16_t*>(out), static_cast<const int16_t*>(x), size_t(n));
    return true;
  }
  switch (d) {
    case TSR_FLOAT32:
      HWY_DYNAMIC_DISPATCH(UnaryF32)(int(op), static_cast<float*>(out), static_cast<const float*>(x),
                                     size_t(n));
      return true;
    case TSR_FLOAT64:
      HWY_DYNAMIC_DISPATCH(UnaryF64)(int(op), static_cast<double*>(out), static_cast<const double*>(x),
                                     size_t(n));
      return true;
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
      in_float_chunks<1>(d, out, {x}, {false}, n, [&](const float* const* f, float* fo, int64_t m) {
        HWY_DYNAMIC_DISPATCH(UnaryF32)(int(op), fo, f[0], size_t(m));
      });
      return true;
    default: return false;
  }
}

bool add_scaled(tsr_dtype d, void* out, const void* a, const void* b, double k, int64_t n) {
  switch (d) {
    case TSR_FLOAT32:
      HWY_DYNAMIC_DISPATCH(AddScaledF32)(static_cast<float*>(out), static_cast<const float*>(a),
                                         static_cast<const float*>(b), float(k), size_t(n));
      return true;
    case TSR_FLOAT64:
      HWY_DYNAMIC_DISPATCH(AddScaledF64)(static_cast<double*>(out), static_cast<const double*>(a),
                                         static_cast<const double*>(b), k, size_t(n));
      return true;
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
      in_float_chunks<2>(d, out, {a, b}, {false, false}, n, [&](const float* const* f, float* fo, int64_t m) {
        HWY_DYNAMIC_DISPATCH(AddScaledF32)(fo, f[0], f[1], float(k), size_t(m));
      });
      return true;
    default: return false;
  }
}

bool clamp_16bit(tsr_dtype d, void* out, const void* x, int64_t n, const float* lo, const float* hi) {
  if (!is_16bit_float(d)) return false;
  in_float_chunks<1>(d, out, {x}, {false}, n, [&](const float* const* f, float* fo, int64_t m) {
    const float* in = f[0];
    if (lo) {
      HWY_DYNAMIC_DISPATCH(BinaryF32)(int(Bin::ClampMin), fo, in, lo, size_t(m), int(Bcast::B));
      in = fo;
    }
    if (hi) HWY_DYNAMIC_DISPATCH(BinaryF32)(int(Bin::ClampMax), fo, in, hi, size_t(m), int(Bcast::B));
    else if (!lo) std::memcpy(fo, in, size_t(m) * sizeof(float));  // no bound: x itself
  });
  return true;
}

const char* elementwise_simd_target() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace tsr::kernels::simd
#endif
