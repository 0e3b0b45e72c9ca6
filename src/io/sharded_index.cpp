#include "io/sharded_index.h"

#include <cstdio>
#include <set>

#include "core/dtype.h"
#include "core/error.h"
#include "io/quote.h"
#include "io/st_dtype.h"

namespace tsr::io {

namespace {

constexpr const char* kSuffix = ".safetensors";

// The index's description for messages.
constexpr const char* kExpected =
    "expected {\"format\": \"tessera-sharded-1\", \"generation\", \"world_size\", \"files\": [{\"name\", "
    "\"size\"}], \"tensors\": {name: {\"dtype\", \"shape\", \"chunks\": [{\"file\", \"rows\", "
    "\"offsets\"}]}}}";

using Json = nlohmann::json;

// A non-negative integer member that fits in int64.
uint64_t count_of(const Json& v, const std::string& what, const std::string& path) {
  TSR_CHECK(v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0), TSR_ERR_CORRUPT_FILE,
            "index '", path, "': ", what, " is ", v.dump(), ", not an integer >= 0 (", kExpected, ")");
  const uint64_t u = v.get<uint64_t>();
  TSR_CHECK(u <= uint64_t(INT64_MAX), TSR_ERR_CORRUPT_FILE, "index '", path, "': ", what, " is ", u,
            ", above 2^63-1");
  return u;
}

const Json& member(const Json& obj, const char* key, const std::string& what, const std::string& path) {
  auto it = obj.find(key);
  TSR_CHECK(it != obj.end(), TSR_ERR_CORRUPT_FILE, "index '", path, "': ", what, " has no \"", key, "\" (",
            kExpected, ")");
  return *it;
}

// [a, b] of two integers >= 0 with a <= b.
std::pair<uint64_t, uint64_t> range_of(const Json& v, const std::string& what, const std::string& path) {
  TSR_CHECK(v.is_array() && v.size() == 2, TSR_ERR_CORRUPT_FILE, "index '", path, "': ", what, " is ", v.dump(),
            ", not [begin, end]");
  const uint64_t a = count_of(v[0], what, path), b = count_of(v[1], what, path);
  TSR_CHECK(a <= b, TSR_ERR_CORRUPT_FILE, "index '", path, "': ", what, " is [", a, ", ", b,
            "]: begin after end");
  return {a, b};
}

bool plain_file_name(const std::string& f) {
  return !f.empty() && f.find('/') == std::string::npos && f != "." && f != ".." &&
         f.find('\0') == std::string::npos;
}

}  // namespace

std::pair<int64_t, int64_t> rank_rows(int64_t n, int64_t rank, int64_t world) {
  const int64_t c = n == 0 ? 0 : (n - 1) / world + 1;  // ceil without overflow
  // In 128 bits: (rank + 1) * c may pass 2^63 for n near it.
  const auto clamp = [&](__int128 v) { return int64_t(v < n ? v : n); };
  const int64_t begin = clamp(__int128(rank) * c), end = clamp(__int128(rank + 1) * c);
  return {begin, end};
}

std::string sharded_file_name(const std::string& stem_base, uint64_t generation, int64_t rank, int64_t world) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "-g%llu-%05lld-of-%05lld", (unsigned long long)generation, (long long)rank,
                (long long)world);
  return stem_base + buf + kSuffix;
}

