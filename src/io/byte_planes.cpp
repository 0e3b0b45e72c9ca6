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

// The planes as separate __restrict pointers (and the rotation a template
// flag), so the compiler vectorizes the byte shuffles.
template <typename W, bool kRot>
void split_t(const unsigned char* __restrict s, size_t n, unsigned char* __restrict d) {
  constexpr size_t E = sizeof(W);
  unsigned char* __restrict p[E];
  for (size_t j = 0; j < E; ++j) p[j] = d + j * n;
  for (size_t i = 0; i < n; ++i) {
    W v;
    std::memcpy(&v, s + i * E, E);
    if constexpr (kRot) v = rotl1(v);
    for (size_t j = 0; j < E; ++j) p[j][i] = (unsigned char)(v >> (8 * j));
  }
}

template <typename W, bool kRot>
void merge_t(const unsigned char* const* planes, size_t n, unsigned char* __restrict out) {
  constexpr size_t E = sizeof(W);
  const unsigned char* __restrict p[E];
  for (size_t j = 0; j < E; ++j) p[j] = planes[j];
  for (size_t i = 0; i < n; ++i) {
    W v = 0;
    for (size_t j = 0; j < E; ++j) v = W(v | W(W(p[j][i]) << (8 * j)));
    if constexpr (kRot) v = rotr1(v);
    std::memcpy(out + i * E, &v, E);
  }
}

template <typename W>
void split(const unsigned char* s, size_t n, bool rot, unsigned char* d) {
  rot ? split_t<W, true>(s, n, d) : split_t<W, false>(s, n, d);
}
template <typename W>
void merge(const unsigned char* const* p, size_t n, bool rot, unsigned char* d) {
  rot ? merge_t<W, true>(p, n, d) : merge_t<W, false>(p, n, d);
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
  auto* base = static_cast<const unsigned char*>(planes);
  const unsigned char* p[8];
  for (size_t j = 0; j < e && j < 8; ++j) p[j] = base + j * n;
  merge_planes_from(p, n, e, rotate_sign, dst);
}

void merge_planes_from(const unsigned char* const* p, size_t n, size_t e, bool rotate_sign,
                       void* dst) {
  auto* d = static_cast<unsigned char*>(dst);
  switch (e) {
    case 2: merge<uint16_t>(p, n, rotate_sign, d); break;
    case 4: merge<uint32_t>(p, n, rotate_sign, d); break;
    case 8: merge<uint64_t>(p, n, rotate_sign, d); break;
    default: merge<uint8_t>(p, n, rotate_sign, d); break;
  }
}

}  // namespace tsr::io
