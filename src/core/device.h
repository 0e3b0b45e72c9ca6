// A device: (type, index), types numbered as DLPack's DLDeviceType
// (c10::Device is the model). Storage, factories and every op's output
// description carry one; nothing below the C API assumes the CPU.
#pragma once

#include <cstdint>
#include <string>

#include <tessera/types.h>

namespace tsr {

struct Device {
  tsr_device_type type;
  int32_t index;
  bool operator==(const Device&) const = default;
};

// The CPU; index 0 is the only CPU device.
constexpr Device kCpu{TSR_DEVICE_CPU, 0};

// PyTorch's spelling of the type: "cpu", "cuda", "cuda_host", "ext",
// "device_type_N" for others.
std::string device_type_name(tsr_device_type t);
// PyTorch's spelling of the device: "cpu" (one CPU), "cuda:0", "cuda_host:0".
std::string device_name(Device d);

}  // namespace tsr
