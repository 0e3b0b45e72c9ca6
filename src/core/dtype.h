// dtypes: sizes, names, categories, and dispatch from a runtime tsr_dtype to a
// compile-time C++ element type.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include <tessera/types.h>

#include "core/dtype_info.h"  // is_valid_dtype, dtype_name, is_floating
#include "core/error.h"
#include "core/half.h"

namespace tsr {

int64_t element_size(tsr_dtype dtype);
bool is_integral(tsr_dtype dtype, bool include_bool);
// Throws TSR_ERR_INVALID_ARGUMENT for values outside the enum.
void check_dtype(int dtype);

// c10::checked_convert's overflow rule for writing a Python-style scalar into
// an element of dtype (torch.full, fill_, t[i] = v): throws
// TSR_ERR_INVALID_ARGUMENT "value cannot be converted to type <c10 name>
// without overflow" when value lies outside the dtype's finite range. NaN
// and infinities pass for floating dtypes, NaN fails for integers; bool
// accepts anything; an integer may wrap into an unsigned dtype from below
// (uint8: -1 -> 255, as c10 allows "a - b" to wrap) but not past -max.
void check_scalar_fits(double value, tsr_dtype dtype);
void check_scalar_fits(int64_t value, tsr_dtype dtype);

// PyTorch's promoteTypes for two tensor operands.
tsr_dtype promote_types(tsr_dtype a, tsr_dtype b);

template <typename T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr tsr_dtype value = TSR_BOOL; };
template <> struct dtype_of<uint8_t> { static constexpr tsr_dtype value = TSR_UINT8; };
template <> struct dtype_of<int8_t> { static constexpr tsr_dtype value = TSR_INT8; };
template <> struct dtype_of<int16_t> { static constexpr tsr_dtype value = TSR_INT16; };
template <> struct dtype_of<int32_t> { static constexpr tsr_dtype value = TSR_INT32; };
template <> struct dtype_of<int64_t> { static constexpr tsr_dtype value = TSR_INT64; };
template <> struct dtype_of<Half> { static constexpr tsr_dtype value = TSR_FLOAT16; };
template <> struct dtype_of<BFloat16> { static constexpr tsr_dtype value = TSR_BFLOAT16; };
template <> struct dtype_of<float> { static constexpr tsr_dtype value = TSR_FLOAT32; };
template <> struct dtype_of<double> { static constexpr tsr_dtype value = TSR_FLOAT64; };
template <> struct dtype_of<uint16_t> { static constexpr tsr_dtype value = TSR_UINT16; };
template <> struct dtype_of<uint32_t> { static constexpr tsr_dtype value = TSR_UINT32; };
template <> struct dtype_of<uint64_t> { static constexpr tsr_dtype value = TSR_UINT64; };
template <> struct dtype_of<Float8E4M3FN> { static constexpr tsr_dtype value = TSR_FLOAT8_E4M3FN; };
template <> struct dtype_of<Float8E5M2> { static constexpr tsr_dtype value = TSR_FLOAT8_E5M2; };

// Throws TSR_ERR_UNSUPPORTED for a storage-only dtype reaching an op that
// computes on elements; TSR_ERR_INVALID_ARGUMENT for a value outside the enum.
[[noreturn]] void fail_dtype_dispatch(tsr_dtype dtype);

// Calls fn.template operator()<T>() with T the element type of dtype, for
// the dtypes math ops compute on; a storage-only dtype (is_storage_only)
// throws TSR_ERR_UNSUPPORTED naming it.
// Usage: dispatch_all(dtype, [&]<typename T>() { ... });
template <typename Fn>
decltype(auto) dispatch_all(tsr_dtype dtype, Fn&& fn) {
  switch (dtype) {
    case TSR_BOOL: return fn.template operator()<bool>();
    case TSR_UINT8: return fn.template operator()<uint8_t>();
    case TSR_INT8: return fn.template operator()<int8_t>();
    case TSR_INT16: return fn.template operator()<int16_t>();
    case TSR_INT32: return fn.template operator()<int32_t>();
    case TSR_INT64: return fn.template operator()<int64_t>();
    case TSR_FLOAT16: return fn.template operator()<Half>();
    case TSR_BFLOAT16: return fn.template operator()<BFloat16>();
    case TSR_FLOAT32: return fn.template operator()<float>();
    case TSR_FLOAT64: return fn.template operator()<double>();
    default: break;
  }
  fail_dtype_dispatch(dtype);
}

// dispatch_all plus the storage-only dtypes: for what only moves or converts
// elements (copy, fill, element access, printing).
template <typename Fn>
decltype(auto) dispatch_storage(tsr_dtype dtype, Fn&& fn) {
  switch (dtype) {
    case TSR_UINT16: return fn.template operator()<uint16_t>();
    case TSR_UINT32: return fn.template operator()<uint32_t>();
    case TSR_UINT64: return fn.template operator()<uint64_t>();
    case TSR_FLOAT8_E4M3FN: return fn.template operator()<Float8E4M3FN>();
    case TSR_FLOAT8_E5M2: return fn.template operator()<Float8E5M2>();
    default: return dispatch_all(dtype, std::forward<Fn>(fn));
  }
}

// Floating types only; others throw TSR_ERR_DTYPE_MISMATCH naming `what`.
template <typename Fn>
decltype(auto) dispatch_floating(tsr_dtype dtype, const char* what, Fn&& fn) {
  switch (dtype) {
    case TSR_FLOAT16: return fn.template operator()<Half>();
    case TSR_BFLOAT16: return fn.template operator()<BFloat16>();
    case TSR_FLOAT32: return fn.template operator()<float>();
    case TSR_FLOAT64: return fn.template operator()<double>();
    default: break;
  }
  fail(TSR_ERR_DTYPE_MISMATCH, what, " expects a floating point dtype, got ",
       dtype_name(dtype) ? dtype_name(dtype) : "invalid");
}

// Computation type for an element type: float for 16-bit floats, else itself.
template <typename T> struct compute_type { using type = T; };
template <> struct compute_type<Half> { using type = float; };
template <> struct compute_type<BFloat16> { using type = float; };
template <> struct compute_type<Float8E4M3FN> { using type = float; };
template <> struct compute_type<Float8E5M2> { using type = float; };
template <typename T> using compute_t = typename compute_type<T>::type;

// The types stored as bits and converted through float.
template <typename T>
inline constexpr bool is_bits_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> ||
                                      std::is_same_v<T, Float8E4M3FN> ||
                                      std::is_same_v<T, Float8E5M2>;

// Conversion between element types with C semantics (bool: != 0), going
// through float for the 16- and 8-bit floats (as c10, whose Half, BFloat16
// and Float8 types convert from and to float only).
//
// Floating -> integer is saturating where C++ leaves it undefined: NaN -> 0,
// beyond the range -> the nearest end. Exception, c10's rule for the
// unsigned types of PyTorch 2.x (uint16/32/64; uint8 keeps the saturation
// above): a negative value goes through int64 (saturated) and wraps, so
// -1.0 -> 65535 / 4294967295 / 18446744073709551615; a value above the
// type's max saturates to it.
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_bits_float<From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_bits_float<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> &&
                       (std::is_same_v<To, uint16_t> || std::is_same_v<To, uint32_t> ||
                        std::is_same_v<To, uint64_t>)) {
    if (!(v == v)) return To(0);
    if (v < From(0)) return static_cast<To>(convert<int64_t>(v));  // wraps
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // Out-of-range float->int is UB in C++; PyTorch's result there is
    // unspecified too, so saturate to keep UBSan quiet and results defined.
    if (!(v == v)) return To(0);
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tsr
