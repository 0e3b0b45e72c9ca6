// A checkpoint file opened for lazy reading (tsr_open_file): the header is
// read and verified at open; each tensor is made when asked for. Tensors of
// a plain file are read-only views of one private mapping of the file (no
// copy); a compressed file's tensor is read and decompressed alone.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include <string>

#include "core/tensor.h"
#include "io/file_index.h"
#include "io/mapped_file.h"
#include "io/shared_views.h"

namespace tsr::io {

class OpenedFile {
 public:
  // read_index's checks and statuses; plain files with data are mapped.
  static std::shared_ptr<OpenedFile> open(const std::string& path, const LoadSettings& settings);

  // What the file lists: its tensors but the tessera.storage.* entries
  // views use, then its views (io/shared_views.h; offsets not meaningful);
  // metadata without the view entries.
  const Header& header() const { return listed_; }
  // Index of the tensor called name in file order, or -1.
  int64_t find(const std::string& name) const;
  // Listed tensor i: a read-only view of the mapping (plain file, its bytes
  // aligned for its dtype), else a new contiguous tensor read from the
  // file. Its checksum (when verifying) and bool bytes are checked first.
  // A tensor that views use, and the views, come from one tensor made once
  // and kept while the file is open, so they share its storage.
  // Thread-safe.
  Tensor get(size_t i) const;
  // Rows [start, stop) of dim 0 of listed tensor i (tsr_file_get_slice):
  // sizes [stop - start, ...]. A compressed file's tensor (not one that
  // views use) is read over the zstd-planes chunks that hold those rows
  // only (a "zstd" 0.1 tensor is one frame, decoded whole); anything else
  // is get(i) narrowed, a view of it. TSR_ERR_INVALID_ARGUMENT for a 0-dim
  // tensor, start < 0, start > stop or stop > the size of dim 0.
  // Thread-safe.
  Tensor get_rows(size_t i, int64_t start, int64_t stop) const;

 private:
  Tensor get_entry(size_t i) const;   // file entry i (ix_.header order)
  Tensor shared_entry(size_t i) const;  // get_entry, made once

  Header listed_;
  std::vector<int64_t> source_;  // listed i -> entry index, or -1 - view index
  std::vector<ViewSpec> views_;
  std::vector<bool> shared_;     // entry i is the storage of a view
  mutable std::mutex mu_;
  mutable std::map<size_t, Tensor> made_;
  std::string path_;
  FileIndex ix_;
  std::shared_ptr<MappedFile> map_;  // null for compressed or data-less files
  std::map<std::string, size_t> by_name_;
};

}  // namespace tsr::io
