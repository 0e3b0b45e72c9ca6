#include "io/save.h"

#include <algorithm>
#include <limits>
#include <set>

#include "core/dtype.h"
#include "core/error.h"
#include "core/layout.h"
#include "io/bool_bytes.h"
#include "io/checksum.h"
#include "io/chunked_codec.h"
#include "io/gathered_writes.h"
#include "io/header.h"
#include "io/tensor_bytes.h"
#include "io/quote.h"
#include "io/posix_file.h"
#include "io/st_dtype.h"
#include "io/utf8.h"
#include "io/zstd_frame.h"
#include "cpu/kernels/copy.h"
#include "device/transfer.h"

namespace tsr::io {

namespace {

void validate(const std::vector<SaveItem>& items, const SaveSettings& settings) {
  std::set<std::string> seen;
  for (const SaveItem& it : items) {
    check_tensor_name(it.name);
    TSR_CHECK(seen.insert(it.name).second, TSR_ERR_INVALID_ARGUMENT, "duplicate tensor name ",
              json_quoted(it.name));
  }
  check_metadata_and_level(settings);
}

// A plain tensor is written, and progress reported, in pieces this large.
constexpr size_t kProgressChunk = size_t(16) << 20;
// Raw bytes of the tensors a zstd-planes save encodes together.
constexpr uint64_t kGroupBytes = uint64_t(64) << 20;

}  // namespace

void save_file(const std::string& path, std::vector<SaveItem> items, const SaveSettings& settings) {
  write_file(path, std::move(items), settings)->commit();
}

std::unique_ptr<AtomicWriter> write_file(const std::string& path, std::vector<SaveItem> items,
                                         const SaveSettings& settings) {
  validate(items, settings);
  // The reference writer's order: largest alignment first, then by name,
  // so each tensor starts aligned to its element size.
  std::sort(items.begin(), items.end(), [](const SaveItem& a, const SaveItem& b) {
    int ra = st_dtype_rank(a.tensor.dtype()), rb = st_dtype_rank(b.tensor.dtype());
    return ra != rb ? ra > rb : a.name < b.name;
  });
  const bool planes = settings.compression == TSR_COMPRESSION_ZSTD_PLANES;
  const bool zstd = settings.compression == TSR_COMPRESSION_ZSTD || planes;

  Header h;
  h.metadata = settings.metadata;
  h.metadata.insert(settings.internal_metadata.begin(), settings.internal_metadata.end());
  if (zstd) h.metadata[kCompressionKey] = planes ? kCompressionZstdPlanes : kCompressionZstd;
  if (planes) h.metadata[kFormatKey] = kFormatPlanes;
  // Digits filled in once the data is written: the header's length is final.
  if (settings.checksums) h.metadata[kChecksumKey] = checksum_placeholder(items.size());
  uint64_t offset = 0;
  for (const SaveItem& it : items) {
    const Tensor& t = it.tensor;
    // Plain: the offsets are final. Compressed: placeholders with the most
    // digits an offset can have, so the header written after the frames
    // (padded with spaces, which JSON ignores) fits the space reserved now.
    uint64_t b = zstd ? uint64_t(std::numeric_limits<int64_t>::max()) : offset;
    uint64_t e = zstd ? b : offset + uint64_t(t.nbytes());
    h.tensors.push_back(TensorEntry{it.name, t.dtype(), t.sizes(), t.numel(), t.nbytes(), b, e});
    offset = e;
  }
  const std::string header = serialize_header(h);

  // Progress counts C-order tensor bytes; a cancel throws before commit, so
  // the writer's destructor discards the temporary.
  uint64_t total = 0, done = 0;
  for (const SaveItem& it : items) total += uint64_t(it.tensor.nbytes());
  const std::string what = str("save of '", path, "'");
  settings.progress.report(0, total, what);
  auto writer = std::make_unique<AtomicWriter>(path);
  AtomicWriter& w = *writer;
  const std::string prefix = length_prefix(header.size());
  w.write(prefix.data(), prefix.size());
  w.write(header.data(), header.size());
  const uint64_t data_start = w.offset();
  std::vector<uint64_t> hashes;
  if (planes) {
    hashes.resize(items.size());
    // Groups of consecutive tensors of up to kGroupBytes (or one larger
    // tensor) are encoded together: their chunks in parallel with each
    // other (io/chunked_codec.h's encode_many). The group bounds the
    // contiguous copies held for non-contiguous or device tensors.
    for (size_t g = 0; g < items.size();) {
      size_t end = g;
      uint64_t bytes = 0;
      while (end < items.size() &&
             (end == g || bytes + uint64_t(items[end].tensor.nbytes()) <= kGroupBytes))
        bytes += uint64_t(items[end++].tensor.nbytes());
      std::vector<Tensor> holds(end - g);
      std::vector<PlanesItem> group;
      for (size_t i = g; i < end; ++i)
        group.push_back(PlanesItem{c_order_bytes(items[i].name, items[i].tensor, holds[i - g]),
                                   size_t(items[i].tensor.nbytes()), items[i].tensor.dtype()});
      write_planes(w, group, settings, [&](size_t k, uint64_t begin, const EncodedTensor& enc) {
        TensorEntry& e = h.tensors[g + k];
        e.begin = begin - data_start;
        e.end = e.begin + enc.length;
        hashes[g + k] = enc.hash;
        done += group[k].n;
        settings.progress.report(done, total, what);
      });
      g = end;
    }
  }
  GatheredWrites plain(w);  // small tensors in few writes
  for (size_t i = 0; i < items.size() && !planes; ++i) {
    Tensor hold;
    const char* p = c_order_bytes(items[i].name, items[i].tensor, hold);
    size_t n = size_t(items[i].tensor.nbytes());
    if (!zstd) {
      if (settings.checksums) hashes.push_back(content_hash(p, n));
      for (size_t k = 0; k < n; k += kProgressChunk) {  // reports every 16 MiB
        const size_t m = std::min(kProgressChunk, n - k);
        plain.write(p + k, m);
        done += m;
        if (m == kProgressChunk && k + m < n) settings.progress.report(done, total, what);
      }
      settings.progress.report(done, total, what);
      continue;
    }
    TensorEntry& e = h.tensors[i];
    e.begin = w.offset() - data_start;
    const EncodedTensor enc = write_compressed(w, p, n, e.dtype, settings);
    e.end = e.begin + enc.length;
    hashes.push_back(enc.hash);
    done += n;
    settings.progress.report(done, total, what);
  }
  plain.flush();
  if (zstd || settings.checksums) {  // the header again, with what the data gave
    const uint64_t data_end = w.offset();
    if (settings.checksums) h.metadata[kChecksumKey] = checksum_value(hashes);
    std::string final_header = serialize_header(h);
    TSR_CHECK(final_header.size() <= header.size(), TSR_ERR_INTERNAL, "header grew from ",
              header.size(), " to ", final_header.size(), " bytes");
    final_header.resize(header.size(), ' ');
    if (settings.checksums) seal_header(final_header);  // over the padding too
    w.seek(prefix.size());
    w.write(final_header.data(), final_header.size());
    w.truncate(data_end);
  }
  return writer;
}

}  // namespace tsr::io
