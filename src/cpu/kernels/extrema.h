// Elementwise extrema and reductions without indices on CPU tensors (no
// autograd): maximum / minimum (broadcast, promoted, NaN propagating),
// amax / amin and the p-norm over a set of dims.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// torch.maximum / minimum: a and b broadcast, torch.result_type's dtype
// (bool stays bool), NaN wins.
tsr_dtype extremum_result_dtype(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// amax / amin's argument rule on every device (`name` "amax" or "amin"):
// no reduced dim of size 0 (a 0-dim input has one element)
// (TSR_ERR_INDEX_OUT_OF_RANGE, torch's messages).
void check_extreme_over(const Tensor& x, const std::vector<bool>& mask, const char* name);
// amax / amin over mask's dims (reduction_mask), NaN propagating; the
// reduced dims must not be empty.
Tensor amax(const Tensor& x, const std::vector<bool>& mask, bool keepdim);
Tensor amin(const Tensor& x, const std::vector<bool>& mask, bool keepdim);
// The p-norm over mask's dims: p = inf / -inf (largest / smallest |x|),
// 0 (count of non-zeros), else (sum |x|^p)^(1/p); accumulated in double,
// result in x's (floating) dtype.
Tensor norm(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim);

}  // namespace tsr::kernels
