// Loading a safetensors file (plain or zstd-compressed) as untrusted input.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/progress.h"

namespace tsr::io {

struct LoadedFile {
  std::vector<std::string> names;  // file order
  std::vector<Tensor> tensors;     // contiguous, one storage each
  std::map<std::string, std::string> metadata;
};

// The cap on the tensor bytes a load allocates when the caller sets none:
// a compressed file may claim up to ~32768 times its size (zstd's RLE
// blocks), so a small crafted file could ask for gigabytes. Real weights
// compress by 1.1-1.5x; 64x plus 64 MiB leaves room for tensors of zeros.
inline constexpr uint64_t kDefaultExpansion = 64;
inline constexpr int64_t kDefaultSlackBytes = int64_t{64} << 20;
int64_t default_max_bytes(uint64_t file_size);

struct LoadSettings {
  // > 0 caps the total tensor bytes allocated (INT64_MAX: no cap); 0
  // applies default_max_bytes.
  int64_t max_bytes = 0;
  // Check the header's and each tensor's checksum where the file has them.
  bool verify_checksums = true;
  Progress progress;  // tensor bytes read (load_file); may cancel (throws)
};

// Reads and validates the whole file (statuses as documented at tsr_load).
// Every size is checked against the file before the memory it implies is
// allocated.
LoadedFile load_file(const std::string& path, const LoadSettings& settings);

}  // namespace tsr::io
