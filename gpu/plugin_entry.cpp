// The plugin's one exported symbol (core/device_plugin.h): checks the host's
// build against this one, then the CUDA runtime, then hands out the two
// backends, which live until the process ends.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include <tessera/version.h>

#include "core/device_plugin.h"
#include "cuda_device.h"
#include "cuda_host_device.h"
#include "nccl_collectives.h"

namespace {

void write_why(char* why, size_t capacity, const std::string& text) {
  if (why != nullptr && capacity > 0) std::snprintf(why, capacity, "%s", text.c_str());
}

std::string device_count_failure(cudaError_t err) {
  std::string text = "cudaGetDeviceCount returned " + std::to_string(static_cast<int>(err)) +
                     " (" + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
  if (err == cudaErrorInsufficientDriver) return "CUDA driver not found or too old: " + text;
  if (err == cudaErrorNoDevice) return "no CUDA device: " + text;
  return "CUDA runtime failed: " + text;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int tsr_cuda_plugin_init(
    uint32_t host_abi, uint32_t host_version_number, tsr::DevicePluginExports* out, char* why,
    size_t why_capacity) {
  if (host_abi != tsr::kDevicePluginAbi || host_version_number != TSR_VERSION_NUMBER) {
    write_why(why, why_capacity,
              "libtessera_cuda.so was built for device plugin ABI " +
                  std::to_string(tsr::kDevicePluginAbi) + " and tessera version number " +
                  std::to_string(TSR_VERSION_NUMBER) + ", but the loading libtessera.so has ABI " +
                  std::to_string(host_abi) + " and version number " +
                  std::to_string(host_version_number));
    return -1;
  }
  if (out == nullptr) {
    write_why(why, why_capacity, "tsr_cuda_plugin_init: out is null");
    return -1;
  }
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    write_why(why, why_capacity, device_count_failure(err));
    return static_cast<int>(err);
  }
  if (count == 0) {
    write_why(why, why_capacity, "no CUDA device");
    return static_cast<int>(cudaErrorNoDevice);
  }
  // Made on the first successful call and kept: the loader calls this once.
  static tsr::cuda::CudaDevice device(count);
  static tsr::cuda::CudaHostDevice pinned_host(device);
  // NCCL itself is loaded on the first collective, not here.
  static tsr::cuda::NcclCollectives collectives;
  *out = tsr::DevicePluginExports{tsr::kDevicePluginAbi, TSR_VERSION_NUMBER, &device, &pinned_host, &collectives};
  write_why(why, why_capacity, "");  // why is a string on every return
  return 0;
}
