// The contract between libtessera.so and a device plugin (libtessera_cuda.so,
// built from gpu/). libtessera.so never links CUDA: the first request for a
// CUDA device dlopens the plugin (src/plugin/cuda_loader.cpp, the way ONNX
// Runtime loads its CUDA execution provider), calls its one exported entry
// point and registers the backends it returns with the caching allocator.
//
// The plugin is built from the same tree by the same compiler, so the
// objects it returns are C++ objects implementing core/device_backend.h and
// core/device_kernels.h, and their methods may throw tsr::Error (a
// header-only class; libstdc++ matches exception types across shared
// libraries by name). The version check below is what makes that safe: a
// plugin from another build is refused before any of its objects is used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/device_backend.h"
#include "core/device_collectives.h"

namespace tsr {

// Bumped whenever device_backend.h, device_kernels.h, device_collectives.h
// or this file change in a way that changes the objects' layout or meaning.
// 3 (0.3): DeviceKernels gained selection, layer_norm, the fused unscale
// and attention; DeviceBackend gained dnn_kernels (cuDNN); the plugin
// exports collectives (device_collectives.h). 4 (0.3): DeviceKernels gained
// max pooling and the kernels of the indexing, reduction, scan, sort and
// loss families (issue 32).
constexpr uint32_t kDevicePluginAbi = 4;

// What the plugin fills in on success.
struct DevicePluginExports {
  uint32_t abi;              // the plugin's kDevicePluginAbi
  uint32_t version_number;   // the plugin's TSR_VERSION_NUMBER
  DeviceBackend* device;     // TSR_DEVICE_CUDA: cudaMalloc'd memory, streams, events, kernels
  DeviceBackend* pinned_host;  // TSR_DEVICE_CUDA_HOST: cudaHostAlloc'd memory
  // Collectives between processes on TSR_DEVICE_CUDA memory (NCCL, loaded
  // by the plugin on first use: a machine without NCCL still gets devices).
  DeviceCollectives* collectives;
};

}  // namespace tsr

// The plugin's entry point (the only symbol it exports besides nothing):
// checks host_abi and host_version_number against its own build, then the
// CUDA runtime (cudaGetDeviceCount). Returns 0 and fills *out, or returns
// the CUDA runtime error (or -1 for a version mismatch) and writes a
// message of at most why_capacity bytes (NUL-terminated) into why, e.g.
// "CUDA driver not found: cudaGetDeviceCount returned 35
// (cudaErrorInsufficientDriver: CUDA driver version is insufficient for
// CUDA runtime version)"; on success why is the empty string (it is a
// string on every return when why_capacity > 0). The returned objects live
// until the process ends.
extern "C" typedef int (*tsr_device_plugin_init_fn)(uint32_t host_abi,
                                                    uint32_t host_version_number,
                                                    tsr::DevicePluginExports* out, char* why,
                                                    size_t why_capacity);
#define TSR_CUDA_PLUGIN_INIT_SYMBOL "tsr_cuda_plugin_init"
