// Highway kernels of mask_simd.h, compiled once per target by
// foreach_target.h and picked at run time by HWY_DYNAMIC_DISPATCH.
#include "cpu/kernels/simd_targets.h"  // before Highway: no AVX-512 (memory bound)

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/mask_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "cpu/kernels/simd_common-inl.h"

#include <cstring>

#include "cpu/kernels/mask_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T, Cmp op>
HWY_INLINE auto CmpM(V<T> a, V<T> b) {
  if constexpr (op == Cmp::Eq) return hn::Eq(a, b);
  else if constexpr (op == Cmp::Ne) return hn::Not(hn::Eq(a, b));  // hn::Ne is ordered: NaN != x false
  else if constexpr (op == Cmp::Lt) return hn::Lt(a, b);
  // Highway 1.0 has Le/Ge for floats only; for integers (no NaN) they are
  // the negations of Gt/Lt.
  else if constexpr (op == Cmp::Le) {
    if constexpr (hwy::IsFloat<T>()) return hn::Le(a, b);
    else return hn::Not(hn::Gt(a, b));
  } else if constexpr (op == Cmp::Gt) {
    return hn::Gt(a, b);
  } else {
    if constexpr (hwy::IsFloat<T>()) return hn::Ge(a, b);
    else return hn::Not(hn::Lt(a, b));
  }
}

// The mask of one vector of T lanes as bytes 0/1, stored at o (Lanes(D<T>) bytes).
template <typename T, typename M>
HWY_INLINE void StoreBools(M m, uint8_t* o) {
  const hn::RebindToUnsigned<D<T>> du;
  using U = hn::TFromD<decltype(du)>;
  const auto ones = hn::IfThenElseZero(hn::RebindMask(du, m), hn::Set(du, U(1)));
  if constexpr (sizeof(T) == 1) {
    hn::StoreU(ones, du, o);
  } else {
    const hn::Rebind<uint8_t, decltype(du)> d8;
    hn::StoreU(hn::TruncateTo(d8, ones), d8, o);
  }
}

template <typename T, Cmp op, Bcast bc>
HWY_INLINE void CmpLoop(uint8_t* o, const T* a, const T* b, size_t n) {
  const D<T> d;
  const size_t N = hn::Lanes(d);
  const V<T> ka = hn::Set(d, a[0]), kb = hn::Set(d, b[0]);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V<T> va = bc == Bcast::A ? ka : hn::LoadU(d, a + i);
    const V<T> vb = bc == Bcast::B ? kb : hn::LoadU(d, b + i);
    StoreBools<T>(CmpM<T, op>(va, vb), o + i);
  }
  if (i == n) return;
  const size_t r = n - i;
  HWY_ALIGN T ta[hn::MaxLanes(d)] = {}, tb[hn::MaxLanes(d)] = {};
  uint8_t to[hn::MaxLanes(d)];
  if (bc != Bcast::A) std::memcpy(ta, a + i, r * sizeof(T));
  if (bc != Bcast::B) std::memcpy(tb, b + i, r * sizeof(T));
  const V<T> va = bc == Bcast::A ? ka : hn::Load(d, ta);
  const V<T> vb = bc == Bcast::B ? kb : hn::Load(d, tb);
  StoreBools<T>(CmpM<T, op>(va, vb), to);
  std::memcpy(o + i, to, r);
}

template <typename T, Cmp op>
HWY_INLINE void CmpBc(uint8_t* o, const T* a, const T* b, size_t n, int bc) {
  switch (Bcast(bc)) {
    case Bcast::None: return CmpLoop<T, op, Bcast::None>(o, a, b, n);
    case Bcast::B: return CmpLoop<T, op, Bcast::B>(o, a, b, n);
    case Bcast::A: return CmpLoop<T, op, Bcast::A>(o, a, b, n);
  }
}

template <typename T>
void CompareT(int op, void* o, const void* a, const void* b, size_t n, int bc) {
  auto* po = static_cast<uint8_t*>(o);
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  switch (Cmp(op)) {
    case Cmp::Eq: return CmpBc<T, Cmp::Eq>(po, pa, pb, n, bc);
    case Cmp::Ne: return CmpBc<T, Cmp::Ne>(po, pa, pb, n, bc);
    case Cmp::Lt: return CmpBc<T, Cmp::Lt>(po, pa, pb, n, bc);
    case Cmp::Le: return CmpBc<T, Cmp::Le>(po, pa, pb, n, bc);
    case Cmp::Gt: return CmpBc<T, Cmp::Gt>(po, pa, pb, n, bc);
    case Cmp::Ge: return CmpBc<T, Cmp::Ge>(po, pa, pb, n, bc);
  }
}
#define TSR_CMP(name, T) \
  void name(int op, void* o, const void* a, const void* b, size_t n, int bc) { CompareT<T>(op, o, a, b, n, bc); }
