// The CUDA stream behind a tessera Stream of a CUDA device: implemented by
// the plugin's runtime backend (it creates and owns the streams), called by
// the kernel launches. Needs the CUDA runtime headers: plugin code only.
#pragma once

#include <cuda_runtime_api.h>

#include "core/stream.h"

namespace tsr::cuda {

// The cudaStream_t of s (the legacy default stream for id 0 is the
// backend's choice). Throws tsr::Error for a stream the backend does not
// know. The device is the caller's to make current.
cudaStream_t native_stream(tsr::Stream s);

}  // namespace tsr::cuda
