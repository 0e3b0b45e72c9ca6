// The element-wise reductions Gloo's algorithms apply, per dtype and op:
// c[i] = a[i] op b[i]. float16 and bfloat16 compute in float32 and round
// once (Gloo's own float16 does the same); bool is or (SUM, MAX, BOR), and
// (PRODUCT, MIN, BAND) and xor (BXOR). BAND, BOR and BXOR take integers
// and bool only. AVG is not here: the group sums, then divides.
#pragma once

#include <cstddef>

#include <tessera/distributed.h>
#include <tessera/types.h>

#include "core/tensor.h"

namespace tsr::distributed {

using ReduceFn = void (*)(void* c, const void* a, const void* b, size_t n);

// Throws TSR_ERR_UNSUPPORTED for a dtype without arithmetic (the
// storage-only ones), TSR_ERR_DTYPE_MISMATCH for a bitwise op on a
// floating dtype (torch's "Cannot use ReduceOp.BAND with non-integral
// dtype").
ReduceFn reduce_function(tsr_dtype dtype, tsr_reduce_op op);

// AVG after SUM, for engines without an average: floating types divide
// (float16/bfloat16 in float32, one rounding), integers truncate as
// NCCL's ncclAvg; bool stays the or. buffer is contiguous, on the CPU.
void divide_in_place(const Tensor& buffer, int world);

// Name of an op as torch prints it ("SUM").
const char* reduce_op_name(tsr_reduce_op op);

}  // namespace tsr::distributed
