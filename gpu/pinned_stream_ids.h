// Streams of the pinned host device (TSR_DEVICE_CUDA_HOST, index 0) name
// CUDA streams: a pinned block used by a copy on stream s of cuda:i is
// record_stream'ed with Stream{cuda_host:0, pinned_stream_id(s)}, and its
// event is recorded on s itself (PyTorch's CachingHostAllocator records
// host-block events on the CUDA stream of the copy). The caching allocator
// keeps streams of its own device only, so the CUDA device index travels in
// the id's high bits; id 0 is cuda:0's default stream.
// Header-only and free of CUDA headers, so the transfer code of
// libtessera.so can use it.
#pragma once

#include <cstdint>

#include "core/stream.h"

namespace tsr::cuda {

constexpr int kPinnedStreamIndexShift = 40;
constexpr int64_t kPinnedStreamIdMask = (int64_t{1} << kPinnedStreamIndexShift) - 1;
constexpr Device kPinnedHost{TSR_DEVICE_CUDA_HOST, 0};

// The pinned host stream standing for CUDA stream s.
constexpr Stream pinned_stream(Stream cuda_stream) {
  return Stream{kPinnedHost,
                (int64_t{cuda_stream.device.index} << kPinnedStreamIndexShift) | cuda_stream.id};
}

// The CUDA stream a pinned host stream stands for.
constexpr Stream cuda_stream_of(Stream pinned) {
  return Stream{Device{TSR_DEVICE_CUDA, static_cast<int32_t>(pinned.id >> kPinnedStreamIndexShift)},
                pinned.id & kPinnedStreamIdMask};
}

}  // namespace tsr::cuda
