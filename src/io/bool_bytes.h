// A bool element must be the byte 0 or 1: any other byte read as a C++ bool
// is undefined behaviour, so such bytes may neither enter a file we write
// nor a tensor we load.
#pragma once

#include <cstdint>
#include <cstring>

namespace tsr::io {

// Index of the first byte of p[0..n) that is neither 0 nor 1, or -1.
inline int64_t first_non_bool_byte(const void* p, int64_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (int64_t i = 0; i < n; ++i)
    if (b[i] > 1) return i;
  return -1;
}

}  // namespace tsr::io
