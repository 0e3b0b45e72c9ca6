// Vectorized conversions between float32 and the 16-bit floats over
// contiguous arrays, chosen at run time for the CPU (Highway's dynamic
// dispatch: AVX-512 / AVX2 / SSE4 / ... on x86, NEON on ARM). Every result is
// bit-identical to the scalar conversions in core/half.h, which stay the
// definition: NaN payloads, subnormals, rounding ties and overflow included.
//
// `stream`: write with non-temporal stores (for outputs larger than the
// last-level cache); the caller's thread issues a store fence before return.
#pragma once

#include <cstdint>

namespace tsr::kernels {

void half_to_float_n(const uint16_t* src, float* dst, int64_t n, bool stream);
void float_to_half_n(const float* src, uint16_t* dst, int64_t n, bool stream);
void bf16_to_float_n(const uint16_t* src, float* dst, int64_t n, bool stream);
void float_to_bf16_n(const float* src, uint16_t* dst, int64_t n, bool stream);

// dst[i] = src[2 * i] for i < n, elements of element_size bytes (1, 2, 4
// or 8; false, nothing written, for another size), both pointers aligned to
// it and not overlapping: a step-2 slice (x[..., ::2]) into a contiguous
// run. Reads no element past src[2n - 2].
bool gather_even_n(const void* src, void* dst, int64_t n, int64_t element_size, bool stream);

// The name of the instruction set the calls above use on this CPU
// (Highway's target name, e.g. "AVX2"), for benchmarks and tests.
const char* convert_simd_target();

}  // namespace tsr::kernels
