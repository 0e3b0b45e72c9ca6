// min along a dim and over everything, through max_dim on an order-reversed
// copy (-x for floats, ~x for integers, !x for bool: exact bijections that
// reverse the order and keep NaN a NaN), so min shares max's rules: the
// first minimum's index on ties, NaN taken as the minimum (the first NaN).
#pragma once

#include <utility>

#include "core/tensor.h"

namespace tsr::kernels {

// A contiguous copy of t with its order reversed (applying it twice gives t).
Tensor order_reversed(const Tensor& t);
// min(dim)'s argument rule: *dim wrapped, the dim of non-zero size
// (TSR_ERR_SHAPE_MISMATCH, torch's "<op>(): Expected reduction dim 0 to have
// non-zero size.").
void check_min_dim(const Tensor& t, int64_t* dim, const char* op);
// Values (t's dtype) and int64 indices of the first minimum along dim.
std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim);
// The smallest element (0-dim); an empty t: TSR_ERR_SHAPE_MISMATCH.
Tensor min_all(const Tensor& t);

}  // namespace tsr::kernels
