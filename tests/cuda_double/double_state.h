// State shared by the double's runtime (cuda_runtime_double.cpp) and driver
// (driver_vm_double.cpp) halves: the simulated device, the calling thread's
// current device and last error, and the knobs of tsr_cuda_double.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "simdev/simulated_device.h"

namespace tsr::cuda_double {

// Never destroyed: caching allocators hand memory back from static
// destructors at exit, after any static object here would be gone.
simdev::SimulatedDevice& sim();
int current_device();
// Sets the sticky-until-read error cudaGetLastError returns; returns err.
cudaError_t fail(cudaError_t err);

struct Knobs {
  std::mutex mu;
  int device_count_error = 0;
  int reported_device_count = -1;
  size_t host_capacity = SIZE_MAX;
  bool no_driver_vm = false;
};
Knobs& knobs();

int64_t live_vm_handles();

}  // namespace tsr::cuda_double
