// Row kernels of float16/bfloat16 tensors through the float32 ones: each
// contiguous row converted to float32 (convert_simd.h's vectorized
// conversions), the float32 row kernel run on it, the result rounded once
// back to the 16-bit type. This is ATen's opmath rule for the reduced
// floating types (load, compute in float, round once), and lets the 16-bit
// softmax family reuse the vectorized float32 kernels (softmax_simd.h).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/half.h"
#include "cpu/kernels/convert_simd.h"

namespace tsr::kernels {

template <typename T>
inline constexpr bool is_16bit_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// n elements of a 16-bit float array to float (exact).
template <typename T>
void to_float_row(const T* x, float* out, int64_t n) {
  static_assert(is_16bit_float_v<T>);
  if constexpr (std::is_same_v<T, Half>) half_to_float_n(reinterpret_cast<const uint16_t*>(x), out, n, false);
  else bf16_to_float_n(reinterpret_cast<const uint16_t*>(x), out, n, false);
}

// n floats rounded to a 16-bit float array (round to nearest even).
template <typename T>
void from_float_row(const float* x, T* out, int64_t n) {
  static_assert(is_16bit_float_v<T>);
  if constexpr (std::is_same_v<T, Half>) float_to_half_n(x, reinterpret_cast<uint16_t*>(out), n, false);
  else float_to_bf16_n(x, reinterpret_cast<uint16_t*>(out), n, false);
}

// rows consecutive rows of n elements: y[r] = round(kernel(float(x[r]))).
// kernel(const float* in, float* out, int64_t n) computes one row.
template <typename T, typename Kernel>
void rows_in_float(const T* x, T* y, int64_t n, int64_t rows, const Kernel& kernel) {
  static_assert(is_16bit_float_v<T>);
  std::vector<float> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const auto* src = reinterpret_cast<const uint16_t*>(x + r * n);
    auto* dst = reinterpret_cast<uint16_t*>(y + r * n);
    if constexpr (std::is_same_v<T, Half>) half_to_float_n(src, in.data(), n, false);
    else bf16_to_float_n(src, in.data(), n, false);
    kernel(in.data(), out.data(), n);
    if constexpr (std::is_same_v<T, Half>) float_to_half_n(out.data(), dst, n, false);
    else float_to_bf16_n(out.data(), dst, n, false);
  }
}

// The same with two inputs: y[r] = round(kernel(float(a[r]), float(b[r]))),
// kernel(const float* a, const float* b, float* out, int64_t n).
template <typename T, typename Kernel>
void rows2_in_float(const T* a, const T* b, T* y, int64_t n, int64_t rows, const Kernel& kernel) {
  static_assert(is_16bit_float_v<T>);
  std::vector<float> fa(static_cast<size_t>(n)), fb(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    to_float_row(a + r * n, fa.data(), n);
    to_float_row(b + r * n, fb.data(), n);
    kernel(fa.data(), fb.data(), out.data(), n);
    auto* dst = reinterpret_cast<uint16_t*>(y + r * n);
    if constexpr (std::is_same_v<T, Half>) float_to_half_n(out.data(), dst, n, false);
    else float_to_bf16_n(out.data(), dst, n, false);
  }
}

}  // namespace tsr::kernels
