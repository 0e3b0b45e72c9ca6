// Comparisons (torch.eq, ne, lt, le, gt, ge, allclose) and abs.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

// Broadcasting, computed in torch.result_type(a, b); bool results.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
// torch.abs, differentiable (AbsBackward0: grad * sign(x)).
Tensor abs(const Tensor& a);
// torch.allclose (CPU tensors).
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan);

}  // namespace tsr::ops
