// The zstd-planes codec (io/byte_planes.h, io/chunked_codec.h) below the C
// API: byte planes, chunked encode/decode of whole tensors and byte ranges,
// thread-count independence, and corruption of every stored byte; and
// read_tensor_range of a saved file, which reads only the chunks a range
// overlaps; and json_quoted (io/quote.h), which names tensors in headers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/factory.h"
#include "cpu/kernels/threads.h"
#include "io/byte_planes.h"
#include "io/checksum.h"
#include "io/chunked_codec.h"
#include "io/file_index.h"
#include "io/posix_file.h"
#include "io/quote.h"
#include "io/save.h"

namespace {

using namespace tsr;
using namespace tsr::io;

std::string temp_path(const char* leaf) {
  return std::string(::testing::TempDir()) + "codec_" + std::to_string(getpid()) + "_" + leaf;
}

void write_file(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

// Weights-like float32 bits: normal values with a few exponents.
std::vector<float> weights(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 0.05f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::string encode_to_string(const void* src, size_t n, size_t e, planes::Transform t,
                             uint32_t chunk, planes::Encoded* enc = nullptr) {
  std::string out;
  planes::EncodeOptions opt;
  opt.transform = t;
  opt.chunk_bytes = chunk;
  planes::Encoded r = planes::encode(src, n, e, opt, [&](const void* d, size_t len) {
    out.append(static_cast<const char*>(d), len);
  });
  EXPECT_EQ(r.length, out.size());
  EXPECT_NE(r.length, n);
  if (enc) *enc = r;
  return out;
}

TEST(BytePlanes, SplitMergeRoundTripEveryWidthAndRotation) {
  std::vector<unsigned char> src(8 * 37);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (unsigned char)(i * 73 + 5);
  for (size_t e : {1, 2, 4, 8})
    for (bool rot : {false, true}) {
      const size_t n = src.size() / e;
      std::vector<unsigned char> planes(src.size()), back(src.size());
      split_planes(src.data(), n, e, rot, planes.data());
      merge_planes(planes.data(), n, e, rot, back.data());
      EXPECT_EQ(back, src) << "e = " << e << " rot = " << rot;
    }
  // Plane j holds byte j; the rotation moves the sign bit of 0x80000000 to bit 0.
  uint32_t v[2] = {0x80000000u, 0x3f800001u};
  unsigned char p[8];
  split_planes(v, 2, 4, true, p);
  EXPECT_EQ(p[0], 0x01);  // byte 0 of element 0 after rotl1
  EXPECT_EQ(p[6], 0x00);  // byte 3 of element 0: exponent bits only
  EXPECT_EQ(p[7], 0x7f);  // byte 3 of 0x3f800001 << 1
}

TEST(ChunkedCodec, WholeTensorsAndRangesRoundTrip) {
  const std::vector<float> w = weights(10000, 1);
  const size_t n = w.size() * 4;
  for (auto t : {planes::Transform::kNone, planes::Transform::kPlanes,
                 planes::Transform::kPlanesSignRot}) {
    const std::string stored = encode_to_string(w.data(), n, 4, t, 4096);
    const std::string path = temp_path("rt.bin");
    write_file(path, "xyz" + stored);  // at an odd offset
    ReadFile f(path);
    planes::Index ix = planes::read_index(f, 3, stored.size(), n, 4, "w");
    EXPECT_EQ(ix.chunks(), (n + 4095) / 4096);
    std::vector<unsigned char> out(n);
    planes::decode_range(f, 3, ix, 0, n, out.data(), "w", true);
    EXPECT_EQ(std::memcmp(out.data(), w.data(), n), 0);
    std::mt19937 rng(2);
    for (int k = 0; k < 50; ++k) {
      uint64_t a = rng() % (n + 1), b = rng() % (n + 1);
      if (a > b) std::swap(a, b);
      std::vector<unsigned char> part(b - a + 1, 0xee);
      planes::decode_range(f, 3, ix, a, b, part.data(), "w", true);
      EXPECT_EQ(std::memcmp(part.data(), reinterpret_cast<const char*>(w.data()) + a, b - a), 0);
      EXPECT_EQ(part[b - a], 0xee);  // nothing written past the range
    }
    try {
      planes::decode_range(f, 3, ix, 8, n + 1, out.data(), "w", true);
      ADD_FAILURE() << "range past the tensor decoded";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), TSR_ERR_INVALID_ARGUMENT);
    }
    unlink(path.c_str());
  }
}

TEST(ChunkedCodec, PlanesCompressWeightsAndRandomBytesStayRaw) {
  const std::vector<float> w = weights(1 << 18, 4);
  const size_t n = w.size() * 4;
  const size_t grouped = encode_to_string(w.data(), n, 4, planes::Transform::kPlanes, 1 << 19).size();
  const size_t plain = encode_to_string(w.data(), n, 4, planes::Transform::kNone, 1 << 19).size();
  EXPECT_LT(grouped, plain);
  EXPECT_LT(grouped, n * 95 / 100);
  std::vector<unsigned char> rnd(1 << 16);
  std::mt19937 rng(9);
  for (auto& b : rnd) b = (unsigned char)rng();
  // Incompressible: one raw plane per chunk, 4 bytes of plane length each.
  const size_t s = encode_to_string(rnd.data(), rnd.size(), 1, planes::Transform::kNone, 4096).size();
  EXPECT_EQ(s, rnd.size() + 16 * (4 + 16) + 24);
}

TEST(ChunkedCodec, SameBytesOnAnyThreadCount) {
  const std::vector<float> w = weights(300000, 5);
  const int64_t before = kernels::num_threads();
  kernels::set_num_threads(1);
  const std::string one = encode_to_string(w.data(), w.size() * 4, 4, planes::Transform::kPlanes, 65536);
  kernels::set_num_threads(2);
  const std::string two = encode_to_string(w.data(), w.size() * 4, 4, planes::Transform::kPlanes, 65536);
  kernels::set_num_threads(before);
  EXPECT_EQ(one, two);
}

// Every byte of a small encoded tensor, changed, fails read_index or
// decode_range with TSR_ERR_CORRUPT_FILE (checksums verified).
TEST(ChunkedCodec, EveryChangedByteIsCorrupt) {
  const std::vector<float> w = weights(600, 6);
  const size_t n = w.size() * 4;
  const std::string good = encode_to_string(w.data(), n, 4, planes::Transform::kPlanes, 1024);
  const std::string path = temp_path("flip.bin");
  std::vector<unsigned char> out(n);
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = char(bad[i] ^ 0x41);
    write_file(path, bad);
    ReadFile f(path);
    try {
      planes::Index ix = planes::read_index(f, 0, bad.size(), n, 4, "w");
      planes::decode_range(f, 0, ix, 0, n, out.data(), "w", true);
      ADD_FAILURE() << "byte " << i << " of " << good.size() << " changed, decoded";
    } catch (const Error& e) {
      ASSERT_EQ(e.status(), TSR_ERR_CORRUPT_FILE) << e.what();
      ASSERT_NE(std::string(e.what()).find("tensor \"w\": "), std::string::npos) << e.what();
    }
  }
  unlink(path.c_str());
}

