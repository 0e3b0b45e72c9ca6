// Writes of many small pieces gathered into few system calls: a model's
// thousands of small tensors (or zstd-planes indexes) would otherwise cost
// a write() each. Pieces of kDirect bytes or more go out as they are, after
// what is gathered; smaller ones are copied into a buffer of kBuffer bytes
// written when full and at flush().
#pragma once

#include <cstddef>
#include <string>

#include "io/posix_file.h"

namespace tsr::io {

class GatheredWrites {
 public:
  static constexpr size_t kBuffer = size_t(1) << 20, kDirect = size_t(256) << 10;

  explicit GatheredWrites(AtomicWriter& w) : w_(w) { buf_.reserve(kBuffer); }

  void write(const void* d, size_t len) {
    if (len >= kDirect || buf_.size() + len > kBuffer) flush();
    if (len >= kDirect)
      w_.write(d, len);
    else
      buf_.append(static_cast<const char*>(d), len);
  }
  // Everything gathered goes out; the writer's offset is then exact.
  void flush() {
    if (buf_.empty()) return;
    w_.write(buf_.data(), buf_.size());
    buf_.clear();
  }

 private:
  AtomicWriter& w_;
  std::string buf_;
};

}  // namespace tsr::io
