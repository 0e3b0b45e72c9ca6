// Streaming save (tsr_saver): tensors are written as they are added, so
// memory stays at one tensor's contiguous copy (none for a contiguous host
// tensor) plus a few chunks, whatever the model's size.
//
// safetensors puts the header, with every tensor's offsets, before the
// data. The saver reserves room for the header at the start of the
// temporary file (kInitialReserve bytes, or more for large metadata) and
// writes each tensor's bytes after it as they come. Each add updates an
// upper bound of the header's final length (every entry's offsets counted
// with the most digits an offset can have); when the bound outgrows the
// reservation, the reservation doubles and the data already written moves
// forward (read back and rewritten from the end, kMoveChunk bytes at a
// time). At commit the real header is written into the reservation, padded
// with spaces (JSON whitespace, which every reader skips) to its length,
// and the file is renamed over the target (io/posix_file.h's AtomicWriter).
//
// In the zstd-planes mode, tensors of at most one chunk (most of a real
// model's) are copied and held until kPendingBytes of them are waiting, a
// larger tensor comes, or commit: their chunks are then compressed together
// on the thread pool (io/chunked_codec.h's encode_many) and written in the
// order they were added, as a one-at-a-time save would. A write failure is
// then reported by the call that writes (a later add, or commit), which
// abandons the save as it would have.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/header.h"
#include "io/save.h"
#include "io/tensor_bytes.h"

namespace tsr::io {

class AtomicWriter;

class Saver {
 public:
  static constexpr uint64_t kInitialReserve = uint64_t(64) << 10;
  static constexpr size_t kMoveChunk = size_t(4) << 20;
  static constexpr uint64_t kPendingBytes = uint64_t(8) << 20;

  // Validates settings (metadata, level; a max_shard_size is
  // TSR_ERR_UNSUPPORTED) and creates the temporary file next to path.
  Saver(const std::string& path, SaveSettings settings);
  ~Saver();

  // Appends one tensor. A bad name, a bool byte other than 0/1 or an
  // allocation failure changes nothing; a write failure or a cancel from
  // the progress callback abandons the save (temporary removed, later
  // calls fail).
  void add(const std::string& name, const Tensor& tensor);
  // Writes the header and renames the file over path. Afterwards (or after
  // a failure) add and commit fail with TSR_ERR_INVALID_ARGUMENT.
  void commit();

 private:
  void check_usable(const char* call) const;
  // Runs f; any error it throws abandons the save first.
  template <typename F>
  void or_abandon(F&& f);
  void grow_reserve(uint64_t needed);
  // Encodes and writes the held small tensors (zstd-planes), in add order.
  void flush_pending();
  // Writes items (zstd-planes) after the data so far, filling the offsets
  // and checksums of h_.tensors[entries[k]].
  void write_entries(const std::vector<PlanesItem>& items, const std::vector<size_t>& entries);

  std::string path_;
  SaveSettings settings_;
  std::unique_ptr<AtomicWriter> w_;
  Header h_;  // entries in add order, real offsets
  std::vector<uint64_t> hashes_;
  std::set<std::string> names_;
  uint64_t reserve_ = 0;    // the header's room: N, a multiple of 8
  uint64_t estimate_ = 0;   // upper bound of the final header's length
  uint64_t per_tensor_checksum_ = 0;
  uint64_t data_end_ = 0;   // bytes of data written, from the data start
  uint64_t total_ = 0;      // C-order bytes of the tensors added
  enum class State { kOpen, kCommitted, kFailed } state_ = State::kOpen;
  std::string failure_;
  struct Pending {
    size_t entry;  // index in h_.tensors and hashes_
    std::string bytes;
    tsr_dtype dtype;
  };
  std::vector<Pending> pending_;
  uint64_t pending_bytes_ = 0;
};

}  // namespace tsr::io
