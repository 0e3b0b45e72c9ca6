// Binary arithmetic with one transposed operand (a + b.t()) fused with the
// transpose: 8x8 (float32) or 4x4 (float64) register tiles of the
// transposed operand are transposed in AVX registers and combined with the
// other operand's rows on their way to the output, so the transposed data
// never goes through memory again. The gathered-tile path of
// elementwise.cpp stored each tile to a buffer and read it back, 2x the
// time of this loop (bench: tsr_kernel_bench --elementwise).
#pragma once

#include <cstdint>

#include "cpu/kernels/elementwise_simd.h"

namespace tsr::kernels {

// The n1 x n0 output o (rows ldo bytes apart, elements contiguous) =
// op(u, t^T) when t_is_rhs, else op(t^T, u): u is n1 x n0 like o (rows ldu
// bytes apart), t is stored n0 x n1 (rows ldt bytes apart), read along its
// rows. Handles op in {Add, Sub, Mul, Div} for es = 4 (float32) or 8
// (float64) on CPUs with AVX, bit-identical to the scalar loop (IEEE
// operations, no contraction); returns false (nothing written) otherwise.
bool fused_transposed_binary(simd::Bin op, int64_t es, char* o, int64_t ldo, const char* u, int64_t ldu,
                             const char* t, int64_t ldt, int64_t n0, int64_t n1, bool t_is_rhs);

}  // namespace tsr::kernels
