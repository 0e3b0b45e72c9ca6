// Checksums of a file tessera writes (plain or compressed), kept where
// other safetensors readers ignore them: the metadata entry
//   "tessera.checksum": "tessera-xxh3-64:<header>:<t0>,<t1>,...,"
// with 16 lowercase hex digits each. <ti> is the XXH3-64 of tensor i's
// stored bytes (its data_offsets range: the C-order bytes of a plain file,
// the zstd frame of a compressed one), tensors in file order (by data
// offset, then name, as the loader lists them). <header> is the XXH3-64 of the whole header text as
// stored (the N bytes after the length, padding included) with its own 16
// digits read as '0's, so any change of any header byte changes it.
//
// The loader finds the entry by the value's marker rather than by its key,
// so a damaged key is noticed too: a single flipped bit anywhere in a file
// tessera wrote makes its load fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tsr::io {

constexpr const char* kChecksumKey = "tessera.checksum";
constexpr std::string_view kChecksumMarker = "tessera-xxh3-64:";

// XXH3-64 of n bytes.
uint64_t content_hash(const void* data, size_t n);

// XXH3-64 of bytes that arrive in pieces (a zstd frame as it is written or
// read): the same value content_hash gives for them all at once.
class StreamHash {
 public:
  StreamHash();
  ~StreamHash();
  StreamHash(const StreamHash&) = delete;
  StreamHash& operator=(const StreamHash&) = delete;
  void reset();
  void update(const void* data, size_t n);
  uint64_t digest() const;

 private:
  void* state_;  // XXH3_state_t, kept out of this header
};

// The entry's value with every digit '0', for n tensors: the header's
// length is final before the hashes are known.
std::string checksum_placeholder(size_t n_tensors);
// The value for these tensor hashes, with the header digits '0'.
std::string checksum_value(const std::vector<uint64_t>& tensor_hashes);
// Fills in the header digits of the (single) checksum value in header
// text: hashes the text with them as '0's and writes the result there.
void seal_header(std::string& header_text);

struct FileChecksums {
  uint64_t header;
  std::vector<uint64_t> tensors;
};
// The checksums in a stored header text; nullopt when it carries none.
// TSR_ERR_CORRUPT_FILE when the marker appears more than once, its value
// is malformed or stands under another key than kChecksumKey, or the
// header's own hash does not match (the header was changed).
std::optional<FileChecksums> verify_header(std::string_view header_text);

}  // namespace tsr::io
