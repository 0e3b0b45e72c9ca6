// ZSTD_getFrameHeader, ZSTD_d_stableOutBuffer and ZSTD_WINDOWLOG_MAX are in
// zstd's "static linking only" section; they have been stable since zstd
// 1.4 and libzstd.so exports them.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "io/checksum.h"
#include "io/posix_file.h"
#include "io/quote.h"
#include "io/zstd_frame.h"

namespace tsr::io {

namespace {
struct CCtxFree { void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); } };
struct DCtxFree { void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); } };

void zcheck(size_t rc, const char* what) {
  if (ZSTD_isError(rc)) fail(TSR_ERR_INTERNAL, "zstd ", what, ": ", ZSTD_getErrorName(rc));
}

// Compressed bytes move through a buffer of this size in both directions.
constexpr size_t kChunk = size_t(1) << 20;

// Frame format constants from RFC 8878 §3.1.1.
constexpr size_t kBlockHeaderBytes = 3;
constexpr size_t kChecksumBytes = 4;
constexpr uint64_t kMinCompressedBlockBytes = 2;  // literals + sequences section headers
constexpr unsigned kBlockRaw = 0, kBlockRle = 1, kBlockCompressed = 2;

// Reads small pieces of a frame through a buffer, so walking the block
// headers of a frame made of many tiny blocks costs one read per chunk,
// not one per block.
class FrameCursor {
 public:
  FrameCursor(const ReadFile& f, uint64_t offset, uint64_t len)
      : f_(f), offset_(offset), len_(len), buf_(std::make_unique_for_overwrite<char[]>(kChunk)) {}
  // Copies n bytes at frame position pos (pos + n <= len) into dst.
  void read(uint64_t pos, size_t n, void* dst) {
    if (pos < start_ || pos + n > start_ + filled_) {
      filled_ = size_t(std::min<uint64_t>(kChunk, len_ - pos));
      f_.read_at(buf_.get(), filled_, offset_ + pos);
      start_ = pos;
    }
    std::memcpy(dst, buf_.get() + (pos - start_), n);
  }

 private:
  const ReadFile& f_;
  uint64_t offset_, len_;
  std::unique_ptr<char[]> buf_;
  uint64_t start_ = 0;
  size_t filled_ = 0;
};

uint64_t compress_into(ZSTD_CCtx* cctx, AtomicWriter& w, const void* src, size_t n, char* buf,
                       StreamHash& frame_hash) {
  static const char kEmpty = 0;  // zstd wants a valid pointer even for 0 bytes
  zcheck(ZSTD_CCtx_setPledgedSrcSize(cctx, n), "pledged size");
  ZSTD_inBuffer in{n ? src : &kEmpty, n, 0};
  uint64_t total = 0;
  size_t remaining;
  do {
    ZSTD_outBuffer out{buf, kChunk, 0};
    remaining = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end);
    zcheck(remaining, "compress");
    w.write(buf, out.pos);
    frame_hash.update(buf, out.pos);
    total += out.pos;
  } while (remaining != 0);
  return total;
}
}  // namespace

void check_zstd_level(int level) {
  TSR_CHECK(level == 0 || (level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel()),
            TSR_ERR_INVALID_ARGUMENT, "zstd level ", level, " outside [", ZSTD_minCLevel(), ", ",
            ZSTD_maxCLevel(), "] (0 = default)");
}

uint64_t write_frame(AtomicWriter& w, const void* src, size_t n, int level, uint64_t* frame_hash) {
  std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx(ZSTD_createCCtx());
  if (!cctx) fail(TSR_ERR_OUT_OF_MEMORY, "zstd: cannot create a compression context");
  zcheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1), "content size flag");
  zcheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1), "checksum flag");
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
  const uint64_t start = w.offset();
  // A frame exactly as long as the raw bytes would pass a plain reader's
  // size check: compress again at the neighbouring levels (another length,
  // the checksum kept) until it is not. Dropping the checksum instead would
  // let bit flips in that frame load silently.
  const int base = level == 0 ? ZSTD_CLEVEL_DEFAULT : level;
  StreamHash hash;
  for (int step = 0; step < 16; ++step) {
    const int candidate = base + (step % 2 ? (step + 1) / 2 : -(step / 2));
    if (candidate < ZSTD_minCLevel() || candidate > ZSTD_maxCLevel() || candidate == 0) continue;
    zcheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, candidate), "level");
    w.seek(start);
    hash.reset();
    const uint64_t len = compress_into(cctx.get(), w, src, n, buf.get(), hash);
    if (len != n) {
      *frame_hash = hash.digest();
      return len;
    }
  }
  fail(TSR_ERR_INTERNAL, "zstd frames of ", n, " bytes at every level near ", base,
       " are exactly as long as the raw data");
}