TSR_CMP(CompareI8, int8_t)
TSR_CMP(CompareU8, uint8_t)
TSR_CMP(CompareI16, int16_t)
TSR_CMP(CompareU16, uint16_t)
TSR_CMP(CompareI32, int32_t)
TSR_CMP(CompareU32, uint32_t)
TSR_CMP(CompareI64, int64_t)
TSR_CMP(CompareU64, uint64_t)
TSR_CMP(CompareF32, float)
TSR_CMP(CompareF64, double)
#undef TSR_CMP

// where over lanes of unsigned T (the bits of any dtype of that size); a
// stride-0 operand is one value set in every lane.
template <typename T, bool cb, bool ab, bool bb>
HWY_INLINE void SelLoop(T* o, const uint8_t* c, const T* a, const T* b, size_t n) {
  const D<T> d;
  const hn::Rebind<uint8_t, D<T>> d8;
  const size_t N = hn::Lanes(d);
  const V<T> ka = hn::Set(d, a[0]), kb = hn::Set(d, b[0]);
  const auto kc = hn::Ne(hn::Set(d, T(c[0])), hn::Zero(d));
  auto cond = [&](const uint8_t* p) {
    if constexpr (sizeof(T) == 1) {
      return hn::Ne(hn::LoadU(d, p), hn::Zero(d));
    } else if constexpr (sizeof(T) == 8) {  // no direct u8 -> u64 promotion in Highway 1.0
      const hn::Rebind<uint32_t, D<T>> d32;
      return hn::Ne(hn::PromoteTo(d, hn::PromoteTo(d32, hn::LoadU(d8, p))), hn::Zero(d));
    } else {
      return hn::Ne(hn::PromoteTo(d, hn::LoadU(d8, p)), hn::Zero(d));
    }
  };
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto m = cb ? kc : cond(c + i);
    hn::StoreU(hn::IfThenElse(m, ab ? ka : hn::LoadU(d, a + i), bb ? kb : hn::LoadU(d, b + i)), d, o + i);
  }
  if (i == n) return;
  const size_t r = n - i;
  HWY_ALIGN T ta[hn::MaxLanes(d)] = {}, tb[hn::MaxLanes(d)] = {}, to[hn::MaxLanes(d)];
  uint8_t tc[hn::MaxLanes(d)] = {};
  if (!cb) std::memcpy(tc, c + i, r);
  if (!ab) std::memcpy(ta, a + i, r * sizeof(T));
  if (!bb) std::memcpy(tb, b + i, r * sizeof(T));
  const auto m = cb ? kc : cond(tc);
  hn::Store(hn::IfThenElse(m, ab ? ka : hn::Load(d, ta), bb ? kb : hn::Load(d, tb)), d, to);
  std::memcpy(o + i, to, r * sizeof(T));
}

template <typename T>
void SelectT(void* o, const void* c, const void* a, const void* b, size_t n, int bcast_bits) {
  auto* po = static_cast<T*>(o);
  const auto* pc = static_cast<const uint8_t*>(c);
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  switch (bcast_bits) {  // bit 0: cond, bit 1: a, bit 2: b
    case 0: return SelLoop<T, false, false, false>(po, pc, pa, pb, n);
    case 1: return SelLoop<T, true, false, false>(po, pc, pa, pb, n);
    case 2: return SelLoop<T, false, true, false>(po, pc, pa, pb, n);
    case 3: return SelLoop<T, true, true, false>(po, pc, pa, pb, n);
    case 4: return SelLoop<T, false, false, true>(po, pc, pa, pb, n);
    case 5: return SelLoop<T, true, false, true>(po, pc, pa, pb, n);
    case 6: return SelLoop<T, false, true, true>(po, pc, pa, pb, n);
    default: return SelLoop<T, true, true, true>(po, pc, pa, pb, n);
  }
}
void Select8(void* o, const void* c, const void* a, const void* b, size_t n, int bits) {
  SelectT<uint8_t>(o, c, a, b, n, bits);
}
void Select16(void* o, const void* c, const void* a, const void* b, size_t n, int bits) {
  SelectT<uint16_t>(o, c, a, b, n, bits);
}
void Select32(void* o, const void* c, const void* a, const void* b, size_t n, int bits) {
  SelectT<uint32_t>(o, c, a, b, n, bits);
}
void Select64(void* o, const void* c, const void* a, const void* b, size_t n, int bits) {
  SelectT<uint64_t>(o, c, a, b, n, bits);
}

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "cpu/kernels/convert_simd.h"

