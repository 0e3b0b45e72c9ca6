#include "io/chunked_codec.h"

// For ZSTD_c_literalCompressionMode (an "experimental" parameter; see
// set_plane_parameters for what happens where the library refuses it).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>

#include "core/error.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/threads.h"
#include "io/byte_planes.h"
#include "io/checksum.h"
#include "io/posix_file.h"
#include "io/quote.h"

namespace tsr::io::planes {

namespace {

constexpr char kMagic[4] = {'T', 'Z', 'P', '2'};

void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

size_t plane_count(Transform t, size_t elem_size) { return t == Transform::kNone ? 1 : elem_size; }

struct CCtxFree { void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); } };
struct DCtxFree { void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); } };

ZSTD_CCtx* thread_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxFree> c(ZSTD_createCCtx());
  TSR_CHECK(c, TSR_ERR_OUT_OF_MEMORY, "ZSTD_createCCtx failed");
  return c.get();
}
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxFree> d(ZSTD_createDCtx());
  TSR_CHECK(d, TSR_ERR_OUT_OF_MEMORY, "ZSTD_createDCtx failed");
  return d.get();
}

void zcheck(size_t rc) {
  TSR_CHECK(!ZSTD_isError(rc), TSR_ERR_INTERNAL, "zstd parameter: ", ZSTD_getErrorName(rc));
}

// Whether a byte plane looks incompressible: its order-0 entropy is above
// 7.9 bits a byte, so entropy coding cannot save the 1/32 the writer asks
// for (float planes have no long repeats for zstd's matches to find). It
// spares zstd's time on the low mantissa bytes; the decision depends only on
// the bytes, so files stay the same on any thread count.
//
// Planes of 16 KiB or more are sampled: the first 256 bytes of every 1 KiB
// (a quarter of the bytes), or of 64 KiB or more the first 64 of every
// 1 KiB (a sixteenth), spread over the plane; with 4 KiB or more sampled
// the estimate's bias, about 255 / (2 N ln 2) bits, is under 0.1 bit, while
// exponent planes sit near 3 bits and mantissa planes near 8. A plane
// misjudged as not random only costs zstd's try: it is stored raw when
// zstd does not pay.
bool looks_random(const unsigned char* p, size_t m) {
  if (m < 4096) return false;
  const size_t block = m >= 16384 ? 1024 : m;
  const size_t take = m >= 65536 ? 64 : m >= 16384 ? 256 : m;
  uint32_t h[4][256] = {};
  size_t n = 0;
  for (size_t b = 0; b + take <= m; b += block) {
    const unsigned char* q = p + b;
    size_t i = 0;
    for (; i + 4 <= take; i += 4) {
      ++h[0][q[i]];
      ++h[1][q[i + 1]];
      ++h[2][q[i + 2]];
      ++h[3][q[i + 3]];
    }
    for (; i < take; ++i) ++h[0][q[i]];
    n += take;
  }
  double bits = 0;
  for (int b = 0; b < 256; ++b) {
    const uint32_t c = h[0][b] + h[1][b] + h[2][b] + h[3][b];
    if (c) bits -= double(c) * std::log2(double(c) / double(n));
  }
  return bits > 7.9 * double(n);
}

// zstd's parameters for a byte plane at the default level. Byte planes are
// mostly entropy with few long repeats: fewer, longer matches in a small
// window leave more to the literals' Huffman coding, smaller and faster
// than level 1's defaults. The match search also skips ahead fast where it
// finds nothing (targetLength is the fast strategy's acceleration), with
// Huffman coding of literals kept on (zstd turns it off for accelerated
// searches by default, which would store exponent planes nearly raw):
// 1.5x faster on trained weights' exponent planes at an equal or slightly
// better ratio (bench/HISTORY.md, "io"). A zstd that refuses the
// experimental literal parameter gets no acceleration: same format, slower.
void set_plane_parameters(ZSTD_CCtx* c) {
  zcheck(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, 7));
  zcheck(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 13));
  zcheck(ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, 8));
  if (!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_literalCompressionMode, ZSTD_ps_enable)))
    zcheck(ZSTD_CCtx_setParameter(c, ZSTD_c_targetLength, 64));
}

