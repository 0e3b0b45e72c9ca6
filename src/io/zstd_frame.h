// One zstd frame per tensor, streamed: the writer compresses straight into
// the output file and the reader decompresses straight into the tensor,
// through fixed-size chunks, so neither holds a whole compressed tensor in
// memory. The reader validates a frame before the tensor is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsr::io {

class AtomicWriter;
class ReadFile;

// Throws TSR_ERR_INVALID_ARGUMENT unless level is 0 (zstd's default) or in
// [ZSTD_minCLevel(), ZSTD_maxCLevel()].
void check_zstd_level(int level);

// Compresses n bytes into one frame written at w's current position and
// returns its length. The frame records its content size and an XXH64
// checksum. Its length is never n, so a plain safetensors reader's
// "end - begin == numel * element size" check always rejects it: a frame
// that comes out exactly n bytes is rewritten in place at a neighbouring
// level (a frame written later at the same offset replaces it; the file is
// truncated to its final size at the end of the save).
// *frame_hash: the XXH3-64 of the frame's bytes (io/checksum.h).
uint64_t write_frame(AtomicWriter& w, const void* src, size_t n, int level, uint64_t* frame_hash);

// Checks, reading only headers, that the len bytes at offset in f are
// exactly one zstd frame (not skippable) whose recorded content size is
// `expected` and whose blocks could hold that many bytes, so that a tiny
// frame cannot make us allocate a huge tensor. TSR_ERR_CORRUPT_FILE naming
// `name` and the numbers otherwise.
void check_frame(const ReadFile& f, uint64_t offset, uint64_t len, size_t expected,
                 const std::string& name);

// Decompresses a frame that passed check_frame into dst (expected bytes),
// verifying its checksum. TSR_ERR_CORRUPT_FILE on any zstd error, or if the
// frame ends before or after the len bytes. *frame_hash: the XXH3-64 of the
// len bytes read.
void decompress_frame(const ReadFile& f, uint64_t offset, uint64_t len, void* dst,
                      size_t expected, const std::string& name, uint64_t* frame_hash);

}  // namespace tsr::io
