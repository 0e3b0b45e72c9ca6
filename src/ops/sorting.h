// Sorting and selection along one dim (torch.sort, argsort, topk,
// kthvalue): values and int64 indices, torch 1.13's grad_fns. Sorts are
// stable (ties keep their order, as torch's stable=True; its default may
// order ties differently); NaN is the largest value.
#pragma once

#include <utility>

#include "core/tensor.h"

namespace tsr::ops {

// stable picks torch's overload (SortBackward1 / SortBackward0); the sort
// is stable either way.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable);
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest);
std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim);

}  // namespace tsr::ops
