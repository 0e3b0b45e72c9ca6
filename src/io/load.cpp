#include "io/load.h"

#include <limits>

#include "core/error.h"
#include "io/file_index.h"
#include "io/shared_views.h"

namespace tsr::io {

int64_t default_max_bytes(uint64_t file_size) {
  constexpr uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
  if (file_size > (kMax - uint64_t(kDefaultSlackBytes)) / kDefaultExpansion) return int64_t(kMax);
  return int64_t(file_size * kDefaultExpansion) + kDefaultSlackBytes;
}

LoadedFile load_file(const std::string& path, const LoadSettings& settings) {
  return naming_file(path, [&] {
    FileIndex ix = read_index(path, settings);
    LoadedFile out;
    out.names.reserve(ix.header.tensors.size());
    out.tensors.reserve(ix.header.tensors.size());
    uint64_t done = 0, total = 0;
    for (const TensorEntry& e : ix.header.tensors) total += uint64_t(e.nbytes);
    const std::string what = str("load of '", path, "'");
    settings.progress.report(0, total, what);
    for (size_t i = 0; i < ix.header.tensors.size(); ++i) {
      out.tensors.push_back(read_tensor(ix, i));
      out.names.push_back(ix.header.tensors[i].name);
      done += uint64_t(ix.header.tensors[i].nbytes);
      settings.progress.report(done, total, what);
    }
    out.metadata = std::move(ix.header.metadata);
    restore_views(out);  // io/shared_views.h
    return out;
  });
}

}  // namespace tsr::io
