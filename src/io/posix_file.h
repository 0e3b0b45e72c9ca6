// POSIX file access for save/load: reading exact byte ranges, and writing a
// file atomically (temporary file in the same directory, fsync, rename,
// fsync of the directory). Failures throw TSR_ERR_IO with the path and
// strerror; a file that ends early while reading is TSR_ERR_CORRUPT_FILE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsr::io {

// Throws TSR_ERR_IO: "<what> '<path>': <strerror(err)>".
[[noreturn]] void fail_io(const char* what, const std::string& path, int err);

// An owned file descriptor, closed when destroyed (also when the
// constructor of the object holding it throws). -1: none.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  // Closes the descriptor held, if any, and takes fd.
  void reset(int fd);
  // Closes now; returns close()'s result (0, or -1 with errno set).
  int close();

 private:
  int fd_;
};

// A regular file opened for reading.
class ReadFile {
 public:
  // Opens path; TSR_ERR_IO if it cannot be opened or is not a regular file
  // (FIFOs are opened non-blocking, so they cannot hang us).
  explicit ReadFile(const std::string& path);

  uint64_t size() const { return size_; }
  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }
  // Reads exactly n bytes at offset into dst. The file ending before that
  // (it shrank since open) is TSR_ERR_CORRUPT_FILE.
  void read_at(void* dst, uint64_t n, uint64_t offset) const;

 private:
  std::string path_;
  FileDescriptor fd_;
  uint64_t size_ = 0;
};

// Writes a file that replaces `path` only when commit() succeeds. Until
// then the data goes to an unnamed file in the target's directory
// (O_TMPFILE; a named temporary where the filesystem lacks it, see
// io/temp_files.h); destroying an uncommitted writer discards it, leaving
// any old file untouched.
class AtomicWriter {
 public:
  // TSR_ERR_IO when something other than a regular file is at path (or at
  // what a symbolic link there points to), or the directory refuses a new
  // file. Removes temporaries that killed saves to path left behind.
  explicit AtomicWriter(const std::string& path);
  ~AtomicWriter();
  AtomicWriter(const AtomicWriter&) = delete;
  AtomicWriter& operator=(const AtomicWriter&) = delete;

  // Writes n bytes at the current offset and advances it; every 1 MiB,
  // starts the writeback of what was written (sync_file_range).
  void write(const void* data, size_t n);
  uint64_t offset() const { return offset_; }
  // Moves the offset (to rewrite a region already written).
  void seek(uint64_t offset) {
    offset_ = offset;
    unsynced_ = 0;  // the range since the last writeback ends here; fsync covers it
  }
  // Cuts the file to size bytes (drops bytes a shorter rewrite left behind).
  void truncate(uint64_t size);
  // Reads n bytes at offset of what was written (the file is opened for
  // reading and writing; io/saver.cpp moves its data with this).
  void read_at(void* dst, size_t n, uint64_t offset) const;
  // fsync, name the file, close, rename over the target, fsync the
  // directory.
  void commit();
  // Whether commit() renamed the file over the target (true also when it
  // then failed to fsync the directory: the new file is in place).
  bool committed() const { return committed_; }
  // The target path, a symbolic link resolved.
  const std::string& target() const { return target_; }

 private:
  void link_unnamed();
  // The temporary's name for messages.
  std::string file_name() const;

  std::string target_;  // path with a symbolic link resolved
  std::string dir_;
  std::string tmp_;  // the temporary's name; empty while it has none
  FileDescriptor fd_;
  uint64_t offset_ = 0;
  // Bytes written since writeback was last started (write()).
  static constexpr uint64_t kWritebackBytes = uint64_t(1) << 20;
  uint64_t unsynced_ = 0;
  bool committed_ = false;
};

}  // namespace tsr::io
