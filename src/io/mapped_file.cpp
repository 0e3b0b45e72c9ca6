#include "io/mapped_file.h"

#include <sys/mman.h>

#include <cerrno>

#include "io/posix_file.h"

namespace tsr::io {

std::shared_ptr<MappedFile> MappedFile::map(int fd, uint64_t size, const std::string& path) {
  void* p = ::mmap(nullptr, size_t(size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) fail_io("cannot map", path, errno);
  return std::shared_ptr<MappedFile>(new MappedFile(static_cast<char*>(p), size));
}

MappedFile::~MappedFile() { ::munmap(data_, size_t(size_)); }

}  // namespace tsr::io
