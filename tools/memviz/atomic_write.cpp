#include "atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace memviz {
namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw WriteError("cannot write " + path + ": " + std::strerror(err));
}

mode_t current_umask() {
  mode_t m = umask(0);  // the only way to read it; put it back at once
  umask(m);
  return m;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view data) {
  std::string tmpl = path + ".tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());  // in the target's directory: ENOENT etc. name it
  if (fd < 0) fail(path, errno);

  auto abandon = [&](int err) {
    close(fd);
    unlink(name.data());
    fail(path, err);
  };
  for (size_t done = 0; done < data.size();) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon(errno);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; the page is meant to be shared like any output.
  if (fchmod(fd, 0666 & ~current_umask()) != 0) abandon(errno);
  if (fsync(fd) != 0) abandon(errno);
  if (close(fd) != 0) {
    int err = errno;
    unlink(name.data());
    fail(path, err);
  }
  if (rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    unlink(name.data());
    fail(path, err);
  }
}

}  // namespace memviz
