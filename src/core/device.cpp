#include "core/device.h"

#include "core/error.h"

namespace tsr {

std::string device_name(Device d) {
  switch (d.type) {
    case TSR_DEVICE_CPU: return "cpu";
    case TSR_DEVICE_CUDA: return str("cuda:", d.index);
    case TSR_DEVICE_CUDA_HOST: return str("cuda_host:", d.index);
    case TSR_DEVICE_EXT: return str("ext:", d.index);
  }
  return str("device_type_", int(d.type), ":", d.index);
}

}  // namespace tsr
