#include "cpu/kernels/cache_size.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace tsr::kernels {

namespace {

// Parses sysfs's "32768K" / "1M" / "512" size notation; 0 when unreadable.
int64_t read_size(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  long long v = 0;
  char unit = 0;
  const int got = std::fscanf(f, "%lld%c", &v, &unit);
  std::fclose(f);
  if (got < 1 || v <= 0) return 0;
  if (unit == 'K') v *= 1024;
  if (unit == 'M') v *= 1024 * 1024;
  return v;
}

int64_t read_level(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  int v = 0;
  const int got = std::fscanf(f, "%d", &v);
  std::fclose(f);
  return got == 1 ? v : 0;
}

int64_t detect() {
  int64_t best_level = 0, bytes = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const int64_t level = read_level(dir + "level");
    if (level == 0) continue;
    const int64_t size = read_size(dir + "size");
    if (level > best_level && size > 0) best_level = level, bytes = size;
  }
  if (bytes > 0) return bytes;
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return l3;
#endif
  return int64_t(32) << 20;  // a common server L3; only the threshold depends on it
}

}  // namespace

int64_t last_level_cache_bytes() {
  static const int64_t bytes = detect();
  return bytes;
}

}  // namespace tsr::kernels
