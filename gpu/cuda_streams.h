// The CUDA stream behind a tessera stream of a CUDA device, for the
// plugin's kernels (gpu/kernels) and copies: id 0 is the legacy default
// stream (nullptr), other ids come from CudaDevice::create_stream.
#pragma once

#include <cuda_runtime_api.h>

#include "core/stream.h"

namespace tsr::cuda {

// Throws tsr::Error(TSR_ERR_INVALID_ARGUMENT) for an id that is not a live
// stream of s.device.
cudaStream_t native_stream(Stream s);

}  // namespace tsr::cuda