// A saved file: read_tensor_range reads only the chunks the range overlaps,
// so a damaged chunk elsewhere does not fail it, and one inside does,
// naming the chunk.
TEST(ChunkedCodec, ReadTensorRangeReadsOnlyOverlappingChunks) {
  const size_t count = 800000;  // 3.2 MB: four chunks of 1 MiB
  std::vector<float> w = weights(count, 7);
  Tensor t = empty(Shape{int64_t(count)}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
  std::memcpy(t.data_ptr(), w.data(), count * 4);
  const std::string path = temp_path("range.safetensors");
  SaveSettings s;
  s.compression = TSR_COMPRESSION_ZSTD_PLANES;
  save_file(path, {SaveItem{"w", t}}, s);
  LoadSettings ls;
  FileIndex ix = read_index(path, ls);
  ASSERT_TRUE(ix.planes);
  const uint64_t a = 1100000, b = 1400000;  // inside chunk 1
  std::vector<unsigned char> part(b - a);
  read_tensor_range(ix, 0, a, b, part.data());
  EXPECT_EQ(std::memcmp(part.data(), reinterpret_cast<const char*>(w.data()) + a, b - a), 0);

  // Damage chunk 3's first stored byte.
  const TensorEntry& e = ix.header.tensors[0];
  planes::Index pi = planes::read_index(*ix.file, ix.data_start + e.begin, e.end - e.begin,
                                        uint64_t(e.nbytes), 4, "w");
  ASSERT_EQ(pi.chunks(), 4u);
  const uint64_t at = ix.data_start + e.begin + pi.begin[3];
  {
    FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, long(at), SEEK_SET);
    int c = std::fgetc(f);
    std::fseek(f, long(at), SEEK_SET);
    std::fputc(c ^ 1, f);
    std::fclose(f);
  }
  FileIndex ix2 = read_index(path, ls);
  read_tensor_range(ix2, 0, a, b, part.data());  // chunk 1 only: fine
  EXPECT_EQ(std::memcmp(part.data(), reinterpret_cast<const char*>(w.data()) + a, b - a), 0);
  try {
    read_tensor_range(ix2, 0, 3150000, 3150008, part.data());
    ADD_FAILURE() << "damaged chunk 3 decoded";
  } catch (const Error& err) {
    EXPECT_EQ(err.status(), TSR_ERR_CORRUPT_FILE);
    EXPECT_NE(std::string(err.what()).find("chunk 3 (tensor bytes 3145728 to 3200000"),
              std::string::npos)
        << err.what();
  }
  try {
    read_tensor_range(ix2, 0, 8, count * 4 + 1, part.data());
    ADD_FAILURE() << "range past the tensor read";
  } catch (const Error& err) {
    EXPECT_EQ(err.status(), TSR_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(err.what()).find("byte range [8, 3200001) of tensor \"w\" of 3200000 bytes"),
              std::string::npos)
        << err.what();
  }
  unlink(path.c_str());
}

