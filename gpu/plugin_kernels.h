// The kernels CudaDevice::kernels() hands out. Defined in plugin_kernels.cpp
// for libtessera_cuda.so and by the test double's copy of the plugin
// (tests/cuda_double), which runs no device code.
#pragma once

#include "core/device_kernels.h"
#include "core/dnn_kernels.h"

namespace tsr::cuda {

DeviceKernels* plugin_kernels();
// Convolutions through cuDNN (cudnn_kernels.cpp, over the real libcudnn or
// its test double, tests/cudnn_double); nullptr in the double's copy of the
// plugin that runs no kernels.
DnnKernels* plugin_dnn_kernels();

}  // namespace tsr::cuda
