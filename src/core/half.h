// 16-bit floating types stored as bits and computed in float, as PyTorch's
// c10::Half and c10::BFloat16 do on CPU. Conversions round to nearest even.
// The bit conversions are TSR_HOST_DEVICE: the CUDA kernels (gpu/kernels/)
// load and store 16-bit operands with exactly these functions.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.h"

namespace tsr {

TSR_HOST_DEVICE inline uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
TSR_HOST_DEVICE inline float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// IEEE binary16 <-> binary32.
TSR_HOST_DEVICE inline float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));  // inf/nan
  if (exp == 0) {                                                         // zero/subnormal
    if (man == 0) return bits_float(sign);
    float v = float(man) * (1.0f / 16777216.0f);  // man * 2^-24
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

TSR_HOST_DEVICE inline uint16_t float_to_half(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)  // inf or nan (keep nan quiet)
    return sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0);
  if (ax >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: inf
  if (ax < 0x38800000u) {                       // below 2^-14: subnormal half
    // Adding 0.5 aligns the mantissa so the FPU's round-to-nearest-even does
    // the rounding for us (the trick used by c10 and FP16 libraries).
    float r = bits_float(ax) + 0.5f;
    return sign | uint16_t(float_bits(r) - 0x3f000000u);
  }
  uint32_t mant_odd = (ax >> 13) & 1;
  ax += 0xc8000fffu + mant_odd;  // rebias exponent (-112<<23) and round
  return sign | uint16_t(ax >> 13);
}

TSR_HOST_DEVICE inline float bf16_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }
TSR_HOST_DEVICE inline uint16_t float_to_bf16(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(float_to_half(f)) {}
  operator float() const { return half_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(float_to_bf16(f)) {}
  operator float() const { return bf16_to_float(bits); }
};

// OCP 8-bit floats <-> binary32, bit for bit as c10 (c10/util/Float8_e4m3fn.h,
// Float8_e5m2.h, PyTorch >= 2.1). Narrowing rounds to nearest even.
//
// e4m3fn (s eeee mmm, bias 7): no infinities; 0x7F / 0xFF are NaN; largest
// finite 448 (0x7E). c10 does not saturate: a magnitude above 464 (the
// halfway point to 480, whose pattern is NaN), an infinity or a NaN becomes
// NaN (0x7F with the input's sign bit); (448, 464] rounds to 448. NaN widens
// to 0x7FF00000 (sign kept), as c10's formula gives.
TSR_HOST_DEVICE inline float fp8e4m3fn_to_float(uint8_t b) {
  const uint32_t sign = uint32_t(b & 0x80) << 24;
  const uint32_t exp = (b >> 3) & 0xf, man = b & 0x7;
  if ((b & 0x7f) == 0x7f) return bits_float(sign | 0x7ff00000u);
  if (exp == 0) {  // zero / subnormal: man * 2^-9
    float v = float(man) * (1.0f / 512.0f);
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 120) << 23) | (man << 20));
}

TSR_HOST_DEVICE inline uint8_t float_to_fp8e4m3fn(float f) {
  uint32_t x = float_bits(f);
  const uint8_t sign = uint8_t((x >> 24) & 0x80);
  x &= 0x7fffffffu;
  if (x >= (1087u << 20)) return sign | 0x7f;  // >= 480, inf, nan: NaN
  if (x < (121u << 23)) {                      // below 2^-6: subnormal
    // Adding 2^14 puts the 2^-9 unit in the float's last mantissa bit, so
    // the FPU's round-to-nearest-even rounds (c10's trick).
    const uint32_t denorm = 141u << 23;
    return sign | uint8_t(float_bits(bits_float(x) + bits_float(denorm)) - denorm);
  }
  const uint32_t mant_odd = (x >> 20) & 1;
  x += (uint32_t(7 - 127) << 23) + 0x7ffffu + mant_odd;  // rebias and round
  return sign | uint8_t(x >> 20);
}

// e5m2 (s eeeee mm, bias 15): the high byte of an IEEE half, with infinities
// (0x7C) and NaNs; a magnitude >= 61440 rounds to infinity, >= 65536 is
// infinity, NaN becomes 0x7F with the input's sign bit.
TSR_HOST_DEVICE inline float fp8e5m2_to_float(uint8_t b) { return half_to_float(uint16_t(b) << 8); }

TSR_HOST_DEVICE inline uint8_t float_to_fp8e5m2(float f) {
  uint32_t x = float_bits(f);
  const uint8_t sign = uint8_t((x >> 24) & 0x80);
  x &= 0x7fffffffu;
  if (x >= (143u << 23)) return sign | (x > 0x7f800000u ? 0x7f : 0x7c);  // >= 2^16
  if (x < (113u << 23)) {  // below 2^-14: subnormal, unit 2^-16
    const uint32_t denorm = 134u << 23;
    return sign | uint8_t(float_bits(bits_float(x) + bits_float(denorm)) - denorm);
  }
  const uint32_t mant_odd = (x >> 21) & 1;
  x += (uint32_t(15 - 127) << 23) + 0xfffffu + mant_odd;
  return sign | uint8_t(x >> 21);
}

struct Float8E4M3FN {
  uint8_t bits = 0;
  Float8E4M3FN() = default;
  Float8E4M3FN(float f) : bits(float_to_fp8e4m3fn(f)) {}
  operator float() const { return fp8e4m3fn_to_float(bits); }
};

struct Float8E5M2 {
  uint8_t bits = 0;
  Float8E5M2() = default;
  Float8E5M2(float f) : bits(float_to_fp8e5m2(f)) {}
  operator float() const { return fp8e5m2_to_float(bits); }
};

}  // namespace tsr
