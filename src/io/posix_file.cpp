#include "io/posix_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "io/temp_files.h"

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

// What is at an existing target that a save must not replace: a save
// renames a regular file over its target, which would turn a device node,
// a FIFO or a socket into a file (as root, /dev/null). nullptr: a regular
// file, or nothing there.
const char* non_regular_kind(const std::string& target) {
  struct stat st;
  if (::stat(target.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return nullptr;
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
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
  if (const char* kind = non_regular_kind(target_))
    fail(TSR_ERR_IO, "cannot save to '", target_, "': it is ", kind,
         ", not a regular file (a save replaces a regular file by renaming a new one over it)");
  remove_stale_temporaries(dir_, basename_of(target_));
  // An unnamed file in the target's directory (O_TMPFILE): a process
  // killed while writing leaves nothing behind. 0666 & ~umask, like any new
  // file; a replaced file's bits are copied below.
  fd_.reset(::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666));
  // Filesystems without O_TMPFILE: a named temporary, which the next save
  // to this path removes should this process die before renaming it.
  for (int attempt = 0; fd_.get() < 0; ++attempt) {
    tmp_ = temp_path(dir_, basename_of(target_));
    fd_.reset(::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd_.get() < 0 && (errno != EEXIST || attempt >= 100))
      fail_io("cannot create temporary file", tmp_, errno);
  }
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0 && ::fchmod(fd_.get(), st.st_mode & 07777) != 0) {
    int err = errno;
    if (!tmp_.empty()) ::unlink(tmp_.c_str());  // no destructor runs for a throwing constructor
    fail_io("cannot set permissions of", file_name(), err);
  }
}

AtomicWriter::~AtomicWriter() {
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

std::string AtomicWriter::file_name() const {
  return tmp_.empty() ? str("new file for ", target_) : tmp_;
}

void AtomicWriter::write(const void* data, size_t n) {
  write_all(fd_.get(), static_cast<const char*>(data), n, offset_, file_name());
  offset_ += n;
  unsynced_ += n;
  if (unsynced_ >= kWritebackBytes) {
    // Starts writing the pages back now, without waiting, so the disk works
    // while the next bytes are made and commit's fsync finds little left
    // (an fsync of a whole checkpoint would otherwise be a long serial
    // step). Advisory: an error here shows again at fsync, which reports it.
    ::sync_file_range(fd_.get(), off_t(offset_ - unsynced_), off_t(unsynced_),
                      SYNC_FILE_RANGE_WRITE);
    unsynced_ = 0;
  }
}

// Gives the unnamed file a temporary name to rename over the target (no
// call links a file over an existing one). Only between here and the rename
// can a killed process leave a file behind, which the next save removes.
void AtomicWriter::link_unnamed() {
  const std::string fd_path = str("/proc/self/fd/", fd_.get());
  for (int attempt = 0;; ++attempt) {
    tmp_ = temp_path(dir_, basename_of(target_));
    if (::linkat(AT_FDCWD, fd_path.c_str(), AT_FDCWD, tmp_.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
    int err = errno;
    // No /proc mounted: the descriptor itself (needs CAP_DAC_READ_SEARCH).
    if (err == ENOENT && ::linkat(fd_.get(), "", AT_FDCWD, tmp_.c_str(), AT_EMPTY_PATH) == 0) return;
    if (err == ENOENT) err = errno;
    if (err != EEXIST || attempt >= 100) {
      const std::string failed = tmp_;
      tmp_.clear();  // nothing to remove
      fail_io("cannot give the new file a name", failed, err);
    }
  }
}

void AtomicWriter::read_at(void* dst, size_t n, uint64_t offset) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t r = ::pread(fd_.get(), p, std::min<size_t>(n, 1u << 30), off_t(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_io("cannot read back", file_name(), errno);
    TSR_CHECK(r > 0, TSR_ERR_IO, "cannot read back '", file_name(), "': it ends at byte ", offset);
    p += r;
    n -= size_t(r);
    offset += uint64_t(r);
  }
}

void AtomicWriter::truncate(uint64_t size) {
  if (::ftruncate(fd_.get(), off_t(size)) != 0) fail_io("cannot truncate", file_name(), errno);
}

void AtomicWriter::commit() {
  if (::fsync(fd_.get()) != 0) fail_io("cannot fsync", file_name(), errno);
  if (tmp_.empty()) link_unnamed();
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