bool parse_sharded_file_name(const std::string& stem_base, const std::string& name, uint64_t* generation) {
  const std::string suffix = kSuffix;
  if (name.size() <= stem_base.size() + suffix.size() || name.compare(0, stem_base.size(), stem_base) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string mid = name.substr(stem_base.size(), name.size() - stem_base.size() - suffix.size());
  unsigned long long g = 0, r = 0, w = 0;
  int used = 0;
  if (std::sscanf(mid.c_str(), "-g%llu-%llu-of-%llu%n", &g, &r, &w, &used) != 3 || size_t(used) != mid.size())
    return false;
  // Exactly the name this generation, rank and world give (no sign, no
  // other padding): only such files are ours to remove.
  if (sharded_file_name(stem_base, g, int64_t(r), int64_t(w)) != name) return false;
  *generation = g;
  return true;
}

bool is_sharded_index(const Json& j) { return j.is_object() && j.contains("format"); }

std::string serialize_sharded_index(const ShardedIndex& ix) {
  // Indented at the top, one line per file and per tensor: a model of
  // thousands of tensors saved by many ranks stays a readable, small file.
  using OJ = nlohmann::ordered_json;
  uint64_t total = 0;
  for (const ShardedTensor& t : ix.tensors) total += uint64_t(t.row_bytes) * uint64_t(t.shape[0]);
  OJ user = OJ::object();
  for (const auto& [k, v] : ix.metadata) user[k] = v;
  std::string out = "{\n";
  out += str("  \"format\": ", OJ(kShardedFormat).dump(), ",\n");
  out += str("  \"generation\": ", ix.generation, ",\n");
  out += str("  \"world_size\": ", ix.world_size, ",\n");
  out += str("  \"metadata\": {\"total_size\": ", total, "},\n");
  out += str("  \"user_metadata\": ", user.dump(), ",\n");
  out += "  \"files\": [";
  for (size_t i = 0; i < ix.files.size(); ++i)
    out += str(i ? "," : "", "\n    ", OJ({{"name", ix.files[i].name}, {"size", ix.files[i].size}}).dump());
  out += ix.files.empty() ? "],\n" : "\n  ],\n";
  out += "  \"tensors\": {";
  for (size_t i = 0; i < ix.tensors.size(); ++i) {
    const ShardedTensor& t = ix.tensors[i];
    OJ e;
    e["dtype"] = st_dtype_name(t.dtype);
    e["shape"] = std::vector<int64_t>(t.shape.begin(), t.shape.end());
    e["chunks"] = OJ::array();
    for (const ShardedChunk& c : t.chunks)
      e["chunks"].push_back({{"file", ix.files.at(c.file).name},
                             {"rows", {c.row_begin, c.row_end}},
                             {"offsets", {c.offset_begin, c.offset_end}}});
    out += str(i ? "," : "", "\n    ", OJ(t.name).dump(), ": ", e.dump());
  }
  out += ix.tensors.empty() ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

ShardedIndex parse_sharded_index(const Json& j, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return Error(TSR_ERR_CORRUPT_FILE, str("index '", path, "': ", why, " (", kExpected, ")"));
  };
  if (!j.is_object()) throw bad("not a JSON object");
  const Json& format = member(j, "format", "the index", path);
  TSR_CHECK(format.is_string() && format.get<std::string>() == kShardedFormat, TSR_ERR_UNSUPPORTED, "index '",
            path, "': format ", format.dump(), "; this build reads \"", kShardedFormat, "\"");
  ShardedIndex ix;
  ix.generation = count_of(member(j, "generation", "the index", path), "\"generation\"", path);
  ix.world_size = int64_t(count_of(member(j, "world_size", "the index", path), "\"world_size\"", path));
  if (ix.world_size < 1) throw bad("\"world_size\" is 0");
  if (auto um = j.find("user_metadata"); um != j.end()) {
    if (!um->is_object()) throw bad("\"user_metadata\" is not an object");
    for (auto it = um->begin(); it != um->end(); ++it) {
      if (!it->is_string()) throw bad(str("\"user_metadata\" entry ", json_quoted(it.key()), " is not a string"));
      ix.metadata[it.key()] = it->get<std::string>();
    }
  }
  const Json& files = member(j, "files", "the index", path);
  if (!files.is_array()) throw bad("\"files\" is not an array");
  std::map<std::string, size_t> file_pos;
  for (const Json& f : files) {
    if (!f.is_object()) throw bad("an entry of \"files\" is not an object");
    const Json& name = member(f, "name", "an entry of \"files\"", path);
    if (!name.is_string() || !plain_file_name(name.get<std::string>()))
      throw bad(str("file name ", name.dump(), " is not a file name in the index's directory"));
    ShardedFile sf{name.get<std::string>(), count_of(member(f, "size", "a file entry", path), "a file size", path)};
    if (!file_pos.emplace(sf.name, ix.files.size()).second)
      throw bad(str("file ", json_quoted(sf.name), " is listed twice"));
    ix.files.push_back(std::move(sf));
  }
  const Json& tensors = member(j, "tensors", "the index", path);
  if (!tensors.is_object()) throw bad("\"tensors\" is not an object");
  for (auto it = tensors.begin(); it != tensors.end(); ++it) {  // nlohmann::json keeps keys sorted
    const std::string what = str("tensor ", json_quoted(it.key()));
    if (!it->is_object()) throw bad(what + " is not an object");
    ShardedTensor t;
    t.name = it.key();
    const Json& dt = member(*it, "dtype", what, path);
    if (!dt.is_string()) throw bad(what + ": \"dtype\" is not a string");
    const DtypeLookup look = st_dtype_from_name(dt.get<std::string>(), &t.dtype);
    TSR_CHECK(look != DtypeLookup::kUnsupported, TSR_ERR_UNSUPPORTED, "index '", path, "': ", what, " has dtype ",
              dt.dump(), ", which this build of tessera lacks");
    if (look != DtypeLookup::kFound) throw bad(str(what, ": dtype ", dt.dump(), " is no safetensors dtype"));
    const Json& shape = member(*it, "shape", what, path);
    if (!shape.is_array() || shape.empty() || int64_t(shape.size()) > kMaxDims)
      throw bad(str(what, ": shape ", shape.dump(), " is not a list of 1 to ", kMaxDims, " sizes"));
    int64_t numel = 1;
    for (const Json& s : shape) {
      const int64_t v = int64_t(count_of(s, what + "'s shape entry", path));
      t.shape.push_back(v);
      if (__builtin_mul_overflow(numel, v, &numel)) throw bad(what + ": its element count overflows int64");
    }
    int64_t bytes = 0;
    if (__builtin_mul_overflow(numel, element_size(t.dtype), &bytes))
      throw bad(what + ": its byte count overflows int64");
    // Checked on its own: with 0 rows numel is 0 whatever the trailing sizes.
    int64_t row_elems = 1;
    for (size_t d = 1; d < t.shape.size(); ++d)
      if (__builtin_mul_overflow(row_elems, t.shape[d], &row_elems)) throw bad(what + ": its row size overflows int64");
    if (__builtin_mul_overflow(row_elems, element_size(t.dtype), &t.row_bytes))
      throw bad(what + ": its row size overflows int64");
    const Json& chunks = member(*it, "chunks", what, path);
    if (!chunks.is_array()) throw bad(what + ": \"chunks\" is not an array");
    int64_t next_row = 0;
    for (const Json& c : chunks) {
      if (!c.is_object()) throw bad(what + ": a chunk is not an object");
      const Json& file = member(c, "file", what + "'s chunk", path);
      auto fp = file.is_string() ? file_pos.find(file.get<std::string>()) : file_pos.end();
      if (fp == file_pos.end()) throw bad(str(what, ": chunk file ", file.dump(), " is not listed in \"files\""));
      ShardedChunk ch;
      ch.file = fp->second;
      const auto rows = range_of(member(c, "rows", what + "'s chunk", path), what + "'s chunk rows", path);
      ch.row_begin = int64_t(rows.first);
      ch.row_end = int64_t(rows.second);
      if (ch.row_begin != next_row || ch.row_end > t.shape[0])
        throw bad(str(what, ": chunk rows [", ch.row_begin, ", ", ch.row_end, ") do not continue from row ",
                      next_row, " within its ", t.shape[0], " rows"));
      next_row = ch.row_end;
      const auto off = range_of(member(c, "offsets", what + "'s chunk", path), what + "'s chunk offsets", path);
      ch.offset_begin = off.first;
      ch.offset_end = off.second;
      if (ch.offset_end > ix.files[ch.file].size)
        throw bad(str(what, ": chunk offsets [", ch.offset_begin, ", ", ch.offset_end, "] run past the ",
                      ix.files[ch.file].size, " bytes of ", json_quoted(ix.files[ch.file].name)));
      t.chunks.push_back(ch);
    }
    if (next_row != t.shape[0])
      throw bad(str(what, ": its chunks hold rows [0, ", next_row, ") of ", t.shape[0]));
    ix.tensors.push_back(std::move(t));
  }
  return ix;
}

}  // namespace tsr::io
