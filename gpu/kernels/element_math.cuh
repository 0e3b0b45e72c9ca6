// The per-element formulas of the unary and binary DeviceKernels ops,
// written as src/cpu/kernels/elementwise.cpp and activation.cpp write them
// (same operations in the same order, same constants), in compute type C:
// float (float32, and float16/bfloat16 as the CPU computes them), double,
// or int64_t (every integer dtype and bool: add/sub/mul/neg wrap modulo 2^64,
// which truncates to the same bits as the CPU's wrap in the narrow type).
// Math calls are the C library's float/double functions (expf, erf, ...),
// which nvcc maps to its device implementations.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/types.h>

#include "core/device_kernels.h"
#include "core/half.h"
#include "core/host_device.h"

namespace tsr::gpu {

template <typename C>
constexpr bool kIsIntCompute = C(0.5) == C(0);

TSR_HOST_DEVICE inline float m_exp(float x) { return ::expf(x); }
TSR_HOST_DEVICE inline double m_exp(double x) { return ::exp(x); }
TSR_HOST_DEVICE inline float m_log(float x) { return ::logf(x); }
TSR_HOST_DEVICE inline double m_log(double x) { return ::log(x); }
TSR_HOST_DEVICE inline float m_erf(float x) { return ::erff(x); }
TSR_HOST_DEVICE inline double m_erf(double x) { return ::erf(x); }
TSR_HOST_DEVICE inline float m_tanh(float x) { return ::tanhf(x); }
TSR_HOST_DEVICE inline double m_tanh(double x) { return ::tanh(x); }
TSR_HOST_DEVICE inline float m_sqrt(float x) { return ::sqrtf(x); }
TSR_HOST_DEVICE inline double m_sqrt(double x) { return ::sqrt(x); }
TSR_HOST_DEVICE inline float m_pow(float x, float e) { return ::powf(x, e); }
TSR_HOST_DEVICE inline double m_pow(double x, double e) { return ::pow(x, e); }
TSR_HOST_DEVICE inline float m_expm1(float x) { return ::expm1f(x); }
TSR_HOST_DEVICE inline double m_expm1(double x) { return ::expm1(x); }
TSR_HOST_DEVICE inline float m_sin(float x) { return ::sinf(x); }
TSR_HOST_DEVICE inline double m_sin(double x) { return ::sin(x); }
TSR_HOST_DEVICE inline float m_cos(float x) { return ::cosf(x); }
TSR_HOST_DEVICE inline double m_cos(double x) { return ::cos(x); }
TSR_HOST_DEVICE inline float m_floor(float x) { return ::floorf(x); }
TSR_HOST_DEVICE inline double m_floor(double x) { return ::floor(x); }
TSR_HOST_DEVICE inline float m_ceil(float x) { return ::ceilf(x); }
TSR_HOST_DEVICE inline double m_ceil(double x) { return ::ceil(x); }
TSR_HOST_DEVICE inline float m_trunc(float x) { return ::truncf(x); }
TSR_HOST_DEVICE inline double m_trunc(double x) { return ::trunc(x); }
// Half to even (the default rounding mode), as torch's nearbyint.
TSR_HOST_DEVICE inline float m_round(float x) { return ::nearbyintf(x); }
TSR_HOST_DEVICE inline double m_round(double x) { return ::nearbyint(x); }
TSR_HOST_DEVICE inline float m_abs(float x) { return ::fabsf(x); }
TSR_HOST_DEVICE inline double m_abs(double x) { return ::fabs(x); }

// Integer arithmetic in uint64_t: defined on overflow, as torch wraps.
TSR_HOST_DEVICE inline int64_t wrap_add(int64_t x, int64_t y) { return int64_t(uint64_t(x) + uint64_t(y)); }
TSR_HOST_DEVICE inline int64_t wrap_sub(int64_t x, int64_t y) { return int64_t(uint64_t(x) - uint64_t(y)); }
TSR_HOST_DEVICE inline int64_t wrap_mul(int64_t x, int64_t y) { return int64_t(uint64_t(x) * uint64_t(y)); }

// ATen's GeluKernelImpl constants (activation.cpp).
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kGeluAlpha = 1.12837916709551257390 * kSqrt1_2 * 0.5;
constexpr double kGeluBeta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5;
constexpr double kGeluKappa = 0.044715;

// A scalar as a 16-bit kernel sees it after Scalar::to<scalar_t>: rounded
// to the op's dtype (activation.cpp's as_element), unchanged otherwise.
TSR_HOST_DEVICE inline float round16(float v, tsr_dtype op) {
  if (op == TSR_FLOAT16) return half_to_float(float_to_half(v));
  if (op == TSR_BFLOAT16) return bf16_to_float(float_to_bf16(v));
  return v;
}
TSR_HOST_DEVICE inline double round16(double v, tsr_dtype) { return v; }

// activation.cpp's pow_scalar, branch for branch (its special exponents
// and bfloat16's rounding after every operation).
template <typename C>
TSR_HOST_DEVICE inline C pow_scalar(C v, double e, tsr_dtype op) {
  const bool half = op == TSR_FLOAT16;
  if (!half && e == 0.5) return m_sqrt(v);
  if (!half && e == -0.5) return C(1) / m_sqrt(v);
  if (!half && e == -1.0) return C(1) / v;
  if (half) return m_pow(v, round16(C(e), op));
  if (e == 2.0) return v * v;
  if (e == 3.0) return round16(C(v * v), op) * v;
  if (e == -2.0) return C(1) / round16(C(v * v), op);
  if (op == TSR_BFLOAT16) return m_pow(v, round16(C(e), op));
  return C(m_pow(double(v), e));
}

// out = f(x, alpha) for a floating compute type.
template <typename C>
TSR_HOST_DEVICE inline C unary_float(UnaryKernel op, C x, double alpha, tsr_dtype op_dtype) {
  switch (op) {
    case UnaryKernel::Neg: return C(-x);
    case UnaryKernel::Exp: return C(m_exp(x));
    case UnaryKernel::Log: return C(m_log(x));
    case UnaryKernel::Relu: return x <= C(0) ? C(0) : x;  // NaN passes
    case UnaryKernel::MulScalar: return C(x * C(alpha));
    case UnaryKernel::AddScalar: return C(x + C(alpha));
    case UnaryKernel::Gelu: return x * C(0.5) * (C(1) + m_erf(x * C(kSqrt1_2)));
    case UnaryKernel::GeluTanh: {
      const C inner = C(kGeluBeta) * (x + C(kGeluKappa) * (x * x * x));
      return C(0.5) * x * (C(1) + m_tanh(inner));
    }
    case UnaryKernel::Tanh: return m_tanh(x);
    case UnaryKernel::Sigmoid: return C(1) / (C(1) + m_exp(-x));
    case UnaryKernel::Sqrt: return m_sqrt(x);
    case UnaryKernel::Erf: return m_erf(x);
    case UnaryKernel::PowScalar: return pow_scalar(x, alpha, op_dtype);
    // std::max(x, lo) and std::min(x, hi) as activation.cpp's clamp writes
    // them (a NaN x passes; a NaN bound leaves x), the bound an element of
    // the op's dtype (as_element).
    case UnaryKernel::ClampMin: {
      const C lo = round16(C(alpha), op_dtype);
      return x < lo ? lo : x;
    }
    case UnaryKernel::ClampMax: {
      const C hi = round16(C(alpha), op_dtype);
      return hi < x ? hi : x;
    }
    // eq_scalar_mask compares in double; in_range_mask against the bound
    // as an element.
    case UnaryKernel::EqScalar: return C(double(x) == alpha ? 1 : 0);
    case UnaryKernel::GeScalar: return C(x >= round16(C(alpha), op_dtype) ? 1 : 0);
    case UnaryKernel::LeScalar: return C(x <= round16(C(alpha), op_dtype) ? 1 : 0);
    // pointwise.cpp's float_map, the parameter an element (C(T(C(a)))).
    case UnaryKernel::Silu: return x / (C(1) + m_exp(-x));
    case UnaryKernel::LeakyRelu: return x > C(0) ? x : x * round16(C(alpha), op_dtype);
    case UnaryKernel::Elu: return x > C(0) ? x : round16(C(alpha), op_dtype) * m_expm1(x);
    case UnaryKernel::Sin: return m_sin(x);
    case UnaryKernel::Cos: return m_cos(x);
    case UnaryKernel::Rsqrt: return C(1) / m_sqrt(x);
    case UnaryKernel::Reciprocal: return C(1) / x;
    case UnaryKernel::Floor: return m_floor(x);
    case UnaryKernel::Ceil: return m_ceil(x);
    case UnaryKernel::Round: return m_round(x);
    case UnaryKernel::Trunc: return m_trunc(x);
    case UnaryKernel::Sign: return C((C(0) < x) - (x < C(0)));  // NaN: 0
    case UnaryKernel::Abs: return m_abs(x);
    case UnaryKernel::GtScalar: return C(double(x) > alpha ? 1 : 0);
  }
  return x;
}

// The integer ops (the others are refused before a launch:
// unary_supported); the masks compare in double, as the CPU's.
TSR_HOST_DEVICE inline int64_t unary_int(UnaryKernel op, int64_t x, double alpha) {
  switch (op) {
    case UnaryKernel::Neg: return wrap_sub(0, x);
    case UnaryKernel::Relu: return x <= 0 ? 0 : x;
    case UnaryKernel::EqScalar: return double(x) == alpha;
    case UnaryKernel::GeScalar: return double(x) >= alpha;
    case UnaryKernel::LeScalar: return double(x) <= alpha;
    case UnaryKernel::GtScalar: return double(x) > alpha;
    // hardtanh's integer bounds, already the element type's (the caller
    // wraps them as torch's T(toLong(bound))).
    case UnaryKernel::ClampMin: return x < int64_t(alpha) ? int64_t(alpha) : x;
    case UnaryKernel::ClampMax: return int64_t(alpha) < x ? int64_t(alpha) : x;
    case UnaryKernel::Sign: return (0 < x) - (x < 0);
    case UnaryKernel::Abs: return x < 0 ? wrap_sub(0, x) : x;  // the minimum wraps to itself when stored
    default: return x;  // Floor, Ceil, Round, Trunc: integers are their own rounding
  }
}

TSR_HOST_DEVICE inline bool unary_supported(UnaryKernel op, bool int_compute) {
  switch (op) {
    case UnaryKernel::Neg: case UnaryKernel::Relu: case UnaryKernel::EqScalar: case UnaryKernel::GeScalar:
    case UnaryKernel::LeScalar: case UnaryKernel::GtScalar: case UnaryKernel::ClampMin: case UnaryKernel::ClampMax:
    case UnaryKernel::Sign: case UnaryKernel::Abs: case UnaryKernel::Floor: case UnaryKernel::Ceil:
    case UnaryKernel::Round: case UnaryKernel::Trunc:
      return true;
    default: return !int_compute;
  }
}

// The comparisons (compare.cpp), 1 or 0 in any compute type.
TSR_HOST_DEVICE inline bool is_compare(BinaryKernel op) { return op >= BinaryKernel::Eq && op <= BinaryKernel::Ge; }
template <typename C>
TSR_HOST_DEVICE inline C compare(BinaryKernel op, C a, C b) {
  switch (op) {
    case BinaryKernel::Eq: return C(a == b ? 1 : 0);
    case BinaryKernel::Ne: return C(a != b ? 1 : 0);
    case BinaryKernel::Lt: return C(a < b ? 1 : 0);
    case BinaryKernel::Le: return C(a <= b ? 1 : 0);
    case BinaryKernel::Gt: return C(a > b ? 1 : 0);
    default: return C(a >= b ? 1 : 0);
  }
}

// ATen's powi (activation.cpp): repeated squaring in 64-bit wrapping
// arithmetic, whose low bits are the narrow type's wrapped result; a
// negative exponent gives 0 unless the base is 1 or -1.
TSR_HOST_DEVICE inline int64_t powi(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, base = uint64_t(a);
  while (b) {
    if (b & 1) result *= base;
    b /= 2;
    base *= base;
  }
  return int64_t(result);
}

// k * b rounded on its own, as the CPU kernels round it before adding it
// (they are built with -ffp-contract=off). nvcc fuses a + k * b into one
// fma by default, a different rounding whenever k != 1 (seen on an H200:
// torch.add(a, b, alpha=0.75) one ulp off the CPU's); a product with an
// explicit rounding mode (__fmul_rn, PTX mul.rn) is never fused.
template <typename C>
TSR_HOST_DEVICE inline C unfused_mul(C k, C b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(C) == 4) return __fmul_rn(k, b);
  else return __dmul_rn(k, b);
#else
  return C(k * b);
#endif
}