// One thread's scratch for the planes of the chunk it encodes.
Buf& thread_planes_buf() {
  thread_local Buf b;
  return b;
}

// Scratch for one plane's zstd frame, one per thread.
Buf& thread_frame_buf() {
  thread_local Buf b;
  return b;
}

// One chunk's stored bytes: P u32 plane lengths, then the planes. A plane
// whose length is the raw plane length is raw; a shorter one is one zstd
// frame of it. Written into out (reused across chunks): the planes are
// split straight into their places for raw planes, and each plane that
// pays is replaced by its frame, moving later planes down; float planes
// stored raw are the low ones, first, so they are not copied again.
// hash gets the XXH3-64 of the result.
void encode_chunk(const unsigned char* src, size_t r, size_t e, Transform t, int level, Buf& out,
                  uint64_t& hash) {
  const size_t P = plane_count(t, e);
  const size_t m = r / P;
  unsigned char* o = out.reserve(4 * P + r);
  unsigned char* raw = o + 4 * P;  // plane j at raw + j * m (P > 1)
  if (P > 1) split_planes(src, r / e, e, t == Transform::kPlanesSignRot, raw);
  const size_t bound = ZSTD_compressBound(m);
  unsigned char* zb = thread_frame_buf().reserve(bound);
  size_t at = 4 * P;
  for (size_t j = 0; j < P; ++j) {
    const unsigned char* plane = P > 1 ? raw + j * m : src;
    size_t zn = m;
    if (P == 1 || !looks_random(plane, m)) {
      ZSTD_CCtx* c = thread_cctx();
      ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
      zcheck(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level == 0 ? 1 : level));
      if (level == 0 && P > 1) set_plane_parameters(c);
      zn = ZSTD_compress2(c, zb, bound, plane, m);
      TSR_CHECK(!ZSTD_isError(zn), TSR_ERR_INTERNAL, "zstd compression: ", ZSTD_getErrorName(zn));
    }
    // Compressed only where it saves at least 1/32 of the plane: near-random
    // planes (low mantissa bytes) are stored, and read back, as they are.
    const bool pays = m > 0 && zn + m / 32 < m;
    put_u32(o + 4 * j, uint32_t(pays ? zn : m));
    // at <= plane's place, and at + zn < the next plane's: nothing later
    // is overwritten.
    if (pays)
      std::memcpy(o + at, zb, zn);
    else if (o + at != plane)
      std::memmove(o + at, plane, m);
    at += pays ? zn : m;
  }
  out.set_size(at);
  hash = content_hash(o, at);
}

// Rethrows the first chunk's error (the lowest index), so a corrupt file
// gives the same message on any thread count.
void rethrow_first(const std::vector<std::exception_ptr>& errs) {
  for (const auto& e : errs)
    if (e) std::rethrow_exception(e);
}

}  // namespace

Transform default_transform(tsr_dtype dtype) {
  switch (dtype) {
    case TSR_FLOAT16:
    case TSR_BFLOAT16:
    case TSR_FLOAT32:
      return Transform::kPlanesSignRot;
    case TSR_FLOAT64:
      return Transform::kPlanes;
    default:
      return Transform::kNone;
  }
}

namespace {

// A tensor's index, padding and footer after its n_chunks chunks of
// lengths/hashes in `index` (16 bytes each, already appended), given the
// chunks' total stored length.
Encoded finish_tensor(std::string& index, uint64_t chunks_len, uint64_t n, uint64_t n_chunks,
                      Transform t, size_t elem_size, size_t C) {
  Encoded res;
  // Padding keeps the stored length different from the raw length.
  const uint16_t pad = chunks_len + index.size() + kFooterBytes == n ? 8 : 0;
  index.append(pad, '\0');
  unsigned char footer[kFooterBytes];
  std::memcpy(footer, kMagic, 4);
  footer[4] = uint8_t(t);
  footer[5] = uint8_t(elem_size);
  footer[6] = uint8_t(pad & 0xff);
  footer[7] = uint8_t(pad >> 8);
  put_u32(footer + 8, uint32_t(C));
  put_u32(footer + 12, uint32_t(n_chunks));
  index.append(reinterpret_cast<const char*>(footer), 16);
  put_u64(footer + 16, content_hash(index.data(), index.size()));
  index.append(reinterpret_cast<const char*>(footer + 16), 8);
  res.length = chunks_len + index.size();
  res.file_hash = content_hash(index.data(), index.size());
  return res;
}

// Raw bytes encoded in one parallel pass: a few chunks per thread, so that
// threads finishing early take more and the output held is bounded.
constexpr size_t kPassBytes = size_t(4) * kChunkBytes;

}  // namespace

