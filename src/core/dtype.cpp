#include "core/dtype.h"

#include <cmath>
#include <limits>

namespace tsr {

void fail_dtype_dispatch(tsr_dtype d) {
  if (is_valid_dtype(d))
    fail(TSR_ERR_UNSUPPORTED, "this operation does not support dtype ", dtype_name(d),
         ": it is a storage-only dtype (creation, views, copy, to(dtype), save and load); "
         "convert it with to(dtype) first");
  fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value ", int(d));
}

void check_dtype(int d) {
  TSR_CHECK(is_valid_dtype(d), TSR_ERR_INVALID_ARGUMENT, "invalid dtype value ", d);
}

int64_t element_size(tsr_dtype d) {
  const int bytes = element_bytes(d);
  if (bytes == 0) fail(TSR_ERR_INVALID_ARGUMENT, "invalid dtype value ", int(d));
  return bytes;
}

bool is_integral(tsr_dtype d, bool include_bool) {
  switch (d) {
    case TSR_UINT8: case TSR_INT8: case TSR_INT16: case TSR_INT32: case TSR_INT64: return true;
    case TSR_BOOL: return include_bool;
    default: return false;
  }
}

namespace {
// The names c10's Scalar accessors pass to checked_convert (its messages).
const char* c10_type_name(tsr_dtype d) {
  switch (d) {
    case TSR_BOOL: return "bool";
    case TSR_UINT8: return "uint8_t";
    case TSR_INT8: return "int8_t";
    case TSR_INT16: return "int16_t";
    case TSR_INT32: return "int";
    case TSR_INT64: return "int64_t";
    case TSR_FLOAT16: return "at::Half";
    case TSR_BFLOAT16: return "at::BFloat16";
    case TSR_FLOAT32: return "float";
    case TSR_FLOAT64: return "double";
    case TSR_UINT16: return "uint16_t";
    case TSR_UINT32: return "uint32_t";
    case TSR_UINT64: return "uint64_t";
    case TSR_FLOAT8_E4M3FN: return "c10::Float8_e4m3fn";
    case TSR_FLOAT8_E5M2: return "c10::Float8_e5m2";
  }
  return "invalid";
}

// Largest finite value of a floating dtype (numeric_limits<T>::max()).
double floating_max(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT16: return 65504.0;
    case TSR_BFLOAT16: return 3.3895313892515355e38;  // 0x7f7f
    case TSR_FLOAT32: return double(std::numeric_limits<float>::max());
    case TSR_FLOAT8_E4M3FN: return 448.0;
    case TSR_FLOAT8_E5M2: return 57344.0;
    default: return std::numeric_limits<double>::max();
  }
}

[[noreturn]] void report_overflow(tsr_dtype d) {
  fail(TSR_ERR_INVALID_ARGUMENT, "value cannot be converted to type ", c10_type_name(d),
       " without overflow");
}
}  // namespace

void check_scalar_fits(double v, tsr_dtype d) {
  check_dtype(d);
  if (d == TSR_BOOL) return;  // checked_convert skips bool
  if (is_floating(d) || is_float8(d)) {
    // c10::overflows<To, double>: infinities and NaN fit a floating type.
    if (std::isinf(v) || v != v) return;
    if (v < -floating_max(d) || v > floating_max(d)) report_overflow(d);
    return;
  }
  if (v != v) report_overflow(d);  // integers have no NaN
  bool ok = dispatch_storage(d, [&]<typename T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      return v >= double(std::numeric_limits<T>::lowest()) &&
             v <= double(std::numeric_limits<T>::max());
    return true;
  });
  if (!ok) report_overflow(d);
}

void check_scalar_fits(int64_t v, tsr_dtype d) {
  check_dtype(d);
  if (d == TSR_BOOL) return;
  bool ok = dispatch_storage(d, [&]<typename T>() {
    if constexpr (is_bits_float<T>) {
      // c10::greater_than_max: int64 has more digits than these types, so
      // the comparison is made against their largest finite value.
      double m = floating_max(d);
      return double(v) >= -m && double(v) <= m;
    } else if constexpr (std::is_floating_point_v<T>) {
      return true;
    } else if constexpr (std::is_unsigned_v<T>) {
      // negative values may wrap (two's complement), down to -max
      if (v < 0) return uint64_t(0) - uint64_t(v) <= uint64_t(std::numeric_limits<T>::max());
      return uint64_t(v) <= uint64_t(std::numeric_limits<T>::max());
    } else {
      return v >= int64_t(std::numeric_limits<T>::lowest()) &&
             v <= int64_t(std::numeric_limits<T>::max());
    }
  });
  if (!ok) report_overflow(d);
}

namespace {
// Rank within a category, for widening.
int int_rank(tsr_dtype d) {
  switch (d) {
    case TSR_INT8: return 1; case TSR_INT16: return 2; case TSR_INT32: return 3;
    case TSR_INT64: return 4; default: return 0;
  }
}
int float_rank(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT16: case TSR_BFLOAT16: return 1; case TSR_FLOAT32: return 2;
    case TSR_FLOAT64: return 3; default: return 0;
  }
}
}  // namespace

// c10::promoteTypes restricted to our dtypes: bool < integers < floats;
// uint8 with a signed int widens to the signed type, uint8 with int8 gives
// int16; float16 with bfloat16 gives float32.
//
// PyTorch 2.x refuses to promote its storage-only dtypes with anything else;
// so does tessera (TSR_ERR_UNSUPPORTED, PyTorch's message).
tsr_dtype promote_types(tsr_dtype a, tsr_dtype b) {
  if (a == b) return a;
  if (is_float8(a) || is_float8(b))
    fail(TSR_ERR_UNSUPPORTED, "Promotion for Float8 Types is not supported, attempted to promote ",
         dtype_name(a), " and ", dtype_name(b));
  if (is_storage_only(a) || is_storage_only(b))
    fail(TSR_ERR_UNSUPPORTED,
         "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
         dtype_name(a), " and ", dtype_name(b));
  if (a == TSR_BOOL) return b;
  if (b == TSR_BOOL) return a;
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == TSR_FLOAT16 && b == TSR_BFLOAT16) || (a == TSR_BFLOAT16 && b == TSR_FLOAT16))
      return TSR_FLOAT32;
    return float_rank(a) >= float_rank(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // both integral, different
  if (a == TSR_UINT8 || b == TSR_UINT8) {
    tsr_dtype other = a == TSR_UINT8 ? b : a;
    return other == TSR_INT8 ? TSR_INT16 : other;
  }
  return int_rank(a) >= int_rank(b) ? a : b;
}

}  // namespace tsr
