// torch.backends.cudnn's process-wide flags (benchmark, deterministic,
// allow_tf32), read by every convolution queued on a device with
// DnnKernels (src/device/cnn.cpp). Relaxed atomics: a flag set on one
// thread is seen by convolutions that start after it.
#pragma once

#include "core/dnn_kernels.h"

namespace tsr::device {

DnnAlgoPolicy dnn_policy();
// Each returns the previous value.
bool set_dnn_benchmark(bool on);
bool set_dnn_deterministic(bool on);
bool set_dnn_allow_tf32(bool on);

}  // namespace tsr::device
