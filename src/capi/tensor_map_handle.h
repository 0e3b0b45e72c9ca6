// The struct behind tsr_tensor_map (io.h): named tensors plus metadata.
// tsr_load() makes one from a file; tsr_optimizer_state_dict() from an
// optimizer's state, so both are read with the same tsr_tensor_map_*.
#pragma once

#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/load.h"

struct tsr_tensor_map {
  explicit tsr_tensor_map(tsr::io::LoadedFile f) : file(std::move(f)) {
    for (size_t i = 0; i < file.names.size(); ++i) index.emplace(file.names[i], int64_t(i));
    for (const auto& kv : file.metadata) metadata.push_back(&kv);
  }
  std::atomic<int64_t> refs{1};
  tsr::io::LoadedFile file;
  std::unordered_map<std::string, int64_t> index;
  // file.metadata's entries in key order, for access by position.
  std::vector<const std::pair<const std::string, std::string>*> metadata;
};
