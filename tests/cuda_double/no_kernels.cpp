// The double's copy of the plugin runs no device code: CudaDevice::kernels()
// is nullptr there, as in a plugin built before gpu/kernels existed.
#include "plugin_kernels.h"

namespace tsr::cuda {

DeviceKernels* plugin_kernels() { return nullptr; }
DnnKernels* plugin_dnn_kernels() { return nullptr; }

}  // namespace tsr::cuda