// A bool range read checks its bytes (a plain file read without checksums).
TEST(ChunkedCodec, ReadTensorRangeChecksBools) {
  Tensor t = empty(Shape{16}, TSR_BOOL, TSR_CONTIGUOUS_FORMAT, kCpu);
  std::memset(t.data_ptr(), 1, 16);
  const std::string path = temp_path("bools.safetensors");
  SaveSettings s;
  save_file(path, {SaveItem{"b", t}}, s);
  LoadSettings ls;
  ls.verify_checksums = false;
  FileIndex ix = read_index(path, ls);
  {
    FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, long(ix.data_start + 5), SEEK_SET);
    std::fputc(2, f);
    std::fclose(f);
  }
  unsigned char out[16];
  read_tensor_range(ix, 0, 0, 5, out);  // before the bad byte: fine
  try {
    read_tensor_range(ix, 0, 3, 9, out);
    ADD_FAILURE() << "bool byte 2 read";
  } catch (const Error& err) {
    EXPECT_EQ(err.status(), TSR_ERR_CORRUPT_FILE);
    EXPECT_NE(std::string(err.what()).find("tensor \"b\": bool element 5 is byte 2"), std::string::npos)
        << err.what();
  }
  unlink(path.c_str());
}

// Each of read_index's and decode_range's refusals, on stored bytes patched
// by hand; where the index's checksum would catch the patch first, the
// footer is resealed, so the rule itself is what refuses the data.
std::string expect_corrupt(const std::string& stored, uint64_t nbytes, size_t e, bool decode,
                           const std::string& needle) {
  const std::string path = temp_path("craft.bin");
  write_file(path, stored);
  ReadFile f(path);
  std::string msg;
  try {
    planes::Index ix = planes::read_index(f, 0, stored.size(), nbytes, e, "w");
    if (decode) {
      std::vector<unsigned char> out(nbytes);
      planes::decode_range(f, 0, ix, 0, nbytes, out.data(), "w", false);
    }
    ADD_FAILURE() << "accepted; expected: " << needle;
  } catch (const Error& err) {
    EXPECT_EQ(err.status(), TSR_ERR_CORRUPT_FILE);
    msg = err.what();
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("tensor \"w\": ", 0), 0u) << msg;
  }
  unlink(path.c_str());
  return msg;
}

void put32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = char(v >> (8 * i));
}
void put64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + i] = char(v >> (8 * i));
}
// Recomputes the footer's checksum of the index, padding and footer.
void reseal(std::string& s, size_t n_chunks, size_t pad) {
  const size_t tail = n_chunks * 16 + pad + 24;
  put64(s, s.size() - 8, content_hash(s.data() + s.size() - tail, tail - 8));
}