namespace tsr::kernels::simd {

HWY_EXPORT(CompareI8);
HWY_EXPORT(CompareU8);
HWY_EXPORT(CompareI16);
HWY_EXPORT(CompareU16);
HWY_EXPORT(CompareI32);
HWY_EXPORT(CompareU32);
HWY_EXPORT(CompareI64);
HWY_EXPORT(CompareU64);
HWY_EXPORT(CompareF32);
HWY_EXPORT(CompareF64);
HWY_EXPORT(Select8);
HWY_EXPORT(Select16);
HWY_EXPORT(Select32);
HWY_EXPORT(Select64);

bool compare(Cmp op, tsr_dtype d, bool* out, const void* a, const void* b, int64_t n, Bcast bc) {
  const int o = int(op), c = int(bc);
  const size_t m = size_t(n);
  switch (d) {
    case TSR_BOOL:  // bytes 0/1: compared as uint8, as torch compares bool
    case TSR_UINT8: HWY_DYNAMIC_DISPATCH(CompareU8)(o, out, a, b, m, c); return true;
    case TSR_INT8: HWY_DYNAMIC_DISPATCH(CompareI8)(o, out, a, b, m, c); return true;
    case TSR_INT16: HWY_DYNAMIC_DISPATCH(CompareI16)(o, out, a, b, m, c); return true;
    case TSR_UINT16: HWY_DYNAMIC_DISPATCH(CompareU16)(o, out, a, b, m, c); return true;
    case TSR_INT32: HWY_DYNAMIC_DISPATCH(CompareI32)(o, out, a, b, m, c); return true;
    case TSR_UINT32: HWY_DYNAMIC_DISPATCH(CompareU32)(o, out, a, b, m, c); return true;
    case TSR_INT64: HWY_DYNAMIC_DISPATCH(CompareI64)(o, out, a, b, m, c); return true;
    case TSR_UINT64: HWY_DYNAMIC_DISPATCH(CompareU64)(o, out, a, b, m, c); return true;
    case TSR_FLOAT32: HWY_DYNAMIC_DISPATCH(CompareF32)(o, out, a, b, m, c); return true;
    case TSR_FLOAT64: HWY_DYNAMIC_DISPATCH(CompareF64)(o, out, a, b, m, c); return true;
    case TSR_FLOAT16:
    case TSR_BFLOAT16: {  // widened to float32 in L1-sized chunks (exact)
      constexpr int64_t kChunk = 1024;
      alignas(64) float fa[kChunk], fb[kChunk];
      const auto* pa = static_cast<const uint16_t*>(a);
      const auto* pb = static_cast<const uint16_t*>(b);
      auto widen = [d](const uint16_t* s, float* f, int64_t k) {
        if (d == TSR_FLOAT16) half_to_float_n(s, f, k, false);
        else bf16_to_float_n(s, f, k, false);
      };
      if (bc == Bcast::A) widen(pa, fa, 1);
      if (bc == Bcast::B) widen(pb, fb, 1);
      for (int64_t i = 0; i < n; i += kChunk) {
        const int64_t k = n - i < kChunk ? n - i : kChunk;
        if (bc != Bcast::A) widen(pa + i, fa, k);
        if (bc != Bcast::B) widen(pb + i, fb, k);
        HWY_DYNAMIC_DISPATCH(CompareF32)(o, out + i, fa, fb, size_t(k), c);
      }
      return true;
    }
    default: return false;
  }
}

bool select(int elem_size, void* out, const bool* cond, const void* a, const void* b, int64_t n,
            bool cond_bcast, bool a_bcast, bool b_bcast) {
  const int bits = int(cond_bcast) | int(a_bcast) << 1 | int(b_bcast) << 2;
  switch (elem_size) {
    case 1: HWY_DYNAMIC_DISPATCH(Select8)(out, cond, a, b, size_t(n), bits); return true;
    case 2: HWY_DYNAMIC_DISPATCH(Select16)(out, cond, a, b, size_t(n), bits); return true;
    case 4: HWY_DYNAMIC_DISPATCH(Select32)(out, cond, a, b, size_t(n), bits); return true;
    case 8: HWY_DYNAMIC_DISPATCH(Select64)(out, cond, a, b, size_t(n), bits); return true;
    default: return false;
  }
}

}  // namespace tsr::kernels::simd
#endif
