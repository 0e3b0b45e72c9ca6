// bfloat16 arrays in the Highway kernels that compute in float (batch norm,
// pooling): a load widens a vector's worth of bfloat16 to float in
// registers (exact), a store rounds floats to bfloat16 to nearest even with
// NaNs quieted, bit for bit core/half.h's float_to_bf16 (as
// float_to_bf16_n in convert_simd.cpp). Highway 1.0.3's own DemoteTo to
// bfloat16 truncates instead, hence these. The kernels then read and write
// each 16-bit element once, where widening the whole tensor to float32 and
// rounding the result back took two more passes over memory.
//
// LoadAs / StoreAs take a storage type S: float and double pass through,
// BFloat16 converts; Compute<S> is the type S's arithmetic runs in.
// Included after hwy/highway.h, once per target (Highway's -inl.h
// convention, as simd_common-inl.h).
#if defined(TSR_BF16_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TSR_BF16_SIMD_INL_H_
#undef TSR_BF16_SIMD_INL_H_
#else
#define TSR_BF16_SIMD_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The arithmetic type of storage type S: float for bfloat16, else S.
template <typename S>
using Compute = std::conditional_t<std::is_same_v<S, BFloat16>, float, S>;

// Lanes(df) bfloat16 at p widened to float (exact).
template <class DF>
HWY_INLINE hn::Vec<DF> LoadBf16(DF df, const BFloat16* HWY_RESTRICT p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::LoadU(du16, reinterpret_cast<const uint16_t*>(p));
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, bits)));
}

// v rounded to bfloat16 at p: nearest even, a NaN kept with its quiet bit
// set (float_to_bf16's rule, lane by lane).
template <class DF>
HWY_INLINE void StoreBf16(hn::Vec<DF> v, DF df, BFloat16* HWY_RESTRICT p) {
  const hn::RebindToSigned<DF> di32;
  const hn::RebindToUnsigned<DF> du32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto x = hn::BitCast(du32, v);
  const auto hi = hn::ShiftRight<16>(x);
  const auto rounded =
      hn::ShiftRight<16>(hn::Add(x, hn::Add(hn::Set(du32, 0x7fffu), hn::And(hi, hn::Set(du32, 1u)))));
  // NaN by a float compare: no constants (GCC rebuilds each one per vector
  // inside the kernels' loops rather than keep it in a register).
  const auto r = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Or(hi, hn::Set(du32, 0x40u)), rounded);
  hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, r)), du16, reinterpret_cast<uint16_t*>(p));
}

// A vector of D's lanes from storage S (S = D's lane type, or bfloat16 for
// float lanes), and back.
template <class D>
HWY_INLINE hn::Vec<D> LoadAs(D d, const hn::TFromD<D>* HWY_RESTRICT p) {
  return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadAs(D d, const BFloat16* HWY_RESTRICT p) {
  return LoadBf16(d, p);
}
template <class D>
HWY_INLINE void StoreAs(hn::Vec<D> v, D d, hn::TFromD<D>* HWY_RESTRICT p) {
  hn::StoreU(v, d, p);
}
template <class D>
HWY_INLINE void StoreAs(hn::Vec<D> v, D d, BFloat16* HWY_RESTRICT p) {
  StoreBf16(v, d, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#endif  // TSR_BF16_SIMD_INL_H_
