// Highway kernels for convert_simd.h, compiled once per x86/ARM target by
// foreach_target.h and picked at run time by HWY_DYNAMIC_DISPATCH.
//
// float16 on x86 with F16C (Highway's AVX2 and AVX-512 targets) uses the
// hardware conversion, which rounds to nearest even like the scalar code but
// quiets signalling NaNs and (float -> half) keeps NaN payload bits the
// scalar code drops; a vector holding any NaN is therefore converted by the
// scalar functions. Elsewhere float16 goes through integer SIMD that repeats
// the scalar code's steps lane by lane. bfloat16 is always integer SIMD: the
// AVX-512 BF16 instruction flushes subnormal inputs to zero, which the scalar
// rounding does not.
#define TSR_SIMD_KEEP_AVX512  // compute-bound: AVX-512 pays
#include "cpu/kernels/simd_targets.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/convert_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include "core/half.h"
#include "cpu/kernels/convert_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef TSR_HW_F16
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define TSR_HW_F16 1
#else
#define TSR_HW_F16 0
#endif

// Elements to convert one by one until dst is 64-byte aligned, so that the
// vector stores after them may be streaming ones (which need alignment).
template <typename To>
size_t stream_head(const To* dst, size_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
  if (a % sizeof(To) != 0) return n;  // never aligned: all scalar is still exact
  const size_t head = ((64 - a % 64) % 64) / sizeof(To);
  return head < n ? head : n;
}

// The shared loop: scalar head (when streaming) and tail, `vec(i, store)`
// for each whole vector, where store(v, d, ptr) is StoreU or Stream.
template <typename To, typename From, typename Scalar, typename Vec>
void run(const From* s, To* d, size_t n, bool stream, size_t lanes, Scalar scalar, Vec vec) {
  size_t i = 0;
  // Highway streams a partial (< 16-byte) vector as a whole 16-byte one,
  // which would write past it: such targets store normally.
  if (stream && lanes * sizeof(To) >= 16) {
    for (const size_t h = stream_head(d, n); i < h; ++i) d[i] = scalar(s[i]);
    if (i + lanes <= n) {
      for (; i + lanes <= n; i += lanes)
        vec(i, [](auto v, auto tag, To* p) { hn::Stream(v, tag, p); });
      hwy::FlushStream();
    }
  }
  for (; i + lanes <= n; i += lanes) vec(i, [](auto v, auto tag, To* p) { hn::StoreU(v, tag, p); });
  for (; i < n; ++i) d[i] = scalar(s[i]);
}

void HalfToFloat(const uint16_t* s, float* d, size_t n, bool stream) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const size_t N = hn::Lanes(df);
  run(s, d, n, stream, N, half_to_float, [&](size_t i, auto store) {
#if TSR_HW_F16
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const auto f = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(s + i)));
    if (HWY_LIKELY(hn::AllFalse(df, hn::IsNaN(f)))) return store(f, df, d + i);
    HWY_ALIGN float tmp[hn::MaxLanes(df)];
    for (size_t k = 0; k < N; ++k) tmp[k] = half_to_float(s[i + k]);
    store(hn::Load(df, tmp), df, d + i);
#else
    const auto h = hn::PromoteTo(du32, hn::LoadU(du16, s + i));
    const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du32, 0x8000u)));
    const auto exp = hn::And(hn::ShiftRight<10>(h), hn::Set(du32, 0x1fu));
    const auto man = hn::And(h, hn::Set(du32, 0x3ffu));
    const auto man_hi = hn::ShiftLeft<13>(man);
    // exponent 1..30: rebias by 127 - 15 = 112
    const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exp, hn::Set(du32, 112u))), man_hi);
    const auto infnan = hn::Or(hn::Set(du32, 0x7f800000u), man_hi);
    // exponent 0: man * 2^-24 exactly (man < 2^10), as the scalar code
    const hn::RebindToSigned<decltype(df)> di32;
    const auto sub = hn::BitCast(
        du32, hn::Mul(hn::ConvertTo(df, hn::BitCast(di32, man)), hn::Set(df, 1.0f / 16777216.0f)));
    const auto mag = hn::IfThenElse(hn::Eq(exp, hn::Set(du32, 0x1fu)), infnan,
                                    hn::IfThenElse(hn::Eq(exp, hn::Zero(du32)), sub, normal));
    store(hn::BitCast(df, hn::Or(sign, mag)), df, d + i);
