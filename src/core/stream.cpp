#include "core/stream.h"

#include <vector>

namespace tsr {

namespace {
// Per thread, the streams set with set_current_stream; few entries (one per
// device used), so a vector beats a map.
thread_local std::vector<Stream> current_streams;
}  // namespace

Stream current_stream(Device d) {
  for (const Stream& s : current_streams)
    if (s.device == d) return s;
  return Stream{d, kDefaultStreamId};
}

void set_current_stream(Stream s) {
  for (Stream& c : current_streams)
    if (c.device == s.device) {
      c = s;
      return;
    }
  current_streams.push_back(s);
}

}  // namespace tsr