void encode_many(const std::vector<EncodeInput>& in, const Sink& sink, const DoneFn& done) {
  struct Job {
    size_t tensor;
    size_t lo, r;  // raw byte range of the chunk in its tensor
  };
  struct State {
    Transform t;
    size_t C, n_chunks;
    std::string index;
    uint64_t chunks_len = 0;
    size_t written = 0;  // chunks given to the sink
  };
  std::vector<State> ts(in.size());
  std::vector<Job> jobs;
  for (size_t i = 0; i < in.size(); ++i) {
    const EncodeInput& x = in[i];
    const size_t e = x.elem_size, n = x.n, C = x.opt.chunk_bytes;
    TSR_CHECK(e > 0 && n % e == 0 && C % e == 0 && C > 0 && C <= kMaxChunkBytes, TSR_ERR_INTERNAL,
              "zstd-planes: ", n, " bytes, element size ", e, ", chunk ", C);
    Transform t = x.opt.transform;
    if (e != 2 && e != 4 && e != 8) t = Transform::kNone;
    const size_t n_chunks = (n + C - 1) / C;
    TSR_CHECK(n_chunks <= UINT32_MAX, TSR_ERR_INVALID_ARGUMENT, "tensor of ", n,
              " bytes needs more than 2^32-1 chunks");
    ts[i].t = t;
    ts[i].C = C;
    ts[i].n_chunks = n_chunks;
    ts[i].index.reserve(n_chunks * kIndexEntryBytes + 8 + kFooterBytes);
    for (size_t c = 0; c < n_chunks; ++c) jobs.push_back(Job{i, c * C, std::min(C, n - c * C)});
  }
  // Finishes (index and footer to the sink) every tensor whose chunks are
  // all written, in order, up to the first that is not; done() is called
  // later, on the caller's thread (run_done), since this may run on a
  // worker.
  size_t next = 0;
  std::vector<std::pair<size_t, Encoded>> finished;
  auto finish_ready = [&] {
    for (; next < in.size() && ts[next].written == ts[next].n_chunks; ++next) {
      State& x = ts[next];
      const Encoded res = finish_tensor(x.index, x.chunks_len, in[next].n, x.n_chunks, x.t,
                                        in[next].elem_size, x.C);
      sink(x.index.data(), x.index.size());
      std::string().swap(x.index);
      finished.emplace_back(next, res);
    }
  };
  auto run_done = [&] {
    for (const auto& f : finished) done(f.first, f.second);
    finished.clear();
  };
  // Two sets of output slots: while one pass encodes into one set, the
  // chunks of the pass before, in the other, are written by one of the
  // threads (the first job taken), so the writes overlap the compression.
  std::vector<Buf> out[2];
  std::vector<uint64_t> hashes[2];
  std::vector<std::exception_ptr> errs;
  size_t prev_first = 0, prev_cnt = 0;  // the pass whose chunks wait for the sink
  auto emit = [&](int set) {
    for (size_t k = 0; k < prev_cnt; ++k) {
      State& x = ts[jobs[prev_first + k].tensor];
      const Buf& b = out[set][k];
      unsigned char entry[kIndexEntryBytes];
      put_u64(entry, b.size());
      put_u64(entry + 8, hashes[set][k]);
      x.index.append(reinterpret_cast<const char*>(entry), sizeof entry);
      sink(b.data(), b.size());
      x.chunks_len += b.size();
      ++x.written;
      finish_ready();
    }
    prev_cnt = 0;
  };
  finish_ready();
  run_done();
  int set = 0;
  for (size_t first = 0; first < jobs.size(); set ^= 1) {
    // One pass: jobs [first, last), at least one, about kPassBytes raw per thread.
    const size_t budget = kPassBytes * size_t(std::max<int64_t>(1, kernels::num_threads()));
    size_t last = first, bytes = 0;
    while (last < jobs.size() && (last == first || bytes + jobs[last].r <= budget))
      bytes += jobs[last++].r;
    const size_t cnt = last - first;
    if (out[set].size() < cnt) out[set].resize(cnt);
    hashes[set].assign(cnt, 0);
    errs.assign(cnt, nullptr);
    const size_t extra = prev_cnt > 0 ? 1 : 0;  // job 0: write the previous pass
    std::exception_ptr emit_err;
    // Threads take the next job as they finish one (tensors differ in
    // size); each job writes only its own slot, so the bytes do not depend
    // on which thread ran it.
    std::atomic<size_t> take{0};
    kernels::parallel_for(kernels::num_threads(), 1, [&](int64_t, int64_t) {
      for (size_t k; (k = take.fetch_add(1, std::memory_order_relaxed)) < cnt + extra;) {
        if (k < extra) {
          try {
            emit(set ^ 1);
          } catch (...) {
            emit_err = std::current_exception();
          }
          continue;
        }
        const size_t kk = k - extra;
        const Job& j = jobs[first + kk];
        try {
          const EncodeInput& x = in[j.tensor];
          encode_chunk(static_cast<const unsigned char*>(x.src) + j.lo, j.r, x.elem_size,
                       ts[j.tensor].t, x.opt.level, out[set][kk], hashes[set][kk]);
        } catch (...) {
          errs[kk] = std::current_exception();
        }
      }
    });
    if (emit_err) std::rethrow_exception(emit_err);  // the earlier bytes' failure first
    rethrow_first(errs);
    run_done();
    prev_first = first;
    prev_cnt = cnt;
    first = last;
  }
  emit(set ^ 1);
  finish_ready();
  run_done();
}