#endif
  });
}

void FloatToHalf(const float* s, uint16_t* d, size_t n, bool stream) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const size_t N = hn::Lanes(df);
  run(s, d, n, stream, N, float_to_half, [&](size_t i, auto store) {
    const auto f = hn::LoadU(df, s + i);
#if TSR_HW_F16
    if (HWY_UNLIKELY(!hn::AllFalse(df, hn::IsNaN(f)))) {
      HWY_ALIGN uint16_t tmp[hn::MaxLanes(du16)];
      for (size_t k = 0; k < N; ++k) tmp[k] = float_to_half(s[i + k]);
      return store(hn::Load(du16, tmp), du16, d + i);
    }
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    store(hn::BitCast(du16, hn::DemoteTo(dh, f)), du16, d + i);
#else
    const auto x = hn::BitCast(di32, f);
    const auto sign = hn::And(hn::ShiftRight<16>(x), hn::Set(di32, 0x8000));
    const auto ax = hn::And(x, hn::Set(di32, 0x7fffffff));
    // NaN -> quiet NaN without payload; inf and overflow (>= 65520) -> inf
    const auto nan = hn::Set(di32, 0x7e00), inf = hn::Set(di32, 0x7c00);
    const auto big = hn::IfThenElse(hn::Gt(ax, hn::Set(di32, 0x7f800000)), nan, inf);
    // below 2^-14: adding 0.5 lets the FPU round the subnormal half (RNE)
    const auto sub = hn::Sub(hn::BitCast(di32, hn::Add(hn::BitCast(df, ax), hn::Set(df, 0.5f))),
                             hn::Set(di32, 0x3f000000));
    // normal: rebias (-112 << 23) and round to nearest even at bit 13
    const hn::RebindToUnsigned<decltype(df)> du32;
    const auto uax = hn::BitCast(du32, ax);
    const auto odd = hn::And(hn::ShiftRight<13>(uax), hn::Set(du32, 1u));
    const auto normal = hn::BitCast(
        di32, hn::ShiftRight<13>(hn::Add(uax, hn::Add(hn::Set(du32, 0xc8000fffu), odd))));
    const auto normal16 = hn::And(normal, hn::Set(di32, 0xffff));
    const auto mag = hn::IfThenElse(
        hn::Lt(ax, hn::Set(di32, 0x38800000)), sub,
        hn::IfThenElse(hn::Lt(ax, hn::Set(di32, 0x477ff000)), normal16, big));
    store(hn::DemoteTo(du16, hn::Or(sign, mag)), du16, d + i);
#endif
  });
}

void Bf16ToFloat(const uint16_t* s, float* d, size_t n, bool stream) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  run(s, d, n, stream, hn::Lanes(df), bf16_to_float, [&](size_t i, auto store) {
    store(hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, s + i)))), df,
          d + i);
  });
}

void FloatToBf16(const float* s, uint16_t* d, size_t n, bool stream) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  run(s, d, n, stream, hn::Lanes(df), float_to_bf16, [&](size_t i, auto store) {
    const auto x = hn::BitCast(du32, hn::LoadU(df, s + i));
    const auto hi = hn::ShiftRight<16>(x);
    // round to nearest even at bit 16 (unsigned wrap-around, as the scalar)
    const auto rounded =
        hn::ShiftRight<16>(hn::Add(x, hn::Add(hn::Set(du32, 0x7fffu), hn::And(hi, hn::Set(du32, 1u)))));
    const auto is_nan = hn::Gt(hn::BitCast(di32, hn::And(x, hn::Set(du32, 0x7fffffffu))),
                               hn::Set(di32, 0x7f800000));
    const auto quiet = hn::Or(hi, hn::Set(du32, 0x40u));
    const auto r = hn::IfThenElse(hn::RebindMask(du32, is_nan), quiet, rounded);
    store(hn::DemoteTo(du16, hn::BitCast(di32, r)), du16, d + i);
  });
}

