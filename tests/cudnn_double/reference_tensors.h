// The cuDNN double's operands as tessera CPU tensors over the simulated
// device's memory (host memory), for the reference loops
// (reference_conv.cpp, reference_batch_norm.cpp).
#pragma once

#include "core/tensor.h"
#include "reference_conv.h"

namespace tsr::cudnn_double {

// The operand as a CPU tensor over its memory (no copy, not owned).
Tensor wrap(const Operand& o);
// The format the operand is dense in: channels_last when it is so and not
// also contiguous, else contiguous.
tsr_memory_format format_of(const Operand& o);
// The operand dense in fmt in the reference loops' dtype: float64 stays,
// everything else is float32 (16-bit data widened; cuDNN computes it in
// float). The operand's own memory when it already is so.
Tensor dense_compute(const Operand& o, tsr_memory_format fmt);
// out = alpha * r + beta * out (alpha 1, beta 0: r converted to out's
// dtype, rounded once).
void write(const Operand& out, const Tensor& r, double alpha, double beta);

}  // namespace tsr::cudnn_double
