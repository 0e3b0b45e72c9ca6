// Saving named tensors as a safetensors file, plain or zstd-compressed
// (the format is described in include/tessera/io.h).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tessera/io.h>

#include "core/tensor.h"
#include "io/progress.h"

namespace tsr::io {

struct SaveItem {
  std::string name;
  Tensor tensor;
};

struct SaveSettings {
  // A valid enum value: the C API checks the caller's int before it becomes
  // a tsr_compression (enum_arg).
  tsr_compression compression = TSR_COMPRESSION_NONE;
  int level = 0;  // zstd level, 0 = default
  std::map<std::string, std::string> metadata;
  bool checksums = true;  // io/checksum.h's entry in __metadata__
  Progress progress;      // tensor bytes written; may cancel (throws)
  int64_t max_shard_size = 0;  // > 0: io/shards.h's save_checkpoint splits
  bool keep_views = true;      // io/shared_views.h (save_checkpoint)
  // tessera.* entries the library adds (io/shared_views.h's views), written
  // with the metadata but not checked as the caller's keys are.
  std::map<std::string, std::string> internal_metadata;
};

// Validates names, metadata and tensors (TSR_ERR_INVALID_ARGUMENT /
// TSR_ERR_UNSUPPORTED as documented at tsr_save), then writes the file
// atomically (TSR_ERR_IO on failure, the old file untouched).
void save_file(const std::string& path, std::vector<SaveItem> items, const SaveSettings& settings);

class AtomicWriter;
// save_file without the final commit: the complete file, not yet renamed
// over path (a sharded save renames all its shards only once each is
// written). Destroying the writer discards it.
std::unique_ptr<AtomicWriter> write_file(const std::string& path, std::vector<SaveItem> items,
                                         const SaveSettings& settings);

}  // namespace tsr::io
