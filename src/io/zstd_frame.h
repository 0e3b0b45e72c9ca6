// One zstd frame per tensor: compression for the writer, and for the reader
// a validation that runs before any allocation, then decompression.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tsr::io {

// Throws TSR_ERR_INVALID_ARGUMENT unless level is 0 (zstd's default) or in
// [ZSTD_minCLevel(), ZSTD_maxCLevel()].
void check_zstd_level(int level);

// Compresses n bytes into one frame that records its content size and, in
// all but one case, an XXH64 checksum. The result's length is never n, so a
// plain safetensors reader's "end - begin == numel * element size" check
// always rejects the frame: if the frame with checksum would be exactly n
// bytes, it is written without the checksum (4 bytes shorter).
std::vector<char> compress_frame(const void* src, size_t n, int level);

// Checks that [src, src+len) is exactly one zstd frame (not skippable) whose
// recorded content size is `expected` and whose blocks could hold that many
// bytes (so a tiny frame cannot make us allocate a huge tensor).
// TSR_ERR_CORRUPT_FILE naming `name` and the numbers otherwise.
void check_frame(const char* src, size_t len, size_t expected, const std::string& name);

// Decompresses a frame that passed check_frame into dst (expected bytes),
// verifying its checksum. TSR_ERR_CORRUPT_FILE on any zstd error.
void decompress_frame(const char* src, size_t len, void* dst, size_t expected,
                      const std::string& name);

}  // namespace tsr::io
