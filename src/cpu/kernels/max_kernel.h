// The loops of max(dim)/argmax: values in the input's dtype and int64
// indices, laid out as reduce_plan.h's accumulator (keepdim sizes, strides
// in the input's memory order). torch's rules: first maximum on ties, NaN
// is the maximum and the first NaN's index is taken. Exact, so any split
// across threads gives the same result.
#pragma once

#include <cstdint>
#include <utility>

#include "core/tensor.h"

namespace tsr::kernels {

// dim is wrapped and t.sizes()[dim] > 0 (max_dim_mask has checked).
std::pair<Tensor, Tensor> max_dim_values_indices(const Tensor& t, int64_t dim);

}  // namespace tsr::kernels
