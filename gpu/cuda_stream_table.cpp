#include "cuda_stream_table.h"

#include "core/error.h"
#include "cuda_streams.h"

namespace tsr::cuda {

StreamTable& stream_table() {
  static StreamTable table;
  return table;
}

int64_t StreamTable::add(int32_t index, cudaStream_t s) {
  std::lock_guard<std::mutex> g(mu_);
  const int64_t id = next_id_++;
  streams_[{index, id}] = s;
  return id;
}

cudaStream_t StreamTable::remove(Stream s) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  auto it = streams_.find({s.device.index, s.id});
  if (s.device.type != TSR_DEVICE_CUDA || it == streams_.end()) return nullptr;
  cudaStream_t native = it->second;
  streams_.erase(it);
  return native;
}

cudaStream_t StreamTable::find(Stream s) {
  const int32_t count = device_count();
  TSR_CHECK(s.device.type == TSR_DEVICE_CUDA && s.device.index >= 0 && s.device.index < count,
            TSR_ERR_INVALID_ARGUMENT, "not a stream of a CUDA device: device type ",
            static_cast<int>(s.device.type), " index ", s.device.index, " (", count,
            " CUDA device(s))");
  if (s.id == kDefaultStreamId) return nullptr;  // the legacy default stream
  std::lock_guard<std::mutex> g(mu_);
  auto it = streams_.find({s.device.index, s.id});
  TSR_CHECK(it != streams_.end(), TSR_ERR_INVALID_ARGUMENT, "stream ", s.id,
            " is not a live stream of cuda:", s.device.index);
  return it->second;
}

cudaStream_t native_stream(Stream s) { return stream_table().find(s); }

}  // namespace tsr::cuda
