// Factories and shape ops (torch.linspace, eye, tril/triu (and in place),
// flip, roll, repeat, tile, einsum) with torch 1.13's grad_fns.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace tsr::ops {

Tensor linspace(double start, double end, int64_t steps, tsr_dtype dtype);
Tensor eye(int64_t n, int64_t m, tsr_dtype dtype);
// upper: triu (TriuBackward0), else tril (TrilBackward0).
Tensor triangle(const Tensor& x, int64_t diagonal, bool upper);
void triangle_(const Tensor& x, int64_t diagonal, bool upper);
Tensor flip(const Tensor& x, const Shape& dims);
// dims empty: x flattened, rolled by shifts[0], viewed back (torch's rule).
Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims);
Tensor repeat(const Tensor& x, const Shape& repeats);
// torch.tile: repeat with repeats padded with leading ones to x's ndim.
Tensor tile(const Tensor& x, const Shape& reps);
// torch.einsum(equation, operands).
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace tsr::ops
