// sort, topk and kthvalue on a device other than the CPU (issue 32),
// through DeviceKernels::sort_slices: the CPU kernels' order (stable, ties
// by position, NaN the largest, -0 with +0), dtypes and output layouts
// (contiguous values and int64 indices; src/cpu/kernels/sort.h). The
// primitives (ops/sorting.cpp) have checked k and dim.
#pragma once

#include <utility>

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::device {

std::pair<Tensor, Tensor> sort(DeviceKernels& k, const Tensor& x, int64_t dim, bool descending);
std::pair<Tensor, Tensor> topk(DeviceKernels& k, const Tensor& x, int64_t count, int64_t dim, bool largest);
std::pair<Tensor, Tensor> kthvalue(DeviceKernels& k, const Tensor& x, int64_t kth, int64_t dim, bool keepdim);

}  // namespace tsr::device
