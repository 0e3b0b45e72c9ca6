// Transfers between devices: tessera/device.h.
#include <tessera/device.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/factory.h"
#include "device/transfer.h"
#include "ops/to_device.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_to_device(const tsr_tensor* t, tsr_device_type device_type,
                                    int32_t device_index, int non_blocking, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    const Device d = checked_device(enum_arg(device_type), device_index);
    emit(out, ops::to_device(x, d, non_blocking != 0));
  });
}

TSR_EXTERN tsr_status tsr_pin_memory(const tsr_tensor* t, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    TSR_CHECK(device::is_host(x.device()), TSR_ERR_INVALID_ARGUMENT, "cannot pin a ",
              device_name(x.device()), " tensor: only dense CPU tensors can be pinned");
    checked_device(TSR_DEVICE_CUDA_HOST, 0);
    emit(out, device::pin_memory(x));
  });
}

TSR_EXTERN tsr_status tsr_is_pinned(const tsr_tensor* t, int* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = device::is_pinned(x) ? 1 : 0;
  });
}