Encoded encode(const void* src, size_t n, size_t elem_size, const EncodeOptions& opt,
               const Sink& sink) {
  Encoded res;
  encode_many({EncodeInput{src, n, elem_size, opt}}, sink,
              [&](size_t, const Encoded& e) { res = e; });
  return res;
}

const unsigned char* Source::get(uint64_t off, uint64_t n, Buf& scratch) const {
  if (mem) {
    TSR_CHECK(off >= base && n <= len && off - base <= len - n, TSR_ERR_INTERNAL,
              "file bytes [", off, ", +", n, ") outside the ones read [", base, ", +", len, ")");
    return mem + (off - base);
  }
  unsigned char* p = scratch.reserve(size_t(n));
  file->read_at(p, n, off);
  return p;
}

Index read_index(const ReadFile& f, uint64_t offset, uint64_t len, uint64_t nbytes,
                 size_t elem_size, const std::string& name) {
  return read_index(Source{&f}, offset, len, nbytes, elem_size, name);
}

Index read_index(const Source& f, uint64_t offset, uint64_t len, uint64_t nbytes,
                 size_t elem_size, const std::string& name) {
  Buf scratch;
  const std::string who = str("tensor ", json_quoted(name), ": ");
  TSR_CHECK(len >= kFooterBytes, TSR_ERR_CORRUPT_FILE, who, "zstd-planes data of ", len,
            " bytes is shorter than its ", kFooterBytes, "-byte footer");
  unsigned char footer[kFooterBytes];
  std::memcpy(footer, f.get(offset + len - kFooterBytes, kFooterBytes, scratch), kFooterBytes);
  TSR_CHECK(std::memcmp(footer, kMagic, 4) == 0, TSR_ERR_CORRUPT_FILE, who,
            "zstd-planes footer (file bytes ", offset + len - kFooterBytes, " to ", offset + len,
            ") does not start with \"TZP2\"");
  Index ix;
  ix.nbytes = nbytes;
  TSR_CHECK(footer[4] <= 2, TSR_ERR_CORRUPT_FILE, who, "unknown zstd-planes transform ",
            int(footer[4]));
  ix.transform = Transform(footer[4]);
  ix.elem_size = footer[5];
  TSR_CHECK(ix.elem_size == elem_size, TSR_ERR_CORRUPT_FILE, who, "zstd-planes footer says ",
            ix.elem_size, "-byte elements, the dtype has ", elem_size);
  TSR_CHECK(ix.transform == Transform::kNone || elem_size == 2 || elem_size == 4 || elem_size == 8,
            TSR_ERR_CORRUPT_FILE, who, "byte planes of ", elem_size, "-byte elements");
  const uint64_t pad = uint64_t(footer[6]) | uint64_t(footer[7]) << 8;
  TSR_CHECK(pad == 0 || pad == 8, TSR_ERR_CORRUPT_FILE, who, "zstd-planes padding of ", pad,
            " bytes (0 or 8 expected)");
  ix.chunk_bytes = get_u32(footer + 8);
  TSR_CHECK(ix.chunk_bytes > 0 && ix.chunk_bytes <= kMaxChunkBytes && ix.chunk_bytes % elem_size == 0,
            TSR_ERR_CORRUPT_FILE, who, "zstd-planes chunk size ", ix.chunk_bytes,
            " (a multiple of the element size up to ", kMaxChunkBytes, " expected)");
  const uint64_t n_chunks = get_u32(footer + 12);
  const uint64_t want = (nbytes + ix.chunk_bytes - 1) / ix.chunk_bytes;
  TSR_CHECK(n_chunks == want, TSR_ERR_CORRUPT_FILE, who, "zstd-planes index lists ", n_chunks,
            " chunks, ", nbytes, " bytes in chunks of ", ix.chunk_bytes, " need ", want);
  const uint64_t tail = n_chunks * kIndexEntryBytes + pad + kFooterBytes;
  TSR_CHECK(tail <= len, TSR_ERR_CORRUPT_FILE, who, "zstd-planes index of ", n_chunks,
            " chunks needs ", tail, " bytes, the data has ", len);
  const unsigned char* p = f.get(offset + len - tail, tail, scratch);
  const uint64_t tail_start = offset + len - tail;
  TSR_CHECK(content_hash(p, tail - 8) == get_u64(footer + 16), TSR_ERR_CORRUPT_FILE, who,
            "zstd-planes index checksum mismatch (file bytes ", tail_start, " to ", offset + len,
            ")");
  ix.file_hash = content_hash(p, tail);
  for (uint64_t i = 0; i < pad; ++i)
    TSR_CHECK(p[n_chunks * kIndexEntryBytes + i] == 0, TSR_ERR_CORRUPT_FILE, who,
              "zstd-planes padding is not zero");
  const size_t P = plane_count(ix.transform, elem_size);
  ix.begin.resize(n_chunks + 1);
  ix.hash.resize(n_chunks);
  uint64_t at = 0;
  for (uint64_t c = 0; c < n_chunks; ++c) {
    const uint64_t sl = get_u64(p + c * kIndexEntryBytes);
    const uint64_t raw = std::min<uint64_t>(ix.chunk_bytes, nbytes - c * ix.chunk_bytes);
    TSR_CHECK(sl >= 4 * P && sl - 4 * P <= raw && sl <= len - tail - at, TSR_ERR_CORRUPT_FILE, who,
              "zstd-planes chunk ", c, " is ", sl, " bytes, outside [", 4 * P, ", ", raw + 4 * P,
              "] or past the index");
    ix.begin[c] = at;
    ix.hash[c] = get_u64(p + c * kIndexEntryBytes + 8);
    at += sl;
  }
  ix.begin[n_chunks] = at;
  TSR_CHECK(at == len - tail, TSR_ERR_CORRUPT_FILE, who, "zstd-planes chunks hold ", at,
            " bytes but ", len - tail, " lie before the index");
  return ix;
}

