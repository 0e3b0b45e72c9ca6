// Selection, clamping, pow with a tensor exponent, comparisons and
// layer_norm on a device other than the CPU (issue 32), through its
// DeviceKernels, with the CPU kernels' checks, dtype rules and output
// layouts (src/cpu/kernels/activation.h, pointwise.h, compare.h,
// indexing.h, normalization.h): the primitives' eval_device. And the masks
// their backward formulas select with, on any device.
#pragma once

#include <optional>
#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/compare.h"

namespace tsr::device {

// kernels::where: dtype torch.result_type(a, b), TensorIterator's layout.
Tensor where(DeviceKernels& k, const Tensor& cond, const Tensor& a, const Tensor& b);
// kernels::index_select / gather / embedding. Index values are checked on
// the device before anything is written (one 8-byte read back, a
// synchronization); a bad one gives the CPU's status and message, the
// index then copied to the host to word it.
Tensor index_select(DeviceKernels& k, const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(DeviceKernels& k, const Tensor& x, int64_t dim, const Tensor& index);
Tensor embedding(DeviceKernels& k, const Tensor& weight, const Tensor& indices);
// kernels::index_add_zeros / scatter_add_zeros (the backward of the three
// above; indices already checked by their forward): one thread per output
// column adding in index order, so the CPU's result bit for bit.
Tensor index_add_zeros(DeviceKernels& k, const Shape& sizes, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_add_zeros(DeviceKernels& k, const Shape& sizes, int64_t dim, const Tensor& index,
                         const Tensor& src);

// kernels::clamp (Python-float bounds) and clamp_tensor (tensor bounds).
Tensor clamp(DeviceKernels& k, const Tensor& x, std::optional<double> lo, std::optional<double> hi);
Tensor clamp_tensor(DeviceKernels& k, const Tensor& x, const std::vector<Tensor>& bounds, bool has_lo,
                    bool has_hi);
// kernels::pow with a tensor exponent.
Tensor pow(DeviceKernels& k, const Tensor& a, const Tensor& b);
// kernels::compare: bool results, computed in torch.result_type(a, b).
Tensor compare(DeviceKernels& k, kernels::CompareOp op, const Tensor& a, const Tensor& b);
// kernels::layer_norm: contiguous result.
Tensor layer_norm(DeviceKernels& k, const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps);

// The backward formulas' masks (kernels::in_range_mask, eq_scalar_mask,
// zero_base_mask) on whichever device x lives.
Tensor in_range_mask_any(const Tensor& x, std::optional<double> lo, std::optional<double> hi);
Tensor eq_scalar_mask_any(const Tensor& x, double v);
Tensor zero_base_mask_any(const Tensor& x, const Tensor& y);

}  // namespace tsr::device
