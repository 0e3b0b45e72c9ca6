// Vectorized inner loops of the integer and bool elementwise kernels
// (elementwise.cpp): add, sub, mul, neg and relu over contiguous arrays,
// chosen at run time by Highway's dynamic dispatch like elementwise_simd.h.
//
// Exactness: integer arithmetic wraps modulo 2^bits, as torch's (and the
// scalar loops, which compute in the unsigned type); every lane gives the
// bits the scalar loop gives. bool add is logical or, bool mul logical and
// (torch's), and any nonzero byte counts as true.
#pragma once

#include <cstdint>

#include "cpu/kernels/elementwise_simd.h"

namespace tsr::kernels::simd {

// Add, Sub and Mul for the integer dtypes (int8..int64, uint8..uint64),
// Add and Mul for bool; false for any other op or dtype (the caller runs
// its scalar loop). `bcast` as binary() in elementwise_simd.h.
bool int_binary(Bin op, tsr_dtype d, void* out, const void* a, const void* b, int64_t n, Bcast bcast);
// Neg and Relu (x <= 0 ? 0 : x) of the integer dtypes; false otherwise.
bool int_unary(Un op, tsr_dtype d, void* out, const void* x, int64_t n);

}  // namespace tsr::kernels::simd
