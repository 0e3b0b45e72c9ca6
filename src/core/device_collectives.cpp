// Which device types have collectives between processes (their plugin's
// engine): filled by the plugin loader when the plugin starts.
#include "core/device_collectives.h"

#include <array>
#include <atomic>

#include "core/device_allocator.h"
#include "core/error.h"

namespace tsr {
namespace {

std::array<std::atomic<DeviceCollectives*>, kMaxDeviceTypes>& table() {
  static std::array<std::atomic<DeviceCollectives*>, kMaxDeviceTypes> t{};
  return t;
}

}  // namespace

void register_device_collectives(tsr_device_type type, DeviceCollectives* collectives) {
  const int t = int(type);
  TSR_CHECK(t >= 0 && t < kMaxDeviceTypes, TSR_ERR_INTERNAL, "device type ", t, " out of range");
  table()[size_t(t)].store(collectives, std::memory_order_release);
}

DeviceCollectives& device_collectives(tsr_device_type type) {
  const int t = int(type);
  TSR_CHECK(t >= 0 && t < kMaxDeviceTypes, TSR_ERR_INVALID_ARGUMENT, "device type ", t, " out of range");
  // Loads the device's plugin (which registers its collectives) on first use.
  (void)backend_for(Device{type, 0});
  DeviceCollectives* c = table()[size_t(t)].load(std::memory_order_acquire);
  TSR_CHECK(c, TSR_ERR_UNSUPPORTED, "the ", device_type_name(type),
            " device plugin provides no collectives between processes");
  return *c;
}

}  // namespace tsr
