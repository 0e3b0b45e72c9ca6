// The scatter / index family on a device other than the CPU (issue 32):
// masked_fill_, masked_select, flip, scatter_ / scatter_add_ /
// scatter_reduce_, index_add_ / index_copy_ / index_fill_, advanced
// indexing (index, index_put_) and nonzero, through the device's
// DeviceKernels, with the CPU kernels' checks, messages, dtype rules and
// output layouts (src/cpu/kernels/advanced_index.h, scatter.h,
// shape_ops.h). No autograd, no version bumps: the primitives call these
// from eval_device. The *_into functions write into an existing tensor (the
// primitive's self or its copy).
//
// Synchronizations (as torch's CUDA kernels): every op that takes index
// values checks them on the device first and reads back one 8-byte flag
// per index tensor (the host copies the index only when one is bad, to
// word the CPU's message); nonzero, masked_select and indexing with a bool
// mask read back a count per block of the mask (their output's size
// depends on it; torch's nonzero syncs the same way).
#pragma once

#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"
#include "cpu/kernels/scatter.h"

namespace tsr::device {

// kernels::masked_fill_into: value converted to self's dtype as the CPU
// does; a tensor value (one element on self's device) is read on the host
// first (a synchronization, as torch's value.item()).
void masked_fill_into(DeviceKernels& k, const Tensor& self, const Tensor& mask, double value);
void masked_fill_into(DeviceKernels& k, const Tensor& self, const Tensor& mask, const Tensor& value);
// kernels::masked_select: 1-D, contiguous.
Tensor masked_select(DeviceKernels& k, const Tensor& x, const Tensor& mask);
// kernels::nonzero: [n, x.ndim] int64, contiguous.
Tensor nonzero(DeviceKernels& k, const Tensor& x);
// kernels::flip with dims already wrapped and distinct: contiguous; one
// gather per flipped dim by an n-1 .. 0 index uploaded from pinned memory
// (queued, no synchronization).
Tensor flip(DeviceKernels& k, const Tensor& x, const Shape& dims);

// kernels::scatter_into (src read at index's positions; a 0-stride src
// scatters a value).
void scatter_into(DeviceKernels& k, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  kernels::ScatterReduce reduce, bool include_self);
// kernels::index_add_into / index_copy_into / index_fill_into.
void index_add_into(DeviceKernels& k, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    double alpha);
void index_copy_into(DeviceKernels& k, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
void index_fill_into(DeviceKernels& k, const Tensor& self, int64_t dim, const Tensor& index, double value);

// The output sizes of masked_select / nonzero / index on a device (their
// shape rules read values: kernels::count_true, plan_index), with the CPU's
// checks and messages.
int64_t count_true(DeviceKernels& k, const Tensor& mask, const Shape& shape);
Shape index_result_sizes(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& indices);

// kernels::index(plan_index(self, indices)): a new contiguous tensor.
Tensor index(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& indices);
// kernels::index_put_into(plan_index(self, indices), values, accumulate):
// repeated positions add up in order (or the last one wins), as the CPU's.
void index_put_into(DeviceKernels& k, const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                    bool accumulate);

}  // namespace tsr::device
