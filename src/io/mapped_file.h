// A whole file mapped into memory for zero-copy tensors (tsr_open_file).
//
// The mapping is private and writable (MAP_PRIVATE, PROT_READ|PROT_WRITE):
// tensors made from it are read-only by tessera's rules (Storage::
// read_only, checked before every in-place write), and a write that
// bypasses them (through tsr_tensor_data_ptr, say) changes a private copy
// of the page, never the file, and cannot fault. The file being truncated
// by another process while mapped is outside this: reading the lost pages
// raises SIGBUS, as for every mmap reader (safetensors' included).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tsr::io {

class MappedFile {
 public:
  // Maps `size` bytes of the regular file open at fd (size > 0).
  // TSR_ERR_IO naming path when mmap fails.
  static std::shared_ptr<MappedFile> map(int fd, uint64_t size, const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  char* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  MappedFile(char* data, uint64_t size) : data_(data), size_(size) {}
  char* data_;
  uint64_t size_;
};

}  // namespace tsr::io