void decode_range(const ReadFile& f, uint64_t offset, const Index& ix, uint64_t lo, uint64_t hi,
                  void* dst, const std::string& name, bool verify) {
  decode_range(Source{&f}, offset, ix, lo, hi, dst, name, verify);
}

void decode_range(const Source& f, uint64_t offset, const Index& ix, uint64_t lo, uint64_t hi,
                  void* dst, const std::string& name, bool verify) {
  TSR_CHECK(lo <= hi && hi <= ix.nbytes, TSR_ERR_INVALID_ARGUMENT, "byte range [", lo, ", ", hi,
            ") of tensor ", json_quoted(name), " of ", ix.nbytes, " bytes");
  if (lo == hi) return;
  const uint64_t C = ix.chunk_bytes;
  const uint64_t c0 = lo / C, c1 = (hi - 1) / C + 1;
  const size_t P = plane_count(ix.transform, ix.elem_size);
  auto* out = static_cast<unsigned char*>(dst);
  std::vector<std::exception_ptr> errs(c1 - c0);
  kernels::parallel_for(int64_t(c1 - c0), 1, [&](int64_t b, int64_t e) {
    Buf stored_buf;
    std::string whole;
    for (int64_t k = b; k < e; ++k) {
      const uint64_t c = c0 + uint64_t(k);
      const uint64_t rlo = c * C, r = std::min<uint64_t>(C, ix.nbytes - rlo);
      const uint64_t flo = offset + ix.begin[c], fhi = offset + ix.begin[c + 1];
      try {
        auto where = [&] {
          return str("tensor ", json_quoted(name), ": chunk ", c, " (tensor bytes ", rlo, " to ",
                     rlo + r, ", file bytes ", flo, " to ", fhi, ")");
        };
        const uint64_t stored_size = fhi - flo;
        const unsigned char* sp = f.get(flo, stored_size, stored_buf);
        if (verify)
          TSR_CHECK(content_hash(sp, size_t(stored_size)) == ix.hash[c], TSR_ERR_CORRUPT_FILE,
                    where(), ": checksum mismatch, its data was changed since it was written");
        const size_t m = size_t(r / P);
        // The decoded chunk goes straight to dst when all of it is wanted.
        const bool full = rlo >= lo && rlo + r <= hi;
        unsigned char* chunk_dst;
        if (full) {
          chunk_dst = out + (rlo - lo);
        } else {
          whole.resize(r);
          chunk_dst = reinterpret_cast<unsigned char*>(whole.data());
        }
        unsigned char* plane_dst = chunk_dst;
        if (P > 1) plane_dst = thread_planes_buf().reserve(size_t(r));
        const unsigned char* plane_at[8];  // raw planes merge from where they were read
        uint64_t at = 4 * P;
        for (size_t j = 0; j < P; ++j) {
          const uint64_t pl = get_u32(sp + 4 * j);
          TSR_CHECK(pl <= m && pl <= stored_size - at, TSR_ERR_CORRUPT_FILE, where(), ": plane ",
                    j, " of ", pl, " bytes (raw ", m, ") runs past the chunk");
          plane_at[j] = plane_dst + j * m;
          if (pl == m) {
            if (P == 1)
              std::memcpy(plane_dst, sp + at, m);
            else
              plane_at[j] = sp + at;
          } else {
            const size_t got = ZSTD_decompressDCtx(thread_dctx(), plane_dst + j * m, m, sp + at, pl);
            TSR_CHECK(!ZSTD_isError(got) && got == m, TSR_ERR_CORRUPT_FILE, where(), ": plane ", j,
                      " does not decompress to its ", m, " bytes (",
                      ZSTD_isError(got) ? std::string(ZSTD_getErrorName(got)) : str(got, " bytes"), ")");
          }
          at += pl;
        }
        TSR_CHECK(at == stored_size, TSR_ERR_CORRUPT_FILE, where(), ": planes hold ", at - 4 * P,
                  " bytes, the chunk ", stored_size - 4 * P);
        if (P > 1)
          merge_planes_from(plane_at, size_t(r / ix.elem_size), ix.elem_size,
                            ix.transform == Transform::kPlanesSignRot, chunk_dst);
        if (!full) {
          const uint64_t a = std::max(lo, rlo), z = std::min(hi, rlo + r);
          std::memcpy(out + (a - lo), chunk_dst + (a - rlo), z - a);
        }
      } catch (...) {
        errs[size_t(k)] = std::current_exception();
      }
    }
  });
  rethrow_first(errs);
}

}  // namespace tsr::io::planes
