#include "io/load.h"

#include <atomic>
#include <exception>
#include <limits>

#include "core/error.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/threads.h"
#include "io/chunked_codec.h"
#include "io/file_index.h"
#include "io/shared_views.h"

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
// thrown, so the message does not depend on the thread count. read(bytes)
// is called on this thread after the small tensors together and after each
// large one (the progress callback).
template <typename OnRead>
void read_planes_tensors(const FileIndex& ix, std::vector<Tensor>& out, OnRead&& read) {
  const size_t n = ix.header.tensors.size();
  std::vector<size_t> small;
  std::vector<std::exception_ptr> errs(n);
  for (size_t i = 0; i < n; ++i)
    if (ix.header.tensors[i].nbytes <= int64_t(planes::kChunkBytes)) small.push_back(i);
  // Threads take the next tensor as they finish one: sizes vary widely.
  std::atomic<size_t> take{0};
  kernels::parallel_for(kernels::num_threads(), 1, [&](int64_t, int64_t) {
    for (size_t k; (k = take.fetch_add(1, std::memory_order_relaxed)) < small.size();) {
      const size_t i = small[k];
      try {
        out[i] = read_tensor(ix, i);
      } catch (...) {
        errs[i] = std::current_exception();
      }
    }
  });
  uint64_t small_bytes = 0;
  for (size_t i : small) small_bytes += uint64_t(ix.header.tensors[i].nbytes);
  for (size_t i = 0; i < n; ++i)
    if (errs[i]) std::rethrow_exception(errs[i]);
  read(small_bytes);
  for (size_t i = 0; i < n; ++i) {
    if (ix.header.tensors[i].nbytes <= int64_t(planes::kChunkBytes)) continue;
    out[i] = read_tensor(ix, i);
    read(uint64_t(ix.header.tensors[i].nbytes));
  }
}

}  // namespace

LoadedFile load_file(const std::string& path, const LoadSettings& settings) {
  return naming_file(path, [&] {
    FileIndex ix = read_index(path, settings);
    LoadedFile out;
    out.names.reserve(ix.header.tensors.size());
    uint64_t done = 0, total = 0;
    for (const TensorEntry& e : ix.header.tensors) total += uint64_t(e.nbytes);
    const std::string what = str("load of '", path, "'");
    settings.progress.report(0, total, what);
    auto read = [&](uint64_t bytes) {
      done += bytes;
      settings.progress.report(done, total, what);
    };
    if (ix.planes) {
      out.tensors.resize(ix.header.tensors.size());
      read_planes_tensors(ix, out.tensors, read);
    } else {
      out.tensors.reserve(ix.header.tensors.size());
      for (size_t i = 0; i < ix.header.tensors.size(); ++i) {
        out.tensors.push_back(read_tensor(ix, i));
        read(uint64_t(ix.header.tensors[i].nbytes));
      }
    }
    for (const TensorEntry& e : ix.header.tensors) out.names.push_back(e.name);
    out.metadata = std::move(ix.header.metadata);
    restore_views(out);  // io/shared_views.h
    return out;
  });
}

}  // namespace tsr::io
