#include "io/temp_files.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "core/error.h"

namespace tsr::io {

namespace {

// The host name with '.' and '/' replaced, so the name parses back.
std::string host_tag() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "host";
  std::string h = buf;
  for (char& c : h)
    if (c == '.' || c == '/') c = '_';
  return h;
}

const std::string& this_host() {
  static const std::string host = host_tag();
  return host;
}

std::string prefix_of(const std::string& target_name) { return "." + target_name + ".tmp." + this_host() + "."; }

// The pid in "<pid>.<n>" (both all digits); -1 when rest is not that.
long parse_pid(const std::string& rest) {
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot + 1 == rest.size()) return -1;
  for (size_t i = 0; i < rest.size(); ++i)
    if (i != dot && (rest[i] < '0' || rest[i] > '9')) return -1;
  if (dot > 9) return -1;  // longer than any pid
  return std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
}

bool process_gone(long pid) { return pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH; }

}  // namespace

std::string temp_path(const std::string& dir, const std::string& target_name) {
  static std::atomic<uint64_t> counter{0};
  return str(dir, "/", prefix_of(target_name), ::getpid(), '.', counter.fetch_add(1));
}

void remove_stale_temporaries(const std::string& dir, const std::string& target_name) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const std::string prefix = prefix_of(target_name);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = parse_pid(name.substr(prefix.size()));
    if (pid != long(::getpid()) && process_gone(pid)) ::unlinkat(::dirfd(d), name.c_str(), 0);
  }
  ::closedir(d);
}

}  // namespace tsr::io
