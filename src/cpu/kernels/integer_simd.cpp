// Highway kernels of integer_simd.h, compiled once per target by
// foreach_target.h and picked at run time by HWY_DYNAMIC_DISPATCH.
#include "cpu/kernels/simd_targets.h"  // before Highway: no AVX-512 (memory bound)

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels/integer_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "cpu/kernels/simd_common-inl.h"

#include <cstring>

#include "cpu/kernels/integer_simd.h"

HWY_BEFORE_NAMESPACE();
namespace tsr::kernels::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes are unsigned: wrapping add/sub/mul are the same bits for signed
// and unsigned types, and unsigned overflow is defined.
// 8-bit multiply (no such instruction): the low byte of a 16-bit product
// depends only on the low bytes of its factors, so the even bytes are the
// low bytes of the 16-bit lane products and the odd bytes those of the
// products of the lanes shifted down by 8.
HWY_INLINE V<uint8_t> Mul8(V<uint8_t> a, V<uint8_t> b) {
  const D<uint8_t> d8;
#if HWY_TARGET == HWY_SCALAR  // one lane: no 16-bit view of it
  return hn::Set(d8, uint8_t(unsigned(hn::GetLane(a)) * unsigned(hn::GetLane(b))));
#else
  const hn::Repartition<uint16_t, D<uint8_t>> d16;
  const auto a16 = hn::BitCast(d16, a), b16 = hn::BitCast(d16, b);
  const auto even = hn::And(hn::Mul(a16, b16), hn::Set(d16, uint16_t(0x00FF)));
  const auto odd = hn::ShiftLeft<8>(hn::Mul(hn::ShiftRight<8>(a16), hn::ShiftRight<8>(b16)));
  return hn::BitCast(d8, hn::Or(even, odd));
#endif
}

// op: 0 add, 1 sub, 2 mul, 3 bool or, 4 bool and.
template <typename T, int op>
HWY_INLINE V<T> IntV(V<T> a, V<T> b) {
  const D<T> d;
  if constexpr (op == 0) return hn::Add(a, b);
  else if constexpr (op == 1) return hn::Sub(a, b);
  else if constexpr (op == 2) {
    if constexpr (sizeof(T) == 1) return Mul8(a, b);
    else return hn::Mul(a, b);
  } else {
    const V<T> one = hn::Set(d, T(1)), zero = hn::Zero(d);
    const auto m = op == 3 ? hn::Ne(hn::Or(a, b), zero) : hn::And(hn::Ne(a, zero), hn::Ne(b, zero));
    return hn::IfThenElseZero(m, one);
  }
}

// The tail (n % lanes) goes through one more vector of a zero-padded copy.
template <typename T, int op, Bcast bc>
HWY_INLINE void IntLoop(T* o, const T* a, const T* b, size_t n) {
  const D<T> d;
  const size_t N = hn::Lanes(d);
  const V<T> ka = hn::Set(d, a[0]), kb = hn::Set(d, b[0]);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const V<T> va = bc == Bcast::A ? ka : hn::LoadU(d, a + i);
    const V<T> vb = bc == Bcast::B ? kb : hn::LoadU(d, b + i);
    hn::StoreU(IntV<T, op>(va, vb), d, o + i);
  }
  if (i == n) return;
  const size_t r = n - i;
  HWY_ALIGN T ta[hn::MaxLanes(d)] = {}, tb[hn::MaxLanes(d)] = {}, to[hn::MaxLanes(d)];
  if (bc != Bcast::A) std::memcpy(ta, a + i, r * sizeof(T));
  if (bc != Bcast::B) std::memcpy(tb, b + i, r * sizeof(T));
  const V<T> va = bc == Bcast::A ? ka : hn::Load(d, ta);
  const V<T> vb = bc == Bcast::B ? kb : hn::Load(d, tb);
  hn::Store(IntV<T, op>(va, vb), d, to);
  std::memcpy(o + i, to, r * sizeof(T));
}

template <typename T, int op>
HWY_INLINE void IntBc(T* o, const T* a, const T* b, size_t n, int bc) {
  switch (Bcast(bc)) {
    case Bcast::None: return IntLoop<T, op, Bcast::None>(o, a, b, n);
    case Bcast::B: return IntLoop<T, op, Bcast::B>(o, a, b, n);
    case Bcast::A: return IntLoop<T, op, Bcast::A>(o, a, b, n);
  }
}

template <typename T>
void IntBinaryT(int op, void* o, const void* a, const void* b, size_t n, int bc) {
  T* po = static_cast<T*>(o);
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  switch (op) {
    case 0: return IntBc<T, 0>(po, pa, pb, n, bc);
    case 1: return IntBc<T, 1>(po, pa, pb, n, bc);
    case 2: return IntBc<T, 2>(po, pa, pb, n, bc);
    case 3: return IntBc<T, 3>(po, pa, pb, n, bc);
    case 4: return IntBc<T, 4>(po, pa, pb, n, bc);
  }
}
void IntBinary8(int op, void* o, const void* a, const void* b, size_t n, int bc) {
  IntBinaryT<uint8_t>(op, o, a, b, n, bc);
}
void IntBinary16(int op, void* o, const void* a, const void* b, size_t n, int bc) {
  IntBinaryT<uint16_t>(op, o, a, b, n, bc);
}
void IntBinary32(int op, void* o, const void* a, const void* b, size_t n, int bc) {
  IntBinaryT<uint32_t>(op, o, a, b, n, bc);
}
void IntBinary64(int op, void* o, const void* a, const void* b, size_t n, int bc) {
  IntBinaryT<uint64_t>(op, o, a, b, n, bc);
}