void check_frame(const ReadFile& f, uint64_t offset, uint64_t len, size_t expected,
                 const std::string& name) {
  unsigned char head[ZSTD_FRAMEHEADERSIZE_MAX];
  size_t head_len = size_t(std::min<uint64_t>(len, sizeof head));
  f.read_at(head, head_len, offset);
  ZSTD_frameHeader fh;
  size_t rc = ZSTD_getFrameHeader(&fh, head, head_len);
  if (ZSTD_isError(rc))
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": not a zstd frame (",
         ZSTD_getErrorName(rc), ")");
  if (rc != 0)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame header truncated (",
         len, " bytes, needs ", rc, ")");
  if (fh.frameType != ZSTD_frame)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": skippable zstd frame instead of data");
  if (fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name),
         ": zstd frame does not record its content size");
  if (fh.frameContentSize != expected)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame decompresses to ",
         fh.frameContentSize, " bytes but dtype and shape need ", expected);
  // Walk the block headers (RFC 8878 §3.1.1.2) for the frame's length and
  // the most its blocks can produce: raw and RLE blocks their stated size,
  // compressed blocks at most blockSizeMax.
  uint64_t pos = fh.headerSize, bound = 0;
  FrameCursor cursor(f, offset, len);
  for (bool last = false; !last;) {
    if (len - pos < kBlockHeaderBytes)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame truncated at block "
           "header (byte ", pos, " of ", len, ")");
    unsigned char b[kBlockHeaderBytes];
    cursor.read(pos, kBlockHeaderBytes, b);
    uint32_t bh = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16;
    last = bh & 1;
    unsigned type = (bh >> 1) & 3;
    uint64_t size = bh >> 3;
    pos += kBlockHeaderBytes;
    if ((type != kBlockRaw && type != kBlockRle && type != kBlockCompressed) ||
        size > fh.blockSizeMax)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": invalid zstd block (type ", type,
           ", size ", size, ", block maximum ", fh.blockSizeMax, ")");
    // A compressed block holds a literals and a sequences section header at
    // least (RFC 8878 §3.1.1.3): an emptier one is not a block, and counting
    // it as blockSizeMax would let a file of them claim 43,690x its size.
    if (type == kBlockCompressed && size < kMinCompressedBlockBytes)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": compressed zstd block of ", size,
           " bytes at byte ", pos, " (at least ", kMinCompressedBlockBytes, " needed)");
    uint64_t body = type == kBlockRle ? 1 : size;
    if (len - pos < body)
      fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd block at byte ", pos,
           " runs past the frame's ", len, " bytes");
    pos += body;
    bound += type == kBlockCompressed ? fh.blockSizeMax : size;
  }
  pos += fh.checksumFlag ? kChecksumBytes : 0;
  if (pos != len)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame is ", pos,
         " bytes but data_offsets span ", len);
  if (bound < expected)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame claims ", expected,
         " bytes but its blocks can hold at most ", bound);
}

void decompress_frame(const ReadFile& f, uint64_t offset, uint64_t len, void* dst,
                      size_t expected, const std::string& name, uint64_t* frame_hash) {
  StreamHash hash;
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
  if (!dctx) fail(TSR_ERR_OUT_OF_MEMORY, "zstd: cannot create a decompression context");
  // Decode straight into the tensor (no window buffer), so any window size
  // the format allows costs nothing extra.
  zcheck(ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_stableOutBuffer, 1), "stable output");
  zcheck(ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX), "window");
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
  char dummy;
  ZSTD_outBuffer out{expected ? dst : &dummy, expected, 0};
  uint64_t done = 0;
  size_t rc = 1;
  while (done < len) {
    size_t chunk = size_t(std::min<uint64_t>(kChunk, len - done));
    f.read_at(buf.get(), chunk, offset + done);
    hash.update(buf.get(), chunk);
    done += chunk;
    ZSTD_inBuffer in{buf.get(), chunk, 0};
    while (in.pos < in.size) {
      const size_t in_before = in.pos, out_before = out.pos;
      rc = ZSTD_decompressStream(dctx.get(), &out, &in);
      if (ZSTD_isError(rc))
        fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd data is corrupt (",
             ZSTD_getErrorName(rc), ")");
      if (rc == 0 && in.pos < in.size)
        fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame ends before its ",
             len, " bytes");
      // No progress with input left: the output (the tensor) is full.
      if (in.pos == in_before && out.pos == out_before)
        fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame holds more than ",
             expected, " bytes");
    }
  }
  if (rc != 0 || out.pos != expected)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame decompressed to ",
         out.pos, " bytes, expected ", expected);
  *frame_hash = hash.digest();
}

}  // namespace tsr::io
