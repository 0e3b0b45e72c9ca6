// Extrema, products, scans and statistics on a device other than the CPU
// (issue 32), through its DeviceKernels, with the CPU kernels' checks,
// dtype rules and output layouts (src/cpu/kernels/extrema.h, minmax.h,
// reduce.h, scan.h, statistics.h): the eval_device of maximum / minimum,
// amax / amin, min / max over a dim and over everything,
// evenly_distribute_backward, prod, cumsum / cumprod, var / std (and their
// _mean forms), logsumexp and norm.
#pragma once

#include <utility>
#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/scan.h"

namespace tsr::device {

// kernels::maximum / minimum: broadcast, torch.result_type's dtype (bool
// stays bool), NaN wins, TensorIterator's layout; bit for bit the CPU's
// (ties of -0 and +0 included).
Tensor extremum(DeviceKernels& k, const Tensor& a, const Tensor& b, bool max);
// kernels::min_dim: values and int64 indices of the first minimum along
// dim (the first NaN when there is one). max_dim is device_ops.h's.
std::pair<Tensor, Tensor> min_dim(DeviceKernels& k, const Tensor& t, int64_t dim, bool keepdim);
// max() / min() over every element in C order (ops/reduction.cpp's MaxAll,
// kernels::min_all), with the CPU's message for an empty t.
Tensor extreme_all(DeviceKernels& k, const Tensor& t, bool max);
// kernels::amax / amin over mask's dims: the first NaN, else the first
// extreme value in C order of the reduced dims (so the sign of a zero is
// the CPU's too).
Tensor extreme_over(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim, bool max);
// kernels::max_all_backward: grad (0-dim) / count at every element of
// input equal to result (its NaNs when result is NaN), else 0; contiguous.
Tensor evenly_distribute_backward(DeviceKernels& k, const Tensor& grad, const Tensor& input, const Tensor& result);

// kernels::scan: the inclusive cumsum / cumprod of t along dim (wrapped; 0
// for a 0-dim t) in `result` (t converted first), from the end when
// reverse; contiguous, bit for bit the CPU's.
Tensor scan(DeviceKernels& k, const Tensor& t, int64_t dim, kernels::ScanOp op, tsr_dtype result, bool reverse);
// kernels::prod: the product over dim (wrapped), or over every element in
// C order when all; bit for bit the CPU's.
Tensor prod(DeviceKernels& k, const Tensor& t, bool all, int64_t dim, bool keepdim, tsr_dtype result);
// kernels::any_all: whether any (all) element over mask is non-zero (NaN
// counts), uint8 for uint8 input, else bool; empty slices give false
// (true); contiguous.
Tensor any_all(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim, bool is_all);
// kernels::var_mean: variance (its square root when take_sqrt) with
// divisor max(N - correction, 0) and the mean over mask's dims, computed in
// float64 as the CPU (two passes: the mean, then the squared deviations),
// in t's dtype, contiguous. Sums add in another order than the CPU's: a
// few ULPs of float64 apart.
std::pair<Tensor, Tensor> var_mean(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask,
                                   int64_t correction, bool keepdim, bool take_sqrt);
// kernels::logsumexp: log(sum(exp(x - m))) + m over mask, m each row's max
// (0 when infinite), in float64, result kernels::logsumexp_result_dtype.
Tensor logsumexp(DeviceKernels& k, const Tensor& t, const std::vector<bool>& mask, bool keepdim);
// kernels::norm: the p-norm over mask in float64, result in t's dtype.
Tensor norm(DeviceKernels& k, const Tensor& t, double p, const std::vector<bool>& mask, bool keepdim);

}  // namespace tsr::device
