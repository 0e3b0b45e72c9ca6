// Byte planes of fixed-size elements (docs/FILE-FORMAT.md, "zstd-planes"):
// n elements of e bytes become e planes of n bytes, plane j holding byte j
// (little-endian order) of every element. Optionally each element is first
// rotated left by one bit as a whole e-byte word, which moves a float's
// sign bit from the top of its exponent byte to the bottom of its lowest
// byte (ZipNN's sign-bit move): the top byte then holds exponent bits only.
// Both functions are exact inverses for e in {1, 2, 4, 8}.
#pragma once

#include <cstddef>

namespace tsr::io {

// src: n elements of e bytes; dst: e planes of n bytes each, back to back.
void split_planes(const void* src, size_t n, size_t e, bool rotate_sign, void* dst);
// The inverse: planes (e x n bytes) back into n elements.
void merge_planes(const void* planes, size_t n, size_t e, bool rotate_sign, void* dst);
// The same with plane j at planes[j] (e pointers), wherever each lies: a
// raw plane is merged from where it was read, without a copy.
void merge_planes_from(const unsigned char* const* planes, size_t n, size_t e, bool rotate_sign,
                       void* dst);

}  // namespace tsr::io
