// Vectorized inner loops of the kernels that make or consume bool masks:
// the comparisons eq/ne/lt/le/gt/ge (compare.cpp) and where(cond, a, b)
// (indexing.cpp), over contiguous arrays, chosen at run time by Highway's
// dynamic dispatch like elementwise_simd.h.
//
// Exactness: a comparison is exact in every dtype, so the lanes give the
// scalar loops' answers: NaN compares false except under ne (IEEE), signed
// and unsigned integers compare as such, float16/bfloat16 are widened to
// float32 (exactly) first. where selects bits, so -0.0 and NaN payloads pass
// through unchanged, and any nonzero condition byte counts as true.
#pragma once

#include <cstdint>

#include "cpu/kernels/elementwise_simd.h"
#include "tessera/types.h"

namespace tsr::kernels::simd {

enum class Cmp : int { Eq, Ne, Lt, Le, Gt, Ge };

// out[i] = a[i] op b[i] as bool bytes (0 or 1), a and b of dtype d (every
// dtype of dispatch_all: bool, the integers, the floats); `bcast` as
// binary() in elementwise_simd.h. False for a dtype it does not take.
bool compare(Cmp op, tsr_dtype d, bool* out, const void* a, const void* b, int64_t n, Bcast bcast);

// out[i] = cond[i] ? a[i] : b[i] for elements of `elem_size` bytes (1, 2, 4
// or 8: where only moves bits). A true `*_bcast` reads that operand's
// element 0 for every i (stride 0). False for another element size.
bool select(int elem_size, void* out, const bool* cond, const void* a, const void* b, int64_t n,
            bool cond_bcast, bool a_bcast, bool b_bcast);

}  // namespace tsr::kernels::simd