// d[i] = s[2 * i] for i < n: the even elements (x[..., ::2] into a
// contiguous run), de-interleaved by vector loads rather than one scalar
// move per element. A vector reads s[2i .. 2i + 2N), one element past the
// last even one it keeps, so the vector loop stops while i + N < n and
// never reads past s[2n - 2].
template <typename T>
void GatherEven(const T* HWY_RESTRICT s, T* HWY_RESTRICT d, size_t n, bool stream) {
  const hn::ScalableTag<T> dt;
  const size_t N = hn::Lanes(dt);
  size_t i = 0;
  auto loop = [&](auto store) {
    for (; i + N < n; i += N) {
      hn::Vec<decltype(dt)> even, odd;
      hn::LoadInterleaved2(dt, s + 2 * i, even, odd);
      store(even, dt, d + i);
    }
  };
  if (stream && N * sizeof(T) >= 16) {  // as run() above
    for (const size_t h = stream_head(d, n); i < h; ++i) d[i] = s[2 * i];
    loop([](auto v, auto tag, T* p) { hn::Stream(v, tag, p); });
    hwy::FlushStream();
  }
  loop([](auto v, auto tag, T* p) { hn::StoreU(v, tag, p); });
  for (; i < n; ++i) d[i] = s[2 * i];
}
void GatherEven1(const uint8_t* s, uint8_t* d, size_t n, bool stream) { GatherEven(s, d, n, stream); }
void GatherEven2(const uint16_t* s, uint16_t* d, size_t n, bool stream) { GatherEven(s, d, n, stream); }
void GatherEven4(const uint32_t* s, uint32_t* d, size_t n, bool stream) { GatherEven(s, d, n, stream); }
void GatherEven8(const uint64_t* s, uint64_t* d, size_t n, bool stream) { GatherEven(s, d, n, stream); }

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace tsr::kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels {

HWY_EXPORT(HalfToFloat);
HWY_EXPORT(FloatToHalf);
HWY_EXPORT(Bf16ToFloat);
HWY_EXPORT(FloatToBf16);
HWY_EXPORT(TargetName);
HWY_EXPORT(GatherEven1);
HWY_EXPORT(GatherEven2);
HWY_EXPORT(GatherEven4);
HWY_EXPORT(GatherEven8);

void half_to_float_n(const uint16_t* src, float* dst, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(HalfToFloat)(src, dst, size_t(n), stream);
}
void float_to_half_n(const float* src, uint16_t* dst, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(FloatToHalf)(src, dst, size_t(n), stream);
}
void bf16_to_float_n(const uint16_t* src, float* dst, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(Bf16ToFloat)(src, dst, size_t(n), stream);
}
void float_to_bf16_n(const float* src, uint16_t* dst, int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(FloatToBf16)(src, dst, size_t(n), stream);
}
bool gather_even_n(const void* src, void* dst, int64_t n, int64_t element_size, bool stream) {
  const size_t m = size_t(n);
  switch (element_size) {
    case 1:
      HWY_DYNAMIC_DISPATCH(GatherEven1)(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), m, stream);
      return true;
    case 2:
      HWY_DYNAMIC_DISPATCH(GatherEven2)(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), m, stream);
      return true;
    case 4:
      HWY_DYNAMIC_DISPATCH(GatherEven4)(static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), m, stream);
      return true;
    case 8:
      HWY_DYNAMIC_DISPATCH(GatherEven8)(static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), m, stream);
      return true;
    default:
      return false;
  }
}
const char* convert_simd_target() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace tsr::kernels
#endif
