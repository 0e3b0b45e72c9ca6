// Loads and stores of any tessera dtype through a runtime dtype switch, with
// exactly tsr::convert's rules (src/core/dtype.h): float -> integer
// saturates and NaN gives 0, -> bool is != 0, -> float16/bfloat16 rounds
// through float. A value travels as a Wide: int64 for bool and integers,
// double for floating types, so every (from, to) pair converts as the CPU's
// direct convert<To, From> does (int64 -> float without a detour through
// double, whose extra rounding would differ). Kernels are templated on the
// compute type only; the storage dtype is a runtime switch, which keeps the
// number of nvcc instantiations small.
#pragma once

#include <cstdint>

#include <tessera/types.h>

#include "core/dtype_info.h"
#include "core/half.h"
#include "core/host_device.h"

namespace tsr::gpu {

struct Wide {
  bool is_float;
  double f;   // when is_float
  int64_t i;  // otherwise (a uint64 element's bits when is_u64)
  bool is_u64 = false;  // i holds a uint64 (values >= 2^63 are negative in i)
};

TSR_HOST_DEVICE inline Wide wide_float(double v) { return {true, v, 0}; }
TSR_HOST_DEVICE inline Wide wide_int(int64_t v) { return {false, 0.0, v}; }

// Element `offset` (in elements) of an array of dtype d.
TSR_HOST_DEVICE inline Wide load_wide(const void* base, int64_t offset, tsr_dtype d) {
  switch (d) {
    case TSR_UINT8: return wide_int(static_cast<const uint8_t*>(base)[offset]);
    case TSR_INT8: return wide_int(static_cast<const int8_t*>(base)[offset]);
    case TSR_INT16: return wide_int(static_cast<const int16_t*>(base)[offset]);
    case TSR_INT32: return wide_int(static_cast<const int32_t*>(base)[offset]);
    case TSR_INT64: return wide_int(static_cast<const int64_t*>(base)[offset]);
    case TSR_BOOL: return wide_int(static_cast<const uint8_t*>(base)[offset] != 0);
    case TSR_FLOAT16: return wide_float(half_to_float(static_cast<const uint16_t*>(base)[offset]));
    case TSR_BFLOAT16: return wide_float(bf16_to_float(static_cast<const uint16_t*>(base)[offset]));
    case TSR_FLOAT32: return wide_float(static_cast<const float*>(base)[offset]);
    case TSR_FLOAT64: return wide_float(static_cast<const double*>(base)[offset]);
    // the storage-only dtypes: copied and converted, never computed on
    case TSR_UINT16: return wide_int(static_cast<const uint16_t*>(base)[offset]);
    case TSR_UINT32: return wide_int(static_cast<const uint32_t*>(base)[offset]);
    case TSR_UINT64: {
      Wide w = wide_int(int64_t(static_cast<const uint64_t*>(base)[offset]));
      w.is_u64 = true;
      return w;
    }
    case TSR_FLOAT8_E4M3FN:
      return wide_float(fp8e4m3fn_to_float(static_cast<const uint8_t*>(base)[offset]));
    case TSR_FLOAT8_E5M2:
      return wide_float(fp8e5m2_to_float(static_cast<const uint8_t*>(base)[offset]));
  }
  return wide_int(0);
}

// convert<Int>(floating v): saturating, NaN -> 0 (dtype.h's rule; the
// bounds compare in double, which decides every float/half input the same
// way the CPU's compare in the source type does).
template <typename Int>
TSR_HOST_DEVICE inline Int saturate(double v, Int lo, Int hi) {
  if (!(v == v)) return Int(0);
  if (v <= double(lo)) return lo;
  if (v >= double(hi)) return hi;
  return static_cast<Int>(v);
}

// The float a Wide becomes in convert<float> / convert<Half>.
TSR_HOST_DEVICE inline float wide_as_float(Wide w) {
  return w.is_float ? float(w.f) : w.is_u64 ? float(uint64_t(w.i)) : float(w.i);
}

// convert<uint16/32/64>(floating v) (dtype.h): NaN -> 0, a negative value
// through int64 (saturated) and wrapped, above the max -> the max.
template <typename U>
TSR_HOST_DEVICE inline U float_to_unsigned(double v, U hi) {
  if (!(v == v)) return U(0);
  if (v < 0) return U(uint64_t(saturate<int64_t>(v, INT64_MIN, INT64_MAX)));
  if (v >= double(hi)) return hi;
  return static_cast<U>(v);
}

TSR_HOST_DEVICE inline void store_wide(void* base, int64_t offset, tsr_dtype d, Wide w) {
  switch (d) {
    case TSR_UINT8:
      static_cast<uint8_t*>(base)[offset] =
          w.is_float ? saturate<uint8_t>(w.f, 0, 255) : uint8_t(uint64_t(w.i));
      return;
    case TSR_INT8:
      static_cast<int8_t*>(base)[offset] =
          w.is_float ? saturate<int8_t>(w.f, -128, 127) : int8_t(uint8_t(uint64_t(w.i)));
      return;
    case TSR_INT16:
      static_cast<int16_t*>(base)[offset] = w.is_float ? saturate<int16_t>(w.f, -32768, 32767)
                                                       : int16_t(uint16_t(uint64_t(w.i)));
      return;
    case TSR_INT32:
      static_cast<int32_t*>(base)[offset] =
          w.is_float ? saturate<int32_t>(w.f, -2147483647 - 1, 2147483647)
                     : int32_t(uint32_t(uint64_t(w.i)));
      return;
    case TSR_INT64:
      static_cast<int64_t*>(base)[offset] =
          w.is_float ? saturate<int64_t>(w.f, INT64_MIN, INT64_MAX) : w.i;
      return;
    case TSR_BOOL:
      static_cast<uint8_t*>(base)[offset] = w.is_float ? uint8_t(w.f != 0.0) : uint8_t(w.i != 0);
      return;
    case TSR_FLOAT16: static_cast<uint16_t*>(base)[offset] = float_to_half(wide_as_float(w)); return;
    case TSR_BFLOAT16: static_cast<uint16_t*>(base)[offset] = float_to_bf16(wide_as_float(w)); return;
    case TSR_FLOAT32: static_cast<float*>(base)[offset] = wide_as_float(w); return;
    case TSR_FLOAT64:
      static_cast<double*>(base)[offset] =
          w.is_float ? w.f : w.is_u64 ? double(uint64_t(w.i)) : double(w.i);
      return;
    case TSR_UINT16:
      static_cast<uint16_t*>(base)[offset] =
          w.is_float ? float_to_unsigned<uint16_t>(w.f, 65535) : uint16_t(uint64_t(w.i));
      return;
    case TSR_UINT32:
      static_cast<uint32_t*>(base)[offset] =
          w.is_float ? float_to_unsigned<uint32_t>(w.f, 4294967295u) : uint32_t(uint64_t(w.i));
      return;
    case TSR_UINT64:
      static_cast<uint64_t*>(base)[offset] =
          w.is_float ? float_to_unsigned<uint64_t>(w.f, UINT64_MAX) : uint64_t(w.i);
      return;
    case TSR_FLOAT8_E4M3FN:
      static_cast<uint8_t*>(base)[offset] = float_to_fp8e4m3fn(wide_as_float(w));
      return;
    case TSR_FLOAT8_E5M2:
      static_cast<uint8_t*>(base)[offset] = float_to_fp8e5m2(wide_as_float(w));
      return;
  }
}

// w converted to dtype d and read back: the value a kernel of dtype d sees
// after the CPU's as_dtype(operand, d).
TSR_HOST_DEVICE inline Wide round_to(Wide w, tsr_dtype d) {
  uint64_t slot = 0;  // 8 bytes hold one element of any dtype
  store_wide(&slot, 0, d, w);
  return load_wide(&slot, 0, d);
}

// A Wide as compute type C (float, double, int64_t), convert<C>'s rules.
template <typename C>
TSR_HOST_DEVICE inline C wide_to(Wide w) {
  if constexpr (sizeof(C) == 8 && C(0.5) == C(0)) {  // int64_t
    return w.is_float ? saturate<int64_t>(w.f, INT64_MIN, INT64_MAX) : w.i;
  } else {
    return w.is_float ? C(w.f) : C(w.i);
  }
}

template <typename C>
TSR_HOST_DEVICE inline Wide to_wide(C v) {
  if constexpr (C(0.5) == C(0)) return wide_int(int64_t(v));
  else return wide_float(double(v));
}

// The compute type's element of an operand: loaded, rounded to the op's
// dtype as the CPU's as_dtype would (a no-op when they agree), converted.
template <typename C>
TSR_HOST_DEVICE inline C load_as(const void* base, int64_t offset, tsr_dtype stored, tsr_dtype op) {
  const Wide w = load_wide(base, offset, stored);
  return wide_to<C>(stored == op ? w : round_to(w, op));
}

template <typename C>
TSR_HOST_DEVICE inline void store_as(void* base, int64_t offset, tsr_dtype stored, C v) {
  store_wide(base, offset, stored, to_wide<C>(v));
}

}  // namespace tsr::gpu