template <typename C>
TSR_HOST_DEVICE inline C binary_float(BinaryKernel op, C a, C b, C k) {
  switch (op) {
    case BinaryKernel::Add: return C(a + unfused_mul(k, b));
    case BinaryKernel::Sub: return C(a - unfused_mul(k, b));
    case BinaryKernel::Mul: return C(a * b);
    case BinaryKernel::Div: return C(a / b);
    case BinaryKernel::ReluBackward: return b <= C(0) ? C(0) : a;  // threshold_backward
    case BinaryKernel::GeluBackward: {
      const C cdf = C(0.5) * (C(1) + m_erf(b * C(kSqrt1_2)));
      const C pdf = C(kGeluAlpha) * m_exp(C(-0.5) * b * b);
      return a * (cdf + b * pdf);
    }
    case BinaryKernel::GeluTanhBackward: {
      const C x_sq = b * b;
      const C inner = C(kGeluBeta) * (b + C(kGeluKappa) * x_sq * b);
      const C t = m_tanh(inner);
      const C left = C(0.5) * b, right = C(1) + t;
      const C left_derivative = C(0.5) * right;
      const C right_derivative = C(1) - t * t;
      const C inner_derivative = C(kGeluBeta) * (C(1) + C(3) * C(kGeluKappa) * x_sq);
      return a * (left_derivative + left * right_derivative * inner_derivative);
    }
    case BinaryKernel::TanhBackward: return a * (C(1) - b * b);
    case BinaryKernel::SigmoidBackward: return a * (C(1) - b) * b;
    case BinaryKernel::SqrtBackward: return a / (C(2) * b);
    case BinaryKernel::Pow: return m_pow(a, b);
    // pointwise.cpp's clamp_tensor: a NaN bound gives NaN, else std::max /
    // std::min (a NaN a passes).
    case BinaryKernel::Max: return b != b ? b : (a < b ? b : a);
    case BinaryKernel::Min: return b != b ? b : (b < a ? b : a);
    default: return compare(op, a, b);
  }
}

