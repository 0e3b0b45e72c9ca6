// The kernels CudaDevice::kernels() hands out. Defined in plugin_kernels.cpp
// for libtessera_cuda.so and by the test double's copy of the plugin
// (tests/cuda_double), which runs no device code.
#pragma once

#include "core/device_kernels.h"

namespace tsr::cuda {

DeviceKernels* plugin_kernels();

}  // namespace tsr::cuda
