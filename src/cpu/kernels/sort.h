// Sorting and selection along one dim on CPU tensors (no autograd): sort
// (LSD radix sort of order-preserving integer keys with the positions as
// payload, so stable whatever is asked; std::stable_sort for short slices),
// topk and kthvalue (a radix select on the keys' top 16 bits, then a sort
// of the few candidates). NaN is larger than every number, as torch.
#pragma once

#include <utility>

#include "core/tensor.h"

namespace tsr::kernels {

// values (x's dtype) and indices (int64), both contiguous of x's sizes.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending);
// The k largest (or smallest) along dim, in order, ties by position;
// sizes x's with dim's replaced by k.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest);
// The k-th smallest (k from 1) along dim and its position; sizes x's
// without dim (or with it as 1 when keepdim).
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim);

}  // namespace tsr::kernels
