// Reductions on CPU tensors (no autograd): sum/mean over a set of dims, max
// and argmax along one dim, and sum_to_size for broadcasting backward.
#pragma once

#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// Wrapped, de-duplicated dims to reduce (empty list = all dims), as a mask
// of t's ndim entries. Repeated dims: TSR_ERR_INVALID_ARGUMENT.
std::vector<bool> reduction_mask(const Tensor& t, const Shape& dims);
// Output sizes for a reduction mask.
Shape reduced_sizes(const Shape& sizes, const std::vector<bool>& mask, bool keepdim);

// Sum in a wide accumulator (double for floats, int64 for integers/bool);
// result dtype: floats keep theirs, integers and bool give int64 (torch.sum).
Tensor sum(const Tensor& t, const std::vector<bool>& mask, bool keepdim);
// Mean = sum / count, floating dtypes only.
Tensor mean(const Tensor& t, const std::vector<bool>& mask, bool keepdim);
// Values (t's dtype) and int64 indices of the first maximum along dim; NaN
// counts as the maximum (torch.max(dim)).
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim);
// Sums `t` down to `sizes` (the inverse of broadcasting `sizes` to t).
Tensor sum_to_size(const Tensor& t, const Shape& sizes);

}  // namespace tsr::kernels
