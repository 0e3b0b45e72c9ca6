// any / all on CPU tensors (no autograd: the result is never
// differentiable). torch 1.13's dtype rule: uint8 input gives uint8,
// everything else bool. Empty slices give torch's identities (any: false,
// all: true); NaN counts as true.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

Tensor any_all(const Tensor& t, const std::vector<bool>& mask, bool keepdim, bool is_all);

}  // namespace tsr::kernels