// Integers: add/sub (with torch.add's alpha)/mul wrap; bool (op dtype
// bool): add is or, mul is and, as PyTorch's bool arithmetic.
TSR_HOST_DEVICE inline int64_t binary_int(BinaryKernel op, int64_t a, int64_t b, int64_t k, bool is_bool) {
  if (is_compare(op)) return compare(op, a, b);
  if (op == BinaryKernel::Max) return a < b ? b : a;
  if (op == BinaryKernel::Min) return b < a ? b : a;
  if (is_bool) return op == BinaryKernel::Add ? int64_t(a != 0 || (k != 0 && b != 0)) : int64_t(a != 0 && b != 0);
  switch (op) {
    case BinaryKernel::Add: return wrap_add(a, wrap_mul(k, b));
    case BinaryKernel::Sub: return wrap_sub(a, wrap_mul(k, b));
    case BinaryKernel::Pow: return powi(a, b);
    default: return wrap_mul(a, b);
  }
}

TSR_HOST_DEVICE inline bool binary_supported(BinaryKernel op, bool int_compute, bool is_bool) {
  if (is_compare(op) || op == BinaryKernel::Max || op == BinaryKernel::Min) return true;
  if (is_bool) return op == BinaryKernel::Add || op == BinaryKernel::Mul;
  return !int_compute || op == BinaryKernel::Add || op == BinaryKernel::Sub || op == BinaryKernel::Mul ||
         op == BinaryKernel::Pow;
}

}  // namespace tsr::gpu
