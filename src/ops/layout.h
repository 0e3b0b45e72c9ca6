// Differentiable copies between layouts and dtypes (torch clone, contiguous,
// to(dtype)) and the in-place copy_.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

Tensor clone(const Tensor& t, tsr_memory_format fmt);
Tensor contiguous(const Tensor& t, tsr_memory_format fmt);
Tensor to_dtype(const Tensor& t, tsr_dtype dtype);
// dst.copy_(src): broadcast + convert; checks in-place rules; bumps version.
void copy_(const Tensor& dst, const Tensor& src);

}  // namespace tsr::ops
