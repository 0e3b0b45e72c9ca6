// Loading a safetensors file (plain or zstd-compressed) as untrusted input.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tsr::io {

struct LoadedFile {
  std::vector<std::string> names;  // file order
  std::vector<Tensor> tensors;     // contiguous, one storage each
  std::map<std::string, std::string> metadata;
};

// Reads and validates the whole file (statuses as documented at tsr_load).
// max_bytes > 0 caps the total tensor bytes allocated. Every size is
// checked against the file before the memory it implies is allocated.
LoadedFile load_file(const std::string& path, int64_t max_bytes);

}  // namespace tsr::io
