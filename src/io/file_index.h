// What tsr_load and tsr_open_file both do with a file before reading any
// tensor: read and verify the header, check the layout and the memory
// budget; and then read one tensor (copied, or decompressed) and check it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/tensor.h"
#include "io/checksum.h"
#include "io/header.h"
#include "io/load.h"
#include "io/posix_file.h"

namespace tsr::io {

struct FileIndex {
  std::unique_ptr<ReadFile> file;
  Header header;  // tensors in file order, layout validated
  std::optional<FileChecksums> sums;  // when the file has them and we verify
  bool zstd = false;    // compressed: "zstd" (0.1) or "zstd-planes" (0.2)
  bool planes = false;  // "zstd-planes" (io/chunked_codec.h)
  bool verify = true;   // verify checksums (LoadSettings::verify_checksums)
  uint64_t data_start = 0;  // file offset of the data buffer
};

// Opens path and validates everything but the tensors' bytes (statuses as
// documented at tsr_load), including the total bytes against
// settings.max_bytes or the default cap.
FileIndex read_index(const std::string& path, const LoadSettings& settings);

// Tensor i of the index as a new contiguous CPU tensor: read (plain) or
// decompressed (zstd), its checksum verified when ix.sums is set, bool
// bytes checked.
Tensor read_tensor(const FileIndex& ix, size_t i);

// Bytes [lo, hi) of tensor i's C-order bytes into dst (hi - lo bytes),
// reading only what they need: a plain file's range, or the chunks of a
// "zstd-planes" file that overlap it (each chunk's checksum verified when
// ix.verify). A "zstd" (0.1) tensor is decompressed whole.
// TSR_ERR_INVALID_ARGUMENT for a range outside the tensor.
void read_tensor_range(const FileIndex& ix, size_t i, uint64_t lo, uint64_t hi, void* dst);

// Checks a tensor whose bytes were not read by read_tensor (a view of a
// mapping): its checksum (when ix.sums is set) and bool bytes.
void check_tensor_bytes(const FileIndex& ix, size_t i, const Tensor& t);

// Runs f; a corrupt-file or unsupported error gets "'<path>': " in front.
template <typename F>
auto naming_file(const std::string& path, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.status() != TSR_ERR_CORRUPT_FILE && e.status() != TSR_ERR_UNSUPPORTED) throw;
    throw Error(e.status(), str("'", path, "': ", e.what()));
  }
}

}  // namespace tsr::io
