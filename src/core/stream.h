// A stream: an ordered queue of work on one device (c10::Stream). Id 0 is
// each device's default stream; other ids come from the device backend's
// create_stream. Work on one stream runs in order; work on different
// streams may overlap. The caching allocator keys its free blocks by stream.
#pragma once

#include <cstdint>

#include "core/device.h"

namespace tsr {

struct Stream {
  Device device;
  int64_t id;
  bool operator==(const Stream&) const = default;
  bool operator<(const Stream& o) const {
    if (device.type != o.device.type) return device.type < o.device.type;
    if (device.index != o.device.index) return device.index < o.device.index;
    return id < o.id;
  }
};

constexpr int64_t kDefaultStreamId = 0;

// The calling thread's current stream on device d: its default stream until
// set_current_stream says otherwise (torch.cuda.current_stream).
Stream current_stream(Device d);
// Makes s the calling thread's current stream on s.device
// (torch.cuda.set_stream). Other threads and devices are unaffected.
void set_current_stream(Stream s);

}  // namespace tsr
