// ZSTD_getFrameHeader is in zstd's "static linking only" section; it has
// been stable since zstd 1.3 and libzstd.so exports it.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <memory>

#include "core/error.h"
#include "io/quote.h"
#include "io/zstd_frame.h"

namespace tsr::io {

namespace {
struct CCtxFree { void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); } };
struct DCtxFree { void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); } };

void zcheck(size_t rc, const char* what) {
  if (ZSTD_isError(rc)) fail(TSR_ERR_INTERNAL, "zstd ", what, ": ", ZSTD_getErrorName(rc));
}

// Frame format constants from RFC 8878 §3.1.1.2.
constexpr size_t kBlockHeaderBytes = 3;
constexpr size_t kChecksumBytes = 4;
constexpr unsigned kBlockRaw = 0, kBlockRle = 1, kBlockCompressed = 2;
}  // namespace

void check_zstd_level(int level) {
  TSR_CHECK(level == 0 || (level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel()),
            TSR_ERR_INVALID_ARGUMENT, "zstd level ", level, " outside [", ZSTD_minCLevel(), ", ",
            ZSTD_maxCLevel(), "] (0 = default)");
}

std::vector<char> compress_frame(const void* src, size_t n, int level) {
  std::unique_ptr<ZSTD_CCtx, CCtxFree> cctx(ZSTD_createCCtx());
  if (!cctx) fail(TSR_ERR_OUT_OF_MEMORY, "zstd: cannot create a compression context");
  zcheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel,
                                level == 0 ? ZSTD_CLEVEL_DEFAULT : level), "level");
  zcheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1), "content size flag");
  std::vector<char> out(ZSTD_compressBound(n));
  static const char kEmpty = 0;  // zstd wants a valid pointer even for 0 bytes
  const void* in = n ? src : &kEmpty;
  size_t len = 0;
  for (int checksum : {1, 0}) {
    zcheck(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, checksum), "checksum flag");
    len = ZSTD_compress2(cctx.get(), out.data(), out.size(), in, n);
    zcheck(len, "compress");
    if (len != n) break;
  }
  TSR_CHECK(len != n, TSR_ERR_INTERNAL, "zstd frame length equals the raw length ", n);
  out.resize(len);
  return out;
}

void check_frame(const char* src, size_t len, size_t expected, const std::string& name) {
  ZSTD_frameHeader fh;
  size_t rc = ZSTD_getFrameHeader(&fh, src, len);
  if (ZSTD_isError(rc))
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": not a zstd frame (", ZSTD_getErrorName(rc), ")");
  if (rc != 0)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame header truncated (", len,
         " bytes, needs ", rc, ")");
  if (fh.frameType != ZSTD_frame)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": skippable zstd frame instead of data");
  if (fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame does not record its content size");
  if (fh.frameContentSize != expected)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame decompresses to ",
         fh.frameContentSize, " bytes but dtype and shape need ", expected);
  size_t frame_len = ZSTD_findFrameCompressedSize(src, len);
  if (ZSTD_isError(frame_len))
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": malformed zstd frame (",
         ZSTD_getErrorName(frame_len), ")");
  if (frame_len != len)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame is ", frame_len,
         " bytes but data_offsets span ", len);
  // Walk the blocks (structure already verified by findFrameCompressedSize)
  // for the most they can produce: raw and RLE blocks their stated size,
  // compressed blocks at most blockSizeMax.
  unsigned long long bound = 0;
  size_t pos = fh.headerSize;
  const size_t body_end = len - (fh.checksumFlag ? kChecksumBytes : 0);
  const auto* p = reinterpret_cast<const unsigned char*>(src);
  bool last = false;
  while (!last && pos + kBlockHeaderBytes <= body_end) {
    uint32_t bh = uint32_t(p[pos]) | uint32_t(p[pos + 1]) << 8 | uint32_t(p[pos + 2]) << 16;
    last = bh & 1;
    unsigned type = (bh >> 1) & 3;
    size_t size = bh >> 3;
    pos += kBlockHeaderBytes;
    if (type == kBlockRaw) { bound += size; pos += size; }
    else if (type == kBlockRle) { bound += size; pos += 1; }
    else if (type == kBlockCompressed) { bound += fh.blockSizeMax; pos += size; }
    else fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": reserved zstd block type");
  }
  if (bound < expected)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame claims ", expected,
         " bytes but its blocks can hold at most ", bound);
}

void decompress_frame(const char* src, size_t len, void* dst, size_t expected,
                      const std::string& name) {
  std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx(ZSTD_createDCtx());
  if (!dctx) fail(TSR_ERR_OUT_OF_MEMORY, "zstd: cannot create a decompression context");
  char dummy;
  size_t rc = ZSTD_decompressDCtx(dctx.get(), expected ? dst : &dummy, expected, src, len);
  if (ZSTD_isError(rc))
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd data is corrupt (",
         ZSTD_getErrorName(rc), ")");
  if (rc != expected)
    fail(TSR_ERR_CORRUPT_FILE, "tensor ", json_quoted(name), ": zstd frame decompressed to ", rc,
         " bytes, expected ", expected);
}

}  // namespace tsr::io
