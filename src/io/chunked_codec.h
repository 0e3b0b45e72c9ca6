// The "zstd-planes" codec (format 0.2, docs/FILE-FORMAT.md): one tensor's
// C-order bytes stored as independent chunks of 1 MiB, each split into
// byte planes for float dtypes (io/byte_planes.h) with every plane zstd-
// compressed where that saves at least 1/32 and stored raw otherwise,
// followed by an index (each chunk's stored length and XXH3-64) and a
// 24-byte footer. Chunks are encoded and decoded on tessera's thread pool;
// the bytes written do not depend on the thread count.
//
// Narrow interface: encode one tensor's bytes into a byte sink; read a
// stored range's index; decode all of it or any byte range of the tensor
// (only the chunks overlapping it are read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tessera/types.h>

namespace tsr::io {

class ReadFile;

namespace planes {

constexpr uint32_t kChunkBytes = 1u << 20;  // raw bytes per chunk (a multiple of 8)
constexpr uint32_t kMaxChunkBytes = 16u << 20;  // the most a reader accepts
constexpr size_t kFooterBytes = 24;

constexpr size_t kIndexEntryBytes = 16;

// How a chunk's bytes are grouped before zstd (the footer's byte 4).
enum class Transform : uint8_t {
  kNone = 0,           // one plane: the bytes as they are (integers, bool)
  kPlanes = 1,         // element-size planes
  kPlanesSignRot = 2,  // planes of each element rotated left by one bit
};

// What the writer uses for a dtype: planes for floats, with the sign-bit
// rotation for float32, bfloat16 and float16 (it measured a little better
// on real weights: bench/HISTORY.md; float64 is unmeasured), none for
// integers and bool.
Transform default_transform(tsr_dtype dtype);

struct EncodeOptions {
  // zstd level. 0: level 1, and for byte planes with minMatch 7, windowLog
  // 13, hashLog 8 (better and faster than zstd's default 3 on planes:
  // they are entropy, not repeats; bench/HISTORY.md). Others: zstd's own
  // parameters for that level.
  int level = 0;
  Transform transform = Transform::kNone;
  uint32_t chunk_bytes = kChunkBytes;
};

struct Encoded {
  uint64_t length = 0;    // bytes given to the sink
  uint64_t file_hash = 0; // XXH3-64 of the index, padding and footer: the
                          // tensor's entry in "tessera.checksum"
};

using Sink = std::function<void(const void* data, size_t n)>;

// Encodes n bytes of elements of elem_size bytes (n a multiple of it) and
// hands the stored bytes to sink in order (encode_many of one tensor). The stored length is never n
// (eight padding bytes are added when it would be), so a plain safetensors
// reader's size check refuses the tensor. Chunks are compressed a batch at
// a time on tessera's thread pool: memory beyond the input is a few chunks
// per thread.
Encoded encode(const void* src, size_t n, size_t elem_size, const EncodeOptions& opt,
               const Sink& sink);

// Several tensors encoded one after another into one sink, as encode would
// each: their chunks are compressed together, in passes of a few chunks per
// thread whichever tensor they belong to (most real weights are tensors far
// smaller than a chunk), with threads taking the next chunk as they finish
// one; the stored bytes are handed to sink in order, each tensor's chunks
// then its index (one pass's by one of the threads while the next pass is
// compressed: sink is never called twice at once, but maybe not on this
// thread), and done(i, encoded) is called on this thread once tensor i's
// last byte was handed over. Memory beyond the inputs is two passes'
// output. The bytes do not depend on the thread count.
struct EncodeInput {
  const void* src;
  size_t n;
  size_t elem_size;
  EncodeOptions opt;
};
using DoneFn = std::function<void(size_t i, const Encoded& encoded)>;
void encode_many(const std::vector<EncodeInput>& inputs, const Sink& sink, const DoneFn& done);

// A growable byte buffer that is never zero-filled (std::string's resize
// writes every byte, a cost comparable to the codec's on planes stored raw).
class Buf {
 public:
  unsigned char* data() { return p_.get(); }
  const unsigned char* data() const { return p_.get(); }
  size_t size() const { return n_; }
  // Room for at least n bytes; the contents are not kept.
  unsigned char* reserve(size_t n) {
    if (n > cap_) {
      p_.reset(new unsigned char[n]);
      cap_ = n;
    }
    return p_.get();
  }
  void set_size(size_t n) { n_ = n; }
  void release() {
    p_.reset();
    cap_ = n_ = 0;
  }

 private:
  std::unique_ptr<unsigned char[]> p_;
  size_t cap_ = 0, n_ = 0;
};

// Where a stored range's bytes come from: read from the file as needed, or
// already in memory (mem holds the file bytes [base, base + len): a small
// tensor's whole range, read with one call).
struct Source {
  const ReadFile* file = nullptr;
  const unsigned char* mem = nullptr;
  uint64_t base = 0, len = 0;
  // The file bytes [off, off + n): a pointer into mem, or read into scratch.
  const unsigned char* get(uint64_t off, uint64_t n, Buf& scratch) const;
};

// A tensor's chunk index, validated against the stored range's length and
// the tensor's byte count.
struct Index {
  Transform transform = Transform::kNone;
  size_t elem_size = 1;
  uint64_t nbytes = 0;         // the tensor's raw bytes
  uint32_t chunk_bytes = 0;    // raw bytes per chunk (the last may be short)
  std::vector<uint64_t> begin; // n_chunks + 1 stored offsets, relative to the range
  std::vector<uint64_t> hash;  // XXH3-64 of each chunk's stored bytes
  uint64_t file_hash = 0;      // as Encoded::file_hash, computed from the file
  size_t chunks() const { return hash.size(); }
};

// Reads the footer and index of the stored range [offset, offset + len) of
// f, for a tensor `name` of nbytes bytes of elem_size-byte elements.
// TSR_ERR_CORRUPT_FILE naming the tensor and the numbers when anything
// disagrees (magic, transform, sizes, the index's own checksum, chunk
// lengths that do not tile the range).
Index read_index(const ReadFile& f, uint64_t offset, uint64_t len, uint64_t nbytes,
                 size_t elem_size, const std::string& name);
Index read_index(const Source& f, uint64_t offset, uint64_t len, uint64_t nbytes,
                 size_t elem_size, const std::string& name);

// Decodes the tensor bytes [lo, hi) into dst (hi - lo bytes), reading and
// decoding only the chunks that overlap them, on tessera's thread pool.
// With verify, each chunk's stored bytes are checked against its XXH3-64
// first. TSR_ERR_CORRUPT_FILE names the tensor, the chunk, its byte range
// in the tensor and in the file; when several chunks fail, the first.
void decode_range(const ReadFile& f, uint64_t offset, const Index& ix, uint64_t lo, uint64_t hi,
                  void* dst, const std::string& name, bool verify);
void decode_range(const Source& f, uint64_t offset, const Index& ix, uint64_t lo, uint64_t hi,
                  void* dst, const std::string& name, bool verify);

}  // namespace planes
}  // namespace tsr::io
