// The plugin's table of created CUDA streams: tessera stream ids (> 0) to
// cudaStream_t handles, shared by CudaDevice, the pinned host backend and
// native_stream (cuda_streams.h). Ids are unique across devices.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "core/stream.h"

namespace tsr::cuda {

class StreamTable {
 public:
  void set_device_count(int32_t n) { device_count_.store(n, std::memory_order_release); }
  int32_t device_count() const { return device_count_.load(std::memory_order_acquire); }
  // Records a created stream of device index; returns its new id.
  int64_t add(int32_t index, cudaStream_t s);
  // Forgets s and returns its handle; nullptr for the default stream or an
  // unknown id (nothing to destroy).
  cudaStream_t remove(Stream s) noexcept;
  // Throws TSR_ERR_INVALID_ARGUMENT for a stream of no CUDA device or an
  // id that is not live on s.device; id 0 is the legacy default stream,
  // answered without the lock (every launch asks).
  cudaStream_t find(Stream s);

 private:
  std::atomic<int32_t> device_count_{0};
  std::mutex mu_;  // guards the two below
  int64_t next_id_ = 1;
  std::map<std::pair<int32_t, int64_t>, cudaStream_t> streams_;
};

StreamTable& stream_table();

}  // namespace tsr::cuda
