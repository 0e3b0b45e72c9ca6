#include "io/load.h"

#include <exception>
#include <limits>

#include "cpu/kernels/parallel_for.h"
#include "io/chunked_codec.h"
#include "io/file_index.h"

namespace tsr::io {

int64_t default_max_bytes(uint64_t file_size) {
  constexpr uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
  if (file_size > (kMax - uint64_t(kDefaultSlackBytes)) / kDefaultExpansion) return int64_t(kMax);
  return int64_t(file_size * kDefaultExpansion) + kDefaultSlackBytes;
}

namespace {

// The tensors of a zstd-planes file: those of one chunk or less decode in
// parallel with each other (real weights are mostly such small tensors),
// larger ones one after another, each over its chunks in parallel. Every
// tensor is read; the error of the first failing one in file order is
// thrown, so the message does not depend on the thread count.
void read_planes_tensors(const FileIndex& ix, std::vector<Tensor>& out) {
  const size_t n = ix.header.tensors.size();
  std::vector<size_t> small;
  std::vector<std::exception_ptr> errs(n);
  for (size_t i = 0; i < n; ++i)
    if (ix.header.tensors[i].nbytes <= int64_t(planes::kChunkBytes)) small.push_back(i);
  kernels::parallel_for(int64_t(small.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const size_t i = small[size_t(k)];
      try {
        out[i] = read_tensor(ix, i);
      } catch (...) {
        errs[i] = std::current_exception();
      }
    }
  });
  for (size_t i = 0; i < n; ++i) {
    if (errs[i]) std::rethrow_exception(errs[i]);
    if (ix.header.tensors[i].nbytes > int64_t(planes::kChunkBytes)) out[i] = read_tensor(ix, i);
  }
}

}  // namespace

LoadedFile load_file(const std::string& path, const LoadSettings& settings) {
  return naming_file(path, [&] {
    FileIndex ix = read_index(path, settings);
    LoadedFile out;
    out.names.reserve(ix.header.tensors.size());
    if (ix.planes) {
      out.tensors.resize(ix.header.tensors.size());
      read_planes_tensors(ix, out.tensors);
    } else {
      out.tensors.reserve(ix.header.tensors.size());
      for (size_t i = 0; i < ix.header.tensors.size(); ++i) out.tensors.push_back(read_tensor(ix, i));
    }
    for (const TensorEntry& e : ix.header.tensors) out.names.push_back(e.name);
    out.metadata = std::move(ix.header.metadata);
    return out;
  });
}

}  // namespace tsr::io
