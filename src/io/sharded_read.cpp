#include "io/sharded_read.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "core/error.h"
#include "core/factory.h"
#include "io/file_index.h"
#include "io/header.h"
#include "io/posix_file.h"
#include "io/quote.h"

namespace tsr::io {

namespace {

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// A shard opened for reading: its validated header, entries by name.
struct OpenShard {
  FileIndex ix;
  std::map<std::string, size_t> by_name;
};

// A byte range of one chunk, for rows [dst_row, ...) of the result.
struct Piece {
  size_t file, entry;
  uint64_t lo, hi;
  int64_t dst_row;
};

}  // namespace

ShardedIndex read_sharded_index(const std::string& path) {
  std::string text;
  {
    ReadFile f(path);
    TSR_CHECK(f.size() <= kMaxHeaderBytes, TSR_ERR_CORRUPT_FILE, "index '", path, "' is ", f.size(),
              " bytes, above the limit of ", kMaxHeaderBytes);
    text.resize(f.size());
    f.read_at(text.data(), f.size(), 0);
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  TSR_CHECK(!j.is_discarded(), TSR_ERR_CORRUPT_FILE, "index '", path, "': not valid JSON");
  TSR_CHECK(!(j.is_object() && j.contains("weight_map") && !j.contains("format")), TSR_ERR_UNSUPPORTED, "index '",
            path, "' is a Hugging Face index (\"weight_map\": one file per tensor, as tsr_save writes with "
            "max_shard_size), not one of tsr_save_sharded; tsr_load reads it whole");
  return parse_sharded_index(j, path);
}

LoadedFile read_sharded_rows(const std::string& index_path, const ShardedIndex& ix, int64_t rank, int64_t world,
                             const LoadSettings& settings) {
  const std::string dir = dir_of(index_path);
  auto shard_path = [&](size_t f) { return dir + "/" + ix.files[f].name; };
  auto naming = [&](size_t f, const Error& e) {
    return Error(e.status(), str("shard '", shard_path(f), "' of index '", index_path, "': ", e.what()));
  };
  // A partial checkpoint is refused whole, whatever rows are wanted.
  for (size_t f = 0; f < ix.files.size(); ++f) {
    struct stat st;
    if (::stat(shard_path(f).c_str(), &st) != 0)
      fail(TSR_ERR_IO, "shard '", shard_path(f), "' of index '", index_path, "' cannot be opened: ",
           std::strerror(errno), " (a partial checkpoint)");
    TSR_CHECK(S_ISREG(st.st_mode), TSR_ERR_IO, "shard '", shard_path(f), "' of index '", index_path,
              "' is not a regular file");
    TSR_CHECK(uint64_t(st.st_size) == ix.files[f].size, TSR_ERR_CORRUPT_FILE, "shard '", shard_path(f),
              "' of index '", index_path, "' is ", uint64_t(st.st_size), " bytes; the index records ",
              ix.files[f].size, " (truncated, or not the file this checkpoint wrote)");
  }
  std::map<size_t, OpenShard> open;
  auto shard = [&](size_t f) -> OpenShard& {
    auto it = open.find(f);
    if (it != open.end()) return it->second;
    OpenShard s;
    try {
      s.ix = read_index(shard_path(f), settings);
    } catch (const Error& e) {
      throw naming(f, e);
    }
    for (size_t i = 0; i < s.ix.header.tensors.size(); ++i) s.by_name[s.ix.header.tensors[i].name] = i;
    return open.emplace(f, std::move(s)).first->second;
  };

  // Plan: every piece checked against its shard's header before anything
  // is allocated (the shard's own budget check bounds what it can hold).
  std::vector<std::vector<Piece>> plan(ix.tensors.size());
  std::vector<std::pair<int64_t, int64_t>> rows(ix.tensors.size());
  uint64_t total = 0;
  for (size_t t = 0; t < ix.tensors.size(); ++t) {
    const ShardedTensor& st = ix.tensors[t];
    const auto [a, b] = rank_rows(st.shape[0], rank, world);
    rows[t] = {a, b};
    for (const ShardedChunk& c : st.chunks) {
      const int64_t lo = std::max(a, c.row_begin), hi = std::min(b, c.row_end);
      if (lo >= hi) continue;
      OpenShard& s = shard(c.file);
      auto e = s.by_name.find(st.name);
      TSR_CHECK(e != s.by_name.end(), TSR_ERR_CORRUPT_FILE, "shard '", shard_path(c.file), "' of index '",
                index_path, "' has no tensor ", json_quoted(st.name), ", which the index puts there");
      const TensorEntry& te = s.ix.header.tensors[e->second];
      Shape want = st.shape;
      want[0] = c.row_end - c.row_begin;
      TSR_CHECK(te.dtype == st.dtype && te.shape == want && s.ix.data_start + te.begin == c.offset_begin &&
                    s.ix.data_start + te.end == c.offset_end,
                TSR_ERR_CORRUPT_FILE, "shard '", shard_path(c.file), "' of index '", index_path, "': tensor ",
                json_quoted(st.name), " is ", dtype_name(te.dtype), " ", te.shape, " at bytes [",
                s.ix.data_start + te.begin, ", ", s.ix.data_start + te.end, "); the index records ",
                dtype_name(st.dtype), " ", want, " at [", c.offset_begin, ", ", c.offset_end, ")");
      plan[t].push_back(Piece{c.file, e->second, uint64_t(lo - c.row_begin) * uint64_t(st.row_bytes),
                              uint64_t(hi - c.row_begin) * uint64_t(st.row_bytes), lo - a});
    }
    total += uint64_t(b - a) * uint64_t(st.row_bytes);
  }
  TSR_CHECK(settings.max_bytes <= 0 || total <= uint64_t(settings.max_bytes), TSR_ERR_CORRUPT_FILE, "index '",
            index_path, "': the rows to load need ", total, " bytes, above the limit max_bytes = ",
            settings.max_bytes);

  LoadedFile out;
  const std::string what = str("load of '", index_path, "'");
  settings.progress.report(0, total, what);
  uint64_t done = 0;
  for (size_t t = 0; t < ix.tensors.size(); ++t) {
    const ShardedTensor& st = ix.tensors[t];
    Shape sizes = st.shape;
    sizes[0] = rows[t].second - rows[t].first;
    Tensor x = empty(sizes, st.dtype, TSR_CONTIGUOUS_FORMAT, kCpu);
    char* dst = static_cast<char*>(x.data_ptr());
    for (const Piece& p : plan[t]) {
      try {
        read_tensor_range(open.at(p.file).ix, p.entry, p.lo, p.hi, dst + p.dst_row * st.row_bytes);
      } catch (const Error& e) {
        throw naming(p.file, e);
      }
    }
    done += uint64_t(x.nbytes());
    settings.progress.report(done, total, what);
    out.names.push_back(st.name);
    out.tensors.push_back(std::move(x));
  }
  out.metadata = ix.metadata;
  return out;
}

}  // namespace tsr::io
