#include "distributed/file_store.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "core/error.h"
#include "distributed/socket.h"

namespace tsr::distributed {
namespace {

constexpr const char* kKeyPrefix = "key-";

std::string hex(const std::string& s) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// An fd closed on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= size_t(k);
  }
  return true;
}

}  // namespace

FileStore::FileStore(std::string directory, Millis timeout) : directory_(std::move(directory)) {
  set_timeout(timeout);
  TSR_CHECK(!directory_.empty(), TSR_ERR_INVALID_ARGUMENT, "file:// init_method needs a directory path");
  if (::mkdir(directory_.c_str(), 0777) != 0 && errno != EEXIST)
    fail(TSR_ERR_DISTRIBUTED, "cannot create the store directory ", directory_, ": ", std::strerror(errno));
  struct stat st{};
  TSR_CHECK(::stat(directory_.c_str(), &st) == 0 && S_ISDIR(st.st_mode), TSR_ERR_DISTRIBUTED, "the store path ",
            directory_, " is not a directory");
}

std::string FileStore::path_of(const std::string& key) const { return directory_ + "/" + kKeyPrefix + hex(key); }

bool FileStore::read(const std::string& key, std::vector<char>* out) const {
  Fd f{::open(path_of(key).c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return false;
  out->clear();
  char buf[65536];
  for (;;) {
    ssize_t k = ::read(f.fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    TSR_CHECK(k >= 0, TSR_ERR_DISTRIBUTED, "cannot read key '", key, "' in the store ", directory_, ": ",
              std::strerror(errno));
    if (k == 0) return true;
    out->insert(out->end(), buf, buf + k);
  }
}

void FileStore::set(const std::string& key, const std::vector<char>& value) {
  const std::string path = path_of(key);
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)};
    TSR_CHECK(f.fd >= 0, TSR_ERR_DISTRIBUTED, "cannot write to the store ", directory_, ": ", std::strerror(errno));
    if (!write_all(f.fd, value.data(), value.size())) {
      const int e = errno;
      ::unlink(tmp.c_str());
      fail(TSR_ERR_DISTRIBUTED, "cannot write to the store ", directory_, ": ", std::strerror(e));
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(TSR_ERR_DISTRIBUTED, "cannot write to the store ", directory_, ": ", std::strerror(e));
  }
}

std::vector<char> FileStore::get(const std::string& key) {
  wait({key}, timeout());
  std::vector<char> out;
  TSR_CHECK(read(key, &out), TSR_ERR_DISTRIBUTED, "key '", key, "' vanished from the store ", directory_);
  return out;
}

void FileStore::wait(const std::vector<std::string>& keys, const Millis& t) {
  const auto deadline = Clock::now() + t;
  while (!check(keys)) {
    TSR_CHECK(Clock::now() < deadline, TSR_ERR_DISTRIBUTED, "keys ", keys, " were not all set in the store ",
              directory_, " within ", t.count(), " ms");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool FileStore::check(const std::vector<std::string>& keys) {
  for (const auto& k : keys)
    if (::access(path_of(k).c_str(), F_OK) != 0) return false;
  return true;
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  const std::string lock_path = directory_ + "/lock";
  Fd lock{::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666)};
  TSR_CHECK(lock.fd >= 0, TSR_ERR_DISTRIBUTED, "cannot open ", lock_path, ": ", std::strerror(errno));
  while (::flock(lock.fd, LOCK_EX) != 0)
    TSR_CHECK(errno == EINTR, TSR_ERR_DISTRIBUTED, "cannot lock ", lock_path, ": ", std::strerror(errno));
  std::vector<char> v;
  int64_t sum = 0;
  if (read(key, &v) && v.size() == 8) std::memcpy(&sum, v.data(), 8);
  sum += delta;
  set(key, std::vector<char>(reinterpret_cast<const char*>(&sum), reinterpret_cast<const char*>(&sum) + 8));
  return sum;  // the lock goes with lock.fd's close
}

bool FileStore::erase(const std::string& key) { return ::unlink(path_of(key).c_str()) == 0; }

void FileStore::clear() {
  DIR* d = ::opendir(directory_.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(kKeyPrefix, 0) == 0 || name == "lock") ::unlink((directory_ + "/" + name).c_str());
  }
  ::closedir(d);
}

}  // namespace tsr::distributed