TEST(ChunkedCodec, EveryIndexAndChunkRuleRefusesCraftedData) {
  std::vector<int32_t> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = int32_t(i);
  const size_t n = v.size() * 4;  // 4 chunks of 1024 bytes
  const std::string good = encode_to_string(v.data(), n, 4, planes::Transform::kNone, 1024);
  const size_t F = good.size() - 24;  // the footer

  expect_corrupt(good.substr(good.size() - 10), n, 4, false, "shorter than its 24-byte footer");
  std::string s;
  {
    std::vector<uint8_t> b(512, 7);
    std::string one = encode_to_string(b.data(), b.size(), 1, planes::Transform::kNone, 1024);
    one[one.size() - 24 + 4] = 1;
    one[one.size() - 24 + 5] = 1;
    expect_corrupt(one, b.size(), 1, false, "byte planes of 1-byte elements");
  }
  s = good;
  put32(s, F + 12, 100000);  // n chunks, and a tensor that needs them
  expect_corrupt(s, 100000ull * 1024, 4, false, "zstd-planes index of 100000 chunks needs 1600024 bytes");

  // Nonzero padding: a stored form with 8 padding bytes, made by hand.
  s = good.substr(0, F) + std::string(8, '\0') + good.substr(F);
  s[s.size() - 24 + 6] = 8;
  s[F] = 1;
  reseal(s, 4, 8);
  expect_corrupt(s, n, 4, false, "zstd-planes padding is not zero");
  s[F] = 0;
  reseal(s, 4, 8);  // zero padding of 8 bytes is valid
  {
    const std::string path = temp_path("pad.bin");
    write_file(path, s);
    ReadFile f(path);
    planes::Index ix = planes::read_index(f, 0, s.size(), n, 4, "w");
    std::vector<unsigned char> out(n);
    planes::decode_range(f, 0, ix, 0, n, out.data(), "w", true);
    EXPECT_EQ(std::memcmp(out.data(), v.data(), n), 0);
    unlink(path.c_str());
  }

  const size_t I = F - 4 * 16;  // the index
  s = good;
  put64(s, I, 2);  // chunk 0 shorter than its plane-length field
  reseal(s, 4, 0);
  expect_corrupt(s, n, 4, false, "zstd-planes chunk 0 is 2 bytes, outside [4, 1028]");
  s = good;
  put64(s, I + 16, 5);  // chunk 1 shorter: the chunks no longer tile the range
  reseal(s, 4, 0);
  expect_corrupt(s, n, 4, false, "lie before the index");

  // The chunks' own rules, with verification off (no hashes checked).
  s = good;
  put32(s, 0, 2000);  // plane 0 longer than its raw 1024 bytes
  expect_corrupt(s, n, 4, true, "chunk 0 (tensor bytes 0 to 1024, file bytes 0 to ");
  expect_corrupt(s, n, 4, true, ": plane 0 of 2000 bytes (raw 1024) runs past the chunk");
  s = good;
  {
    // The index gives chunk 0 one byte of chunk 1: its plane no longer fills it.
    auto get64 = [&](size_t at) {
      uint64_t x = 0;
      for (int i = 7; i >= 0; --i) x = x << 8 | (unsigned char)s[at + i];
      return x;
    };
    put64(s, I, get64(I) + 1);
    put64(s, I + 16, get64(I + 16) - 1);
    reseal(s, 4, 0);
  }
  expect_corrupt(s, n, 4, true, " bytes, the chunk ");
  s = good;
  s[4] = char(s[4] ^ 0xff);  // the zstd frame's magic
  expect_corrupt(s, n, 4, true, ": plane 0 does not decompress to its 1024 bytes");
}

// json_quoted's shortcut for printable ASCII gives what nlohmann gives,
// and every other string still goes through nlohmann's escaping.
TEST(JsonQuoted, EqualsNlohmannForPlainAndEscapedNames) {
  const std::vector<std::string> names = {
      "", "w", "layer.0.weight", "a b~{}[]:,/", std::string("\x7f", 1), "quote\"d", "back\\slash",
      "tab\tnew\nline", std::string("nul\0in", 6), "caf\xc3\xa9", "bad\xff utf8", "\x1f"};
  for (const std::string& n : names) {
    const std::string expected =
        nlohmann::json(n).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_EQ(json_quoted(n), expected) << printable(n);
  }
  EXPECT_EQ(json_quoted("layer.0.weight"), "\"layer.0.weight\"");
  EXPECT_EQ(json_quoted("quote\"d"), "\"quote\\\"d\"");
  EXPECT_EQ(json_quoted("bad\xff"), "\"bad\xef\xbf\xbd\"");  // U+FFFD
}

}  // namespace
