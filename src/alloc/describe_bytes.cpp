#include "alloc/describe_bytes.h"

#include <cstdio>

#include "core/error.h"

namespace tsr::alloc {

std::string describe_bytes(size_t n) {
  if (n < 1024) return str(n, " bytes");
  const char* unit = "KiB";
  double v = double(n) / 1024;
  for (const char* u : {"MiB", "GiB", "TiB", "PiB", "EiB"}) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%.2f %s", v, unit);
  return str(buf, " (", n, " bytes)");
}

}  // namespace tsr::alloc
