// dst += alpha * src on a device when dst may reach one element several
// times: the gradient of an overlapping view (expand, unfold with step <
// size, as_strided) scattered into zeros, a gradient added into .grad.
// On the CPU kernels::add_into walks the elements one after another and
// every contribution lands; on a device one launch would run them at once
// and lose updates. Here:
//  - a dim of dst with stride 0 (an expand) takes the sum of src over that
//    dim (the device's reduction, as sum_to_size), added once: no launch
//    repeats an element for it and no serialization is needed;
//  - any other repeat (unfold windows, small as_strided strides) is split
//    into launches that each write an element at most once, queued on the
//    stream in a fixed order (device/kernel_args.h's for_each_launch).
// Deterministic; the order of the additions may differ from the CPU's, so
// results agree with it as sums do (a few ULPs), exactly for exact sums.
#pragma once

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::device {

// src broadcasts to dst's sizes; both on k's device.
void accumulate_into(DeviceKernels& k, const Tensor& dst, const Tensor& src, double alpha);

}  // namespace tsr::device
