// A checkpoint file opened for lazy reading (tsr_open_file): the header is
// read and verified at open; each tensor is made when asked for. Tensors of
// a plain file are read-only views of one private mapping of the file (no
// copy); a compressed file's tensor is read and decompressed alone.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/tensor.h"
#include "io/file_index.h"
#include "io/mapped_file.h"

namespace tsr::io {

class OpenedFile {
 public:
  // read_index's checks and statuses; plain files with data are mapped.
  static std::shared_ptr<OpenedFile> open(const std::string& path, const LoadSettings& settings);

  const Header& header() const { return ix_.header; }
  // Index of the tensor called name in file order, or -1.
  int64_t find(const std::string& name) const;
  // Tensor i: a read-only view of the mapping (plain file, its bytes
  // aligned for its dtype), else a new contiguous tensor read from the
  // file. Its checksum (when verifying) and bool bytes are checked first.
  // Thread-safe.
  Tensor get(size_t i) const;

 private:
  std::string path_;
  FileIndex ix_;
  std::shared_ptr<MappedFile> map_;  // null for compressed or data-less files
  std::map<std::string, size_t> by_name_;
};

}  // namespace tsr::io
