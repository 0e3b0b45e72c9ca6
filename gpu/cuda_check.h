// How the plugin's host code turns CUDA runtime errors into tsr::Error and
// keeps calls on the right device. Header-only on purpose: the plugin may
// use nothing of libtessera.so but header-only code (libtessera.so exports
// only the tsr_ C functions).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/error.h"

namespace tsr::cuda {

// "<call>: <cudaGetErrorName>: <cudaGetErrorString>", the message of every
// runtime failure the plugin reports.
inline std::string runtime_error_text(const char* call, cudaError_t err) {
  return str(call, ": ", cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}

// Throws TSR_ERR_INTERNAL with runtime_error_text unless err is cudaSuccess.
// The sticky error state is cleared first (cudaGetLastError), so one failed
// call does not make the next unrelated one fail too.
inline void check(cudaError_t err, const char* call) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();
  throw Error(TSR_ERR_INTERNAL, runtime_error_text(call, err));
}

// The answer of a query call (cudaStreamQuery, cudaEventQuery): true when
// done, false for cudaErrorNotReady (not an error: cleared), else throws
// as check does.
inline bool check_ready(cudaError_t err, const char* call) {
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(err, call);
  return true;
}

// Makes device `index` current for the guard's lifetime and restores the
// previous one (c10::cuda::CUDAGuard): backend calls name their device, the
// runtime acts on the calling thread's current one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != index) check(cudaSetDevice(index), "cudaSetDevice");
  }
  ~DeviceGuard() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

// For noexcept paths: sets the device, false when the runtime refuses.
inline bool set_device_noexcept(int index, int* previous) noexcept {
  if (cudaGetDevice(previous) != cudaSuccess) return false;
  return *previous == index || cudaSetDevice(index) == cudaSuccess;
}

}  // namespace tsr::cuda
