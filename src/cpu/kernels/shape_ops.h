// Factories and shape ops on CPU tensors (no autograd): linspace, eye,
// tril / triu (in place on a written tensor), flip, roll, repeat.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// torch.linspace's two-sided formula: start + step * i for the first half,
// end - step * (steps - 1 - i) for the rest, step = (end - start) /
// (steps - 1) in the dtype (double for integers, truncated at the end).
Tensor linspace(double start, double end, int64_t steps, tsr_dtype dtype);
// torch.eye(n, m): ones on the diagonal, [n, m].
Tensor eye(int64_t n, int64_t m, tsr_dtype dtype);
// Zeros t's elements above (upper = false: tril) or below (upper: triu)
// diagonal k of each matrix of its last two dims.
void zero_triangle(const Tensor& t, int64_t k, bool upper);
// x with each of dims reversed (dims wrapped, distinct).
Tensor flip(const Tensor& x, const Shape& dims);
// x with dims[i] rolled by shifts[i] (element j moves to j + shift).
Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims);
// x repeated repeats[i] times along dim i (repeats has at least x's ndim
// entries; leading ones add dims).
Tensor repeat(const Tensor& x, const Shape& repeats);

}  // namespace tsr::kernels
