#include "io/file_index.h"

#include <bit>
#include <cstring>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "io/bool_bytes.h"
#include "io/chunked_codec.h"
#include "io/quote.h"
#include "io/zstd_frame.h"

namespace tsr::io {

// safetensors data is little-endian and is copied into tensors as is.
static_assert(std::endian::native == std::endian::little,
              "tsr::io reads little-endian data without byte swapping");

namespace {

// A zstd-planes tensor stored in at most this many bytes is read whole.
constexpr uint64_t kWholeReadBytes = uint64_t(2) << 20;

// Reads the header text; returns it (its length is N).
std::string read_header_text(const ReadFile& f) {
  TSR_CHECK(f.size() >= 8, TSR_ERR_CORRUPT_FILE, "file is ", f.size(),
            " bytes, shorter than the 8-byte header length");
  unsigned char len_bytes[8];
  f.read_at(len_bytes, 8, 0);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len_bytes[i];
  TSR_CHECK(n <= kMaxHeaderBytes, TSR_ERR_CORRUPT_FILE, "header length ", n, " exceeds the limit of ",
            kMaxHeaderBytes, " bytes");
  TSR_CHECK(n <= f.size() - 8, TSR_ERR_CORRUPT_FILE, "header length ", n,
            " runs past the end of the ", f.size(), "-byte file");
  std::string text(n, '\0');
  f.read_at(text.data(), n, 8);
  return text;
}

// The file's format version (kFormatKey, 0.1 when absent) and codec.
void read_codec(const Header& h, FileIndex& ix) {
  auto v = h.metadata.find(kFormatKey);
  TSR_CHECK(v == h.metadata.end() || v->second == kFormatPlanes, TSR_ERR_UNSUPPORTED,
            "file format ", json_quoted(v->second), " (", kFormatKey, "); this build reads 0.1 and ",
            kFormatPlanes);
  auto it = h.metadata.find(kCompressionKey);
  if (it == h.metadata.end()) return;
  TSR_CHECK(it->second == kCompressionZstd || it->second == kCompressionZstdPlanes,
            TSR_ERR_UNSUPPORTED, "unknown compression ", json_quoted(it->second), " (",
            kCompressionKey, "); this build reads ", json_quoted(kCompressionZstd), " and ",
            json_quoted(kCompressionZstdPlanes));
  ix.zstd = true;
  ix.planes = it->second == kCompressionZstdPlanes;
}

void check_bools(const Tensor& t, const std::string& name) {
  if (t.dtype() != TSR_BOOL) return;
  int64_t bad = first_non_bool_byte(t.data_ptr(), t.nbytes());
  TSR_CHECK(bad < 0, TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": bool element ", bad,
            " is byte ", int(static_cast<const unsigned char*>(t.data_ptr())[bad]),
            ", not 0 or 1");
}

// The checksums a file tessera wrote carries (io/checksum.h), its header's
// already verified; nullopt for a file without them or when not verifying.
// The entry is taken out of the metadata: it describes the file, it is not
// the writer's metadata.
std::optional<FileChecksums> header_checksums(const std::string& text, Header& h, bool verify) {
  std::optional<FileChecksums> sums;
  if (verify) {
    sums = verify_header(text);
    TSR_CHECK(sums || !h.metadata.count(kChecksumKey), TSR_ERR_CORRUPT_FILE, "the value of \"",
              kChecksumKey, "\" is malformed (it does not start with ", kChecksumMarker, ")");
  }
  h.metadata.erase(kChecksumKey);
  return sums;
}

// stored: the XXH3-64 of the tensor's bytes in the file.
void check_tensor_hash(uint64_t stored, const TensorEntry& e, uint64_t data_start, uint64_t expected) {
  TSR_CHECK(stored == expected, TSR_ERR_CORRUPT_FILE,
            "tensor ", json_quoted(e.name), ": checksum mismatch, its data (file bytes ",
            data_start + e.begin, " to ", data_start + e.end, ") was changed since it was written");
}

void check_budget(const Header& h, uint64_t file_size, int64_t max_bytes) {
  int64_t total = 0;
  for (const TensorEntry& e : h.tensors) {
    TSR_CHECK(e.nbytes <= std::numeric_limits<int64_t>::max() - total, TSR_ERR_CORRUPT_FILE,
              "tensors need more than 2^63-1 bytes in total");
    total += e.nbytes;
  }
  if (max_bytes == 0) {
    const int64_t cap = default_max_bytes(file_size);
    TSR_CHECK(total <= cap, TSR_ERR_CORRUPT_FILE, "tensors need ", total,
              " bytes, above the default limit of ", cap, " bytes for a ", file_size,
              "-byte file (", kDefaultExpansion, " x its size + ", kDefaultSlackBytes >> 20,
              " MiB); set tsr_load_options.max_bytes to load it (TSR_LOAD_MAX_BYTES_UNLIMITED: no limit)");
  } else {
    TSR_CHECK(total <= max_bytes, TSR_ERR_CORRUPT_FILE, "tensors need ", total,
              " bytes, above the limit max_bytes = ", max_bytes);
  }
}

}  // namespace

FileIndex read_index(const std::string& path, const LoadSettings& settings) {
  FileIndex ix;
  ix.file = std::make_unique<ReadFile>(path);
  const ReadFile& f = *ix.file;
  const std::string text = read_header_text(f);
  ix.header = parse_header(text);
  ix.sums = header_checksums(text, ix.header, settings.verify_checksums);
  ix.verify = settings.verify_checksums;
  read_codec(ix.header, ix);
  ix.data_start = 8 + text.size();
  validate_layout(ix.header, f.size() - ix.data_start, ix.zstd);
  TSR_CHECK(!ix.sums || ix.sums->tensors.size() == ix.header.tensors.size(), TSR_ERR_CORRUPT_FILE,
            "the checksum entry lists ", ix.sums ? ix.sums->tensors.size() : 0, " tensors, the header ",
            ix.header.tensors.size());
  check_budget(ix.header, f.size(), settings.max_bytes);
  return ix;
}

Tensor read_tensor(const FileIndex& ix, size_t i) {
  const TensorEntry& e = ix.header.tensors.at(i);
  const ReadFile& f = *ix.file;
  const uint64_t len = e.end - e.begin;
  Tensor t;
  uint64_t stored_hash = 0;
  if (ix.planes) {
    // A small tensor's stored bytes (most real weights are far smaller
    // than a chunk) are read with one call, index and chunks together.
    const uint64_t at = ix.data_start + e.begin;
    // One buffer per thread, kept: a fresh one per tensor would be mapped
    // and zeroed by the kernel each time (thousands of tensors a file).
    thread_local planes::Buf whole;
    planes::Source src{&f};
    if (len <= kWholeReadBytes) {
      f.read_at(whole.reserve(size_t(len)), len, at);
      src.mem = whole.data();
      src.base = at;
      src.len = len;
    }
    const planes::Index pi = planes::read_index(src, at, len, uint64_t(e.nbytes),
                                                size_t(element_size(e.dtype)), e.name);
    stored_hash = pi.file_hash;
    // The index is checked before the tensor is allocated: its chunk
    // count matches e.nbytes, which the budget check already allowed.
    if (ix.sums) check_tensor_hash(stored_hash, e, ix.data_start, ix.sums->tensors[i]);
    t = empty(e.shape, e.dtype, TSR_CONTIGUOUS_FORMAT, kCpu);
    planes::decode_range(src, at, pi, 0, uint64_t(e.nbytes), t.data_ptr(), e.name, ix.verify);
  } else if (ix.zstd) {
    check_frame(f, ix.data_start + e.begin, len, size_t(e.nbytes), e.name);
    t = empty(e.shape, e.dtype, TSR_CONTIGUOUS_FORMAT, kCpu);  // the frame's blocks can produce e.nbytes
    decompress_frame(f, ix.data_start + e.begin, len, t.data_ptr(), size_t(e.nbytes), e.name,
                     &stored_hash);
  } else {
    t = empty(e.shape, e.dtype, TSR_CONTIGUOUS_FORMAT, kCpu);  // e.nbytes == len <= the file size
    f.read_at(t.data_ptr(), len, ix.data_start + e.begin);
    if (ix.sums) stored_hash = content_hash(t.data_ptr(), size_t(len));
  }
  if (ix.sums) check_tensor_hash(stored_hash, e, ix.data_start, ix.sums->tensors[i]);
  check_bools(t, e.name);
  return t;
}

namespace {
void read_range_bytes(const FileIndex& ix, size_t i, uint64_t lo, uint64_t hi, void* dst) {
  const TensorEntry& e = ix.header.tensors.at(i);
  if (ix.planes) {
    const planes::Index pi = planes::read_index(*ix.file, ix.data_start + e.begin, e.end - e.begin,
                                                uint64_t(e.nbytes), size_t(element_size(e.dtype)),
                                                e.name);
    if (ix.sums) check_tensor_hash(pi.file_hash, e, ix.data_start, ix.sums->tensors[i]);
    planes::decode_range(*ix.file, ix.data_start + e.begin, pi, lo, hi, dst, e.name, ix.verify);
    return;
  }
  if (!ix.zstd && !ix.sums) {  // nothing to verify: read just the range
    ix.file->read_at(dst, hi - lo, ix.data_start + e.begin + lo);
    return;
  }
  Tensor t = read_tensor(ix, i);  // the whole tensor, verified
  std::memcpy(dst, static_cast<const char*>(t.data_ptr()) + lo, size_t(hi - lo));
}
}  // namespace

void read_tensor_range(const FileIndex& ix, size_t i, uint64_t lo, uint64_t hi, void* dst) {
  const TensorEntry& e = ix.header.tensors.at(i);
  TSR_CHECK(lo <= hi && hi <= uint64_t(e.nbytes), TSR_ERR_INVALID_ARGUMENT, "byte range [", lo, ", ",
            hi, ") of tensor ", json_quoted(e.name), " of ", e.nbytes, " bytes");
  // An empty range reads no byte, so there is nothing to check (and dst may
  // be the null data pointer of an empty tensor).
  if (lo == hi) return;
  read_range_bytes(ix, i, lo, hi, dst);
  if (e.dtype == TSR_BOOL) {
    const int64_t bad = first_non_bool_byte(dst, int64_t(hi - lo));
    TSR_CHECK(bad < 0, TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(e.name), ": bool element ",
              int64_t(lo) + bad, " is byte ", int(static_cast<const unsigned char*>(dst)[bad]),
              ", not 0 or 1");
  }
}

void check_tensor_bytes(const FileIndex& ix, size_t i, const Tensor& t) {
  const TensorEntry& e = ix.header.tensors.at(i);
  if (ix.sums)
    check_tensor_hash(content_hash(t.data_ptr(), size_t(t.nbytes())), e, ix.data_start,
                      ix.sums->tensors[i]);
  check_bools(t, e.name);
}

}  // namespace tsr::io
