#include "io/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/error.h"

namespace tsr::io {

void fail_io(const char* what, const std::string& path, int err) {
  fail(TSR_ERR_IO, what, " '", path, "': ", std::strerror(err));
}

FileDescriptor::~FileDescriptor() { close(); }

void FileDescriptor::reset(int fd) {
  close();
  fd_ = fd;
}

int FileDescriptor::close() {
  if (fd_ < 0) return 0;
  int fd = fd_;
  fd_ = -1;
  return ::close(fd);
}

// ---- reading ---------------------------------------------------------------

ReadFile::ReadFile(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {
  if (fd_.get() < 0) fail_io("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) fail_io("cannot stat", path, errno);
  if (!S_ISREG(st.st_mode)) fail(TSR_ERR_IO, "cannot load '", path, "': not a regular file");
  size_ = uint64_t(st.st_size);
}

void ReadFile::read_at(void* dst, uint64_t n, uint64_t offset) const {
  char* p = static_cast<char*>(dst);
  uint64_t done = 0;
  while (done < n) {
    // Linux transfers at most 0x7ffff000 bytes per call; ask for less.
    size_t chunk = size_t(std::min<uint64_t>(n - done, 1u << 30));
    ssize_t got = ::pread(fd_.get(), p + done, chunk, off_t(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot read", path_, errno);
    }
    if (got == 0)
      fail(TSR_ERR_CORRUPT_FILE, "file ended at byte ", offset + done, ", expected ", n - done,
           " more bytes (was it truncated while being read?)");
    done += uint64_t(got);
  }
}

// ---- atomic writing -----------------------------------------------------------

namespace {
// Directory part of path ("." when there is none).
std::string dirname_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a save should replace: path itself, or what a symbolic link at
// path points to (so links such as Hugging Face's cache entries survive).
std::string resolve_target(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) fail_io("cannot resolve symbolic link", path, errno);
  return buf;
}

// A name no other writer picks: pid, a process-wide counter and the clock.
std::string temp_suffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t t = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return str(".tmp.", ::getpid(), '.', counter.fetch_add(1), '.', t % 1000000007u);
}

void write_all(int fd, const char* p, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, std::min<size_t>(n, 1u << 30), off_t(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot write", path, errno);
    }
    p += w;
    n -= size_t(w);
    offset += uint64_t(w);
  }
}
}  // namespace

AtomicWriter::AtomicWriter(const std::string& path) {
  target_ = resolve_target(path);
  dir_ = dirname_of(target_);
  for (int attempt = 0; fd_.get() < 0; ++attempt) {
    tmp_ = dir_ + "/." + basename_of(target_) + temp_suffix();
    // 0666 & ~umask, like any new file; a replaced file's bits are copied below.
    fd_.reset(::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd_.get() < 0 && (errno != EEXIST || attempt >= 100))
      fail_io("cannot create temporary file", tmp_, errno);
  }
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::fchmod(fd_.get(), st.st_mode & 07777) != 0) {
    int err = errno;
    ::unlink(tmp_.c_str());  // no destructor runs for a throwing constructor
    fail_io("cannot set permissions of", tmp_, err);
  }
}

AtomicWriter::~AtomicWriter() {
  if (!committed_) ::unlink(tmp_.c_str());
}

void AtomicWriter::write(const void* data, size_t n) {
  write_all(fd_.get(), static_cast<const char*>(data), n, offset_, tmp_);
  offset_ += n;
}

void AtomicWriter::truncate(uint64_t size) {
  if (::ftruncate(fd_.get(), off_t(size)) != 0) fail_io("cannot truncate", tmp_, errno);
}

void AtomicWriter::commit() {
  if (::fsync(fd_.get()) != 0) fail_io("cannot fsync", tmp_, errno);
  if (fd_.close() != 0) fail_io("cannot close", tmp_, errno);
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    int err = errno;
    fail(TSR_ERR_IO, "cannot rename '", tmp_, "' to '", target_, "': ", std::strerror(err));
  }
  committed_ = true;
  // Make the rename itself durable. The new file is in place whatever
  // happens here, so a failure is reported but cannot be rolled back.
  FileDescriptor dir(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) fail_io("saved, but cannot open directory to fsync it", dir_, errno);
  int rc = ::fsync(dir.get());
  int err = errno;
  // EINVAL: the filesystem does not support syncing directories.
  if (rc != 0 && err != EINVAL) fail_io("saved, but cannot fsync directory", dir_, err);
}

}  // namespace tsr::io
