#include "core/device.h"

#include "core/error.h"

namespace tsr {

std::string device_type_name(tsr_device_type t) {
  switch (t) {
    case TSR_DEVICE_CPU: return "cpu";
    case TSR_DEVICE_CUDA: return "cuda";
    case TSR_DEVICE_CUDA_HOST: return "cuda_host";
    case TSR_DEVICE_EXT: return "ext";
  }
  return str("device_type_", int(t));
}

std::string device_name(Device d) {
  if (d.type == TSR_DEVICE_CPU) return "cpu";
  return str(device_type_name(d.type), ":", d.index);
}

}  // namespace tsr
