// One innermost run of a strided copy with dtype conversion: n elements of
// From at s (byte stride ss) into To at d (byte stride ds). The result is
// always tsr::convert<To>(From) element by element (core/dtype.h); the run's
// shape picks how it gets there:
// - a broadcast source (ss == 0): convert once, then fill;
// - both sides contiguous: memcpy for one dtype, the SIMD kernels of
//   convert_simd.h for float32 <-> float16/bfloat16, the other 16-bit float
//   pairs through a float32 buffer on the stack, and a plain loop (which the
//   compiler vectorizes: no strides, no aliasing questions) for the rest;
// - a step-2 source of the same dtype into a contiguous run (x[..., ::2]):
//   gather_even_n, vector de-interleaving loads;
// - anything else: the per-element loop.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "cpu/kernels/convert_simd.h"
#include "cpu/kernels/stream_store.h"

namespace tsr::kernels {

namespace convert_detail {

template <typename T>
inline constexpr bool is_f16 = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Typed contiguous loop over memcpy'd elements (no alignment assumed).
template <typename To, typename From>
void convert_plain(char* d, const char* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, s + i * int64_t(sizeof(From)), sizeof(From));
    const To w = convert<To>(v);
    std::memcpy(d + i * int64_t(sizeof(To)), &w, sizeof(To));
  }
}

// 16-bit float bits -> float32 and back, the SIMD kernels.
template <typename F16>
void widen(const char* s, float* d, int64_t n, bool stream) {
  const auto* p = reinterpret_cast<const uint16_t*>(s);
  if constexpr (std::is_same_v<F16, Half>) half_to_float_n(p, d, n, stream);
  else bf16_to_float_n(p, d, n, stream);
}
template <typename F16>
void narrow(const float* s, char* d, int64_t n, bool stream) {
  auto* p = reinterpret_cast<uint16_t*>(d);
  if constexpr (std::is_same_v<F16, Half>) float_to_half_n(s, p, n, stream);
  else float_to_bf16_n(s, p, n, stream);
}

// Contiguous run, both pointers aligned to their element sizes.
template <typename To, typename From>
void convert_contiguous(char* d, const char* s, int64_t n, bool stream) {
  if constexpr (std::is_same_v<To, From>) {
    copy_bytes(d, s, n * int64_t(sizeof(To)), stream);
  } else if constexpr (std::is_same_v<To, float> && is_f16<From>) {
    widen<From>(s, reinterpret_cast<float*>(d), n, stream);
  } else if constexpr (std::is_same_v<From, float> && is_f16<To>) {
    narrow<To>(reinterpret_cast<const float*>(s), d, n, stream);
  } else if constexpr (is_f16<From> || is_f16<To>) {
    // Through float32, which is what convert<> does for these types:
    // convert<T>(Half h) == convert<T>(float(h)) and convert<Half>(v) ==
    // Half(static_cast<float>(v)). A stack buffer of 2 KiB stays in L1.
    constexpr int64_t kChunk = 512;
    alignas(64) float buf[kChunk];
    for (int64_t i = 0; i < n; i += kChunk) {
      const int64_t m = n - i < kChunk ? n - i : kChunk;
      const char* si = s + i * int64_t(sizeof(From));
      char* di = d + i * int64_t(sizeof(To));
      if constexpr (is_f16<From>) widen<From>(si, buf, m, false);
      else convert_plain<float, From>(reinterpret_cast<char*>(buf), si, m);
      if constexpr (is_f16<To>) narrow<To>(buf, di, m, stream);
      else convert_plain<To, float>(di, reinterpret_cast<const char*>(buf), m);
    }
  } else {
    convert_plain<To, From>(d, s, n);
  }
}

}  // namespace convert_detail

template <typename To, typename From>
void convert_run(char* d, int64_t ds, const char* s, int64_t ss, int64_t n, bool stream) {
  using namespace convert_detail;
  constexpr int64_t to_size = sizeof(To), from_size = sizeof(From);
  if (ss == 0) {
    From v;
    std::memcpy(&v, s, sizeof(From));
    const To w = convert<To>(v);
    if (ds == to_size) return fill_elements(d, &w, to_size, n, stream);
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ds, &w, sizeof(To));
    return;
  }
  if (ds == to_size && ss == from_size && reinterpret_cast<uintptr_t>(d) % sizeof(To) == 0 &&
      reinterpret_cast<uintptr_t>(s) % sizeof(From) == 0)
    return convert_contiguous<To, From>(d, s, n, stream);
  if constexpr (std::is_same_v<To, From>)
    if (ds == to_size && ss == 2 * to_size && n > 1 && reinterpret_cast<uintptr_t>(d) % sizeof(To) == 0 &&
        reinterpret_cast<uintptr_t>(s) % sizeof(From) == 0 && gather_even_n(s, d, n, to_size, stream))
      return;
  for (int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, s + i * ss, sizeof(From));
    const To w = convert<To>(v);
    std::memcpy(d + i * ds, &w, sizeof(To));
  }
}

}  // namespace tsr::kernels