// op: 0 neg (wrapping), 1 signed relu (max(x, 0): x <= 0 gives 0).
template <typename T, int op>
HWY_INLINE V<T> IntUnV(V<T> x) {
  const D<T> d;
  if constexpr (op == 0) {
    return hn::Sub(hn::Zero(d), x);
  } else {
    const hn::RebindToSigned<D<T>> di;
    return hn::BitCast(d, hn::Max(hn::BitCast(di, x), hn::Zero(di)));
  }
}

template <typename T, int op>
HWY_INLINE void IntUnLoop(T* o, const T* x, size_t n) {
  MapUnary(o, x, n, [](V<T> v) HWY_ATTR { return IntUnV<T, op>(v); });
}

template <typename T>
void IntUnaryT(int op, void* o, const void* x, size_t n) {
  if (op == 0) IntUnLoop<T, 0>(static_cast<T*>(o), static_cast<const T*>(x), n);
  else IntUnLoop<T, 1>(static_cast<T*>(o), static_cast<const T*>(x), n);
}
void IntUnary8(int op, void* o, const void* x, size_t n) { IntUnaryT<uint8_t>(op, o, x, n); }
void IntUnary16(int op, void* o, const void* x, size_t n) { IntUnaryT<uint16_t>(op, o, x, n); }
void IntUnary32(int op, void* o, const void* x, size_t n) { IntUnaryT<uint32_t>(op, o, x, n); }
void IntUnary64(int op, void* o, const void* x, size_t n) { IntUnaryT<uint64_t>(op, o, x, n); }

}  // namespace HWY_NAMESPACE
}  // namespace tsr::kernels::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tsr::kernels::simd {

HWY_EXPORT(IntBinary8);
HWY_EXPORT(IntBinary16);
HWY_EXPORT(IntBinary32);
HWY_EXPORT(IntBinary64);
HWY_EXPORT(IntUnary8);
HWY_EXPORT(IntUnary16);
HWY_EXPORT(IntUnary32);
HWY_EXPORT(IntUnary64);

namespace {

bool is_signed_int(tsr_dtype d) {
  return d == TSR_INT8 || d == TSR_INT16 || d == TSR_INT32 || d == TSR_INT64;
}

// Bytes per element of the integer dtypes, 0 for the others.
int int_width(tsr_dtype d) {
  switch (d) {
    case TSR_INT8: case TSR_UINT8: return 1;
    case TSR_INT16: case TSR_UINT16: return 2;
    case TSR_INT32: case TSR_UINT32: return 4;
    case TSR_INT64: case TSR_UINT64: return 8;
    default: return 0;
  }
}

}  // namespace

bool int_binary(Bin op, tsr_dtype d, void* out, const void* a, const void* b, int64_t n, Bcast bc) {
  int code;
  int w = int_width(d);
  if (d == TSR_BOOL) {
    if (op != Bin::Add && op != Bin::Mul) return false;
    code = op == Bin::Add ? 3 : 4;
    w = 1;
  } else {
    if (w == 0) return false;
    switch (op) {
      case Bin::Add: code = 0; break;
      case Bin::Sub: code = 1; break;
      case Bin::Mul: code = 2; break;
      default: return false;
    }
  }
  switch (w) {
    case 1: HWY_DYNAMIC_DISPATCH(IntBinary8)(code, out, a, b, size_t(n), int(bc)); break;
    case 2: HWY_DYNAMIC_DISPATCH(IntBinary16)(code, out, a, b, size_t(n), int(bc)); break;
    case 4: HWY_DYNAMIC_DISPATCH(IntBinary32)(code, out, a, b, size_t(n), int(bc)); break;
    default: HWY_DYNAMIC_DISPATCH(IntBinary64)(code, out, a, b, size_t(n), int(bc)); break;
  }
  return true;
}

bool int_unary(Un op, tsr_dtype d, void* out, const void* x, int64_t n) {
  const int w = int_width(d);
  if (w == 0 || (op != Un::Neg && op != Un::Relu)) return false;
  if (op == Un::Relu && !is_signed_int(d)) {  // unsigned: x <= 0 only for 0, which stays 0
    if (out != x) std::memmove(out, x, size_t(n) * size_t(w));
    return true;
  }
  const int code = op == Un::Neg ? 0 : 1;
  switch (w) {
    case 1: HWY_DYNAMIC_DISPATCH(IntUnary8)(code, out, x, size_t(n)); break;
    case 2: HWY_DYNAMIC_DISPATCH(IntUnary16)(code, out, x, size_t(n)); break;
    case 4: HWY_DYNAMIC_DISPATCH(IntUnary32)(code, out, x, size_t(n)); break;
    default: HWY_DYNAMIC_DISPATCH(IntUnary64)(code, out, x, size_t(n)); break;
  }
  return true;
}

}  // namespace tsr::kernels::simd
#endif
