#include "io/checksum.h"

#include <xxhash.h>

#include "core/error.h"

namespace tsr::io {

namespace {

constexpr size_t kDigits = 16;
constexpr char kHex[] = "0123456789abcdef";

void put_hex(std::string& out, size_t at, uint64_t v) {
  for (size_t i = 0; i < kDigits; ++i) out[at + i] = kHex[(v >> (4 * (kDigits - 1 - i))) & 0xf];
}

bool read_hex(std::string_view s, size_t at, uint64_t* v) {
  if (s.size() < at + kDigits) return false;
  uint64_t x = 0;
  for (size_t i = 0; i < kDigits; ++i) {
    const char c = s[at + i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    x = x << 4 | uint64_t(d);
  }
  *v = x;
  return true;
}

// The digits of the header hash: right after the marker.
size_t header_digits_at(size_t marker_at) { return marker_at + kChecksumMarker.size(); }

uint64_t hash_with_digits_zeroed(std::string text, size_t digits_at) {
  text.replace(digits_at, kDigits, kDigits, '0');
  return content_hash(text.data(), text.size());
}

}  // namespace

uint64_t content_hash(const void* data, size_t n) { return XXH3_64bits(data, n); }

StreamHash::StreamHash() : state_(XXH3_createState()) {
  if (!state_) fail(TSR_ERR_OUT_OF_MEMORY, "xxhash: cannot create a hash state");
  reset();
}
StreamHash::~StreamHash() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void StreamHash::reset() { XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_)); }
void StreamHash::update(const void* data, size_t n) {
  if (n) XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, n);
}
uint64_t StreamHash::digest() const { return XXH3_64bits_digest(static_cast<XXH3_state_t*>(state_)); }

std::string checksum_placeholder(size_t n_tensors) {
  return checksum_value(std::vector<uint64_t>(n_tensors, 0));
}

std::string checksum_value(const std::vector<uint64_t>& tensor_hashes) {
  std::string v(kChecksumMarker);
  v.append(kDigits, '0');
  v += ':';
  for (uint64_t h : tensor_hashes) {
    const size_t at = v.size();
    v.append(kDigits, '0');
    put_hex(v, at, h);
    v += ',';
  }
  return v;
}

void seal_header(std::string& header_text) {
  const size_t at = header_text.find(kChecksumMarker);
  TSR_CHECK(at != std::string::npos, TSR_ERR_INTERNAL, "seal_header: no checksum entry");
  const size_t digits = header_digits_at(at);
  put_hex(header_text, digits, hash_with_digits_zeroed(header_text, digits));
}

std::optional<FileChecksums> verify_header(std::string_view text) {
  const size_t at = text.find(kChecksumMarker);
  if (at == std::string_view::npos) return std::nullopt;
  TSR_CHECK(text.find(kChecksumMarker, at + 1) == std::string_view::npos, TSR_ERR_CORRUPT_FILE,
            "the header holds two checksum entries (\"", kChecksumMarker, "\")");
  const std::string key_before = std::string("\"") + kChecksumKey + "\":\"";
  TSR_CHECK(at >= key_before.size() && text.substr(at - key_before.size(), key_before.size()) == key_before,
            TSR_ERR_CORRUPT_FILE, "the checksum entry (\"", kChecksumMarker, "...\" at header byte ", at,
            ") is not under the key \"", kChecksumKey, "\": the header was changed");
  FileChecksums sums;
  size_t i = header_digits_at(at);
  bool ok = read_hex(text, i, &sums.header) && i + kDigits < text.size() && text[i + kDigits] == ':';
  for (i += kDigits + 1; ok && i < text.size() && text[i] != '"'; i += kDigits + 1) {
    uint64_t h = 0;
    ok = read_hex(text, i, &h) && i + kDigits < text.size() && text[i + kDigits] == ',';
    sums.tensors.push_back(h);
  }
  TSR_CHECK(ok && i < text.size(), TSR_ERR_CORRUPT_FILE, "the value of \"", kChecksumKey,
            "\" is malformed at header byte ", i, " (expected ", kChecksumMarker,
            "<16 hex digits>:<16 hex digits>,...)");
  const uint64_t actual = hash_with_digits_zeroed(std::string(text), header_digits_at(at));
  TSR_CHECK(actual == sums.header, TSR_ERR_CORRUPT_FILE,
            "header checksum mismatch: the header (file bytes 8 to ", 8 + text.size(),
            ") was changed since it was written");
  return sums;
}

}  // namespace tsr::io
