// Streams of pinned host memory (TSR_DEVICE_CUDA_HOST, index 0). Its own
// default stream (id 0) is the host's order: blocks are allocated and
// freed there, by host code, which is synchronous. Every other id stands
// for a stream of the device its copies go to: a pinned block read by a
// copy on stream s of device:i is record_stream'ed with pinned_stream(s),
// and the pinned backend records the block's event on s itself (PyTorch's
// CachingHostAllocator records host-block events on the copy's CUDA
// stream). Because such an id is never 0, not even for the device's own
// default stream, the caching allocator always waits for that event before
// the block is reused. The allocator keeps streams of its own device only,
// so the device index travels in the id's bits 40..61, and bit 62 marks a
// device stream. Used by the transfers (src/device) and the pinned backends
// (the CUDA plugin, the tests' simulated one).
#pragma once

#include <cstdint>

#include "core/stream.h"

namespace tsr {

constexpr Device kPinnedHost{TSR_DEVICE_CUDA_HOST, 0};
constexpr int kPinnedStreamIndexShift = 40;
constexpr int64_t kPinnedStreamIdMask = (int64_t{1} << kPinnedStreamIndexShift) - 1;
constexpr int64_t kPinnedDeviceStreamBit = int64_t{1} << 62;

// The pinned host stream standing for stream s of a device (never id 0).
constexpr Stream pinned_stream(Stream device_stream) {
  return Stream{kPinnedHost, kPinnedDeviceStreamBit |
                                 (int64_t{device_stream.device.index} << kPinnedStreamIndexShift) |
                                 device_stream.id};
}

// The stream of a device of `type` that a pinned host stream stands for;
// the host's own stream (id 0) is taken as device 0's default stream,
// whose completion it never needs to wait beyond.
constexpr Stream device_stream_of(Stream pinned, tsr_device_type type) {
  return Stream{Device{type, static_cast<int32_t>((pinned.id & ~kPinnedDeviceStreamBit) >>
                                                  kPinnedStreamIndexShift)},
                pinned.id & kPinnedStreamIdMask};
}

}  // namespace tsr
