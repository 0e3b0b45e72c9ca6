// C API: torch.cuda's availability queries and synchronize (cuda.h), over
// core's device registry, whose CUDA loader (plugin/cuda_loader.cpp) loads
// libtessera_cuda.so on the first request and keeps its failure's message.
#include <tessera/cuda.h>

#include <algorithm>

#include "capi/barrier.h"
#include "core/device_allocator.h"
#include "core/error.h"
#include "device/dnn_flags.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

// The CUDA devices that can be used: 0 when the plugin did not load.
int32_t usable_devices() noexcept {
  const DeviceBackend* b = find_backend(TSR_DEVICE_CUDA);
  return b ? std::max(b->device_count(), 0) : 0;
}

}  // namespace

TSR_EXTERN int tsr_cuda_is_available(void) { return usable_devices() > 0 ? 1 : 0; }

TSR_EXTERN int32_t tsr_cuda_device_count(void) { return usable_devices(); }

TSR_EXTERN tsr_status tsr_cuda_init(void) {
  // backend_for throws the loader's message, or says there is no device 0.
  return guarded([] { backend_for(Device{TSR_DEVICE_CUDA, 0}); });
}

TSR_EXTERN tsr_status tsr_cuda_synchronize(int32_t device_index) {
  return guarded([&] {
    TSR_CHECK(device_index >= -1, TSR_ERR_INVALID_ARGUMENT,
              "tsr_cuda_synchronize: device index must be -1 (the current device) or a "
              "device's index, got ",
              device_index);
    const Device d{TSR_DEVICE_CUDA, device_index == -1 ? 0 : device_index};
    backend_for(d).synchronize_device(d.index);
  });
}

TSR_EXTERN bool tsr_cudnn_set_benchmark(bool on) { return device::set_dnn_benchmark(on); }
TSR_EXTERN bool tsr_cudnn_benchmark(void) { return device::dnn_policy().benchmark; }
TSR_EXTERN bool tsr_cudnn_set_deterministic(bool on) { return device::set_dnn_deterministic(on); }
TSR_EXTERN bool tsr_cudnn_deterministic(void) { return device::dnn_policy().deterministic; }
TSR_EXTERN bool tsr_cudnn_set_allow_tf32(bool on) { return device::set_dnn_allow_tf32(on); }
TSR_EXTERN bool tsr_cudnn_allow_tf32(void) { return device::dnn_policy().allow_tf32; }
