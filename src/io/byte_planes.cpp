#include "io/byte_planes.h"

#include <cstdint>
#include <cstring>

namespace tsr::io {

namespace {

template <typename W>
W rotl1(W v) {
  return W(W(v << 1) | W(v >> (8 * sizeof(W) - 1)));
}
template <typename W>
W rotr1(W v) {
  return W(W(v >> 1) | W(v << (8 * sizeof(W) - 1)));
}

template <typename W>
void split(const unsigned char* s, size_t n, bool rot, unsigned char* d) {
  constexpr size_t E = sizeof(W);
  for (size_t i = 0; i < n; ++i) {
    W v;
    std::memcpy(&v, s + i * E, E);
    if (rot) v = rotl1(v);
    for (size_t j = 0; j < E; ++j) d[j * n + i] = (unsigned char)(v >> (8 * j));
  }
}

template <typename W>
void merge(const unsigned char* p, size_t n, bool rot, unsigned char* d) {
  constexpr size_t E = sizeof(W);
  for (size_t i = 0; i < n; ++i) {
    W v = 0;
    for (size_t j = 0; j < E; ++j) v = W(v | W(W(p[j * n + i]) << (8 * j)));
    if (rot) v = rotr1(v);
    std::memcpy(d + i * E, &v, E);
  }
}

}  // namespace

void split_planes(const void* src, size_t n, size_t e, bool rotate_sign, void* dst) {
  auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  switch (e) {
    case 2: split<uint16_t>(s, n, rotate_sign, d); break;
    case 4: split<uint32_t>(s, n, rotate_sign, d); break;
    case 8: split<uint64_t>(s, n, rotate_sign, d); break;
    default: split<uint8_t>(s, n, rotate_sign, d); break;
  }
}

void merge_planes(const void* planes, size_t n, size_t e, bool rotate_sign, void* dst) {
  auto* p = static_cast<const unsigned char*>(planes);
  auto* d = static_cast<unsigned char*>(dst);
  switch (e) {
    case 2: merge<uint16_t>(p, n, rotate_sign, d); break;
    case 4: merge<uint32_t>(p, n, rotate_sign, d); break;
    case 8: merge<uint64_t>(p, n, rotate_sign, d); break;
    default: merge<uint8_t>(p, n, rotate_sign, d); break;
  }
}

}  // namespace tsr::io
