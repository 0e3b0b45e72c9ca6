// Copies between devices: torch's copy_ across devices, Tensor.to(device),
// pin_memory, and host reads of device data. No autograd (ops/to_device.cpp
// records it). Host memory is the CPU's and pinned memory
// (TSR_DEVICE_CUDA_HOST), which the host reads and writes directly.
#pragma once

#include "core/tensor.h"

namespace tsr::device {

// True for devices whose memory the host reads directly (CPU, pinned).
bool is_host(Device d);
// Whether t's memory is pinned host memory: on TSR_DEVICE_CUDA_HOST, or
// host memory the registered CUDA backend says is page-locked
// (DeviceBackend::is_pinned).
bool is_pinned(const Tensor& t);

// dst = src converted to dst's dtype; src already of dst's sizes (expanded),
// any strides on either side, any two devices. Host to device: a host side
// that is not dense is packed on the host first, the bytes move with
// DeviceBackend::copy_bytes on the device's current stream, and the
// device's copy kernel lays them out and converts (when dst's layout or
// dtype differs). Device to host: the device packs into dst's layout and
// dtype, the bytes move, the host scatters when dst is not dense.
// non_blocking with a pinned host side queues the copy and returns; the
// block of a pinned source (TSR_DEVICE_CUDA_HOST) is not reused before the
// copy has run (record_stream on its caching allocator). Otherwise the call
// returns once the copy is done (PyTorch: copies from pageable memory are
// synchronous).
void copy_between(const Tensor& dst, const Tensor& src, bool non_blocking);

// A copy of t on device d (Tensor.to(device) with preserve_format: t's
// strides when t is non-overlapping and dense, else contiguous).
Tensor to_device(const Tensor& t, Device d, bool non_blocking);
// A copy of t in pinned memory (TSR_DEVICE_CUDA_HOST index 0), t's strides
// when dense (torch.Tensor.pin_memory).
Tensor pin_memory(const Tensor& t);
// t itself when its memory is host memory, else a contiguous CPU copy,
// waited for: what host code reads instead of device memory.
Tensor readable_on_host(const Tensor& t);

}  // namespace tsr::device
