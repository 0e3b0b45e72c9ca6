// tsr_save_sharded: every rank writes its rows to a file of its own, rank 0
// writes the index last. The order keeps the previous checkpoint at the
// same path loadable until the new index is in place:
//   1. the ranks exchange what they pass (names, dtypes, sizes) or why
//      their arguments are bad, and rank 0's choice of a new generation;
//      every rank checks the same facts, so all fail together or go on;
//   2. each rank writes "<stem>-g<gen>-<rank>-of-<world>.safetensors"
//      (atomically: a temporary renamed), a name no index refers to yet;
//   3. the ranks exchange the outcome and each file's size and offsets;
//   4. rank 0 writes the index atomically, naming generation gen;
//   5. the ranks learn whether it is in place; only then rank 0 removes
//      the files of other generations and those the previous index named.
// A failure (or a rank killed) before 5 makes every surviving rank remove
// the file it wrote; the previous index and its files are untouched.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "core/dtype.h"
#include "core/error.h"
#include "distributed/sharded_checkpoint.h"
#include "io/file_index.h"
#include "io/posix_file.h"
#include "io/quote.h"
#include "io/sharded_index.h"
#include "io/st_dtype.h"
#include "io/temp_files.h"
#include "io/tensor_bytes.h"

namespace tsr::distributed {

namespace {

using Json = nlohmann::json;
constexpr const char* kWhat = "tsr_save_sharded";

// What rank 0 learns of the directory before a save: the next generation
// (above the previous index's and any file of the stem's pattern left by
// an earlier save) and the files the previous index names.
struct Previous {
  uint64_t next_generation = 1;
  std::set<std::string> files;
};

Previous look_at_directory(const CheckpointPaths& p) {
  Previous prev;
  uint64_t highest = 0;
  try {  // no index, or one that is not JSON: nothing to keep track of
    io::ReadFile f(p.index);
    std::string text(f.size(), '\0');
    f.read_at(text.data(), f.size(), 0);
    const Json j = Json::parse(text, nullptr, false);
    if (j.is_object()) {
      if (auto g = j.find("generation"); g != j.end() && g->is_number_unsigned()) highest = g->get<uint64_t>();
      // Only names of the Hugging Face pattern ("<stem>-00001-of-00003
      // .safetensors", tsr_save's shards) are kept for removal: an index
      // is not trusted to name what may be deleted. Files of this kind of
      // checkpoint are found by their own pattern (remove_unreachable).
      auto add = [&](const Json& name) {
        if (!name.is_string()) return;
        const std::string f = name.get<std::string>();
        unsigned a = 0, b = 0;
        char tail[2];
        char expect[64];
        if (f.size() == p.stem_base.size() + 27 && f.compare(0, p.stem_base.size(), p.stem_base) == 0 &&
            std::sscanf(f.c_str() + p.stem_base.size(), "-%5u-of-%5u.safetensor%1s", &a, &b, tail) == 3 &&
            (std::snprintf(expect, sizeof expect, "-%05u-of-%05u.safetensors", a, b),
             f.compare(p.stem_base.size(), std::string::npos, expect) == 0))
          prev.files.insert(f);
      };
      if (auto fs = j.find("files"); fs != j.end() && fs->is_array())
        for (const Json& f : *fs)
          if (f.is_object() && f.contains("name")) add(f["name"]);
      if (auto wm = j.find("weight_map"); wm != j.end() && wm->is_object())  // tsr_save's Hugging Face index
        for (const Json& f : *wm) add(f);
    }
  } catch (const Error&) {
  }
  if (DIR* d = ::opendir(p.dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      uint64_t g = 0;
      if (io::parse_sharded_file_name(p.stem_base, e->d_name, &g)) highest = std::max(highest, g);
    }
    ::closedir(d);
  }
  TSR_CHECK(highest < std::numeric_limits<uint64_t>::max(), TSR_ERR_IO, "checkpoint generation overflow in '",
            p.dir, "'");
  prev.next_generation = highest + 1;
  return prev;
}

// After the new index is in place: files of the stem's pattern of other
// generations, and those the previous index named, are unreachable.
// Best effort, as io/shards.cpp's removal of stale shards.
void remove_unreachable(const CheckpointPaths& p, uint64_t generation, const std::set<std::string>& keep,
                        const std::set<std::string>& previous) {
  std::vector<std::string> gone;
  if (DIR* d = ::opendir(p.dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      uint64_t g = 0;
      if (io::parse_sharded_file_name(p.stem_base, e->d_name, &g) && g != generation) gone.push_back(e->d_name);
    }
    ::closedir(d);
  }
  for (const std::string& f : previous)
    if (!keep.count(f)) gone.push_back(f);
  // Named temporaries a killed save left (filesystems without O_TMPFILE,
  // or a kill between naming and renaming): their targets had generations
  // no later save writes again, so no AtomicWriter would look for them.
  std::set<std::string> targets;
  if (DIR* d = ::opendir(p.dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      const size_t tmp = name.find(".safetensors.tmp.");
      uint64_t g = 0;
      if (name[0] == '.' && tmp != std::string::npos &&
          io::parse_sharded_file_name(p.stem_base, name.substr(1, tmp - 1 + 12), &g))
        targets.insert(name.substr(1, tmp - 1 + 12));
    }
    ::closedir(d);
  }
  for (const std::string& t : targets) io::remove_stale_temporaries(p.dir, t);
  for (const std::string& f : gone) ::unlink((p.dir + "/" + f).c_str());
}

// This rank's description: path, metadata, and each tensor's name, dtype
// and sizes; rank 0 adds the generation.
Json describe(const std::string& path, const std::vector<io::SaveItem>& items, const io::SaveSettings& s) {
  Json d;
  d["path"] = path;
  d["metadata"] = s.metadata;
  d["tensors"] = Json::array();
  for (const io::SaveItem& it : items)
    d["tensors"].push_back({{"name", it.name},
                            {"dtype", int(it.tensor.dtype())},
                            {"sizes", std::vector<int64_t>(it.tensor.sizes().begin(), it.tensor.sizes().end())}});
  return d;
}

// [4, 5], as tessera's messages print sizes.
std::string sizes_text(const Json& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i].get<int64_t>());
  return out + "]";
}

// The checks every rank makes on every rank's description (the same facts
// everywhere, so the same verdict everywhere). Returns the row counts N.
std::vector<int64_t> check_agreement(const std::vector<Json>& d) {
  const int64_t world = int64_t(d.size());
  const Json& r0 = d[0];
  for (int64_t r = 1; r < world; ++r) {
    const Json& x = d[size_t(r)];
    TSR_CHECK(x["path"] == r0["path"], TSR_ERR_INVALID_ARGUMENT, kWhat, ": rank ", r, " saves to ",
              x["path"].dump(), ", rank 0 to ", r0["path"].dump(), " (every rank passes the same path)");
    TSR_CHECK(x["metadata"] == r0["metadata"], TSR_ERR_INVALID_ARGUMENT, kWhat, ": rank ", r,
              " passes metadata ", x["metadata"].dump(), ", rank 0 ", r0["metadata"].dump(),
              " (every rank passes the same)");
    TSR_CHECK(x["tensors"].size() == r0["tensors"].size(), TSR_ERR_INVALID_ARGUMENT, kWhat, ": rank ", r,
              " passes ", x["tensors"].size(), " tensors, rank 0 ", r0["tensors"].size(),
              " (every rank passes its rows of every tensor)");
    for (size_t i = 0; i < r0["tensors"].size(); ++i) {
      const Json &a = r0["tensors"][i], &b = x["tensors"][i];
      const std::string an = a["name"], bn = b["name"];
      TSR_CHECK(an == bn, TSR_ERR_INVALID_ARGUMENT, kWhat, ": tensor ", i, " is ", io::json_quoted(bn), " on rank ",
                r, ", ", io::json_quoted(an), " on rank 0 (every rank passes the same names in the same order)");
      const tsr_dtype ad = tsr_dtype(a["dtype"].get<int>()), bd = tsr_dtype(b["dtype"].get<int>());
      TSR_CHECK(ad == bd, TSR_ERR_DTYPE_MISMATCH, kWhat, ": tensor ", io::json_quoted(an), " is ", dtype_name(bd),
                " on rank ", r, ", ", dtype_name(ad), " on rank 0");
      Json at = a["sizes"], bt = b["sizes"];
      TSR_CHECK(at.size() == bt.size() && std::equal(at.begin() + 1, at.end(), bt.begin() + 1),
                TSR_ERR_SHAPE_MISMATCH, kWhat, ": tensor ", io::json_quoted(an), " has sizes ", sizes_text(bt),
                " on rank ", r, ", ", sizes_text(at), " on rank 0 (all sizes but dim 0 must match)");
    }
  }
  std::vector<int64_t> rows;
  for (size_t i = 0; i < r0["tensors"].size(); ++i) {
    int64_t n = 0;
    for (const Json& x : d) n += x["tensors"][i]["sizes"][0].get<int64_t>();
    for (int64_t r = 0; r < world; ++r) {
      const int64_t got = d[size_t(r)]["tensors"][i]["sizes"][0].get<int64_t>();
      const auto [b, e] = io::rank_rows(n, r, world);
      const int64_t c = n == 0 ? 0 : (n - 1) / world + 1;
      TSR_CHECK(got == e - b, TSR_ERR_SHAPE_MISMATCH, kWhat, ": rank ", r, " passes ", got, " rows of tensor ",
                io::json_quoted(r0["tensors"][i]["name"].get<std::string>()), "; of its ", n,
                " rows in all, rank ", r, " of ", world, " holds rows [", b, ", ", e, "), ", e - b,
                " rows (rank r holds rows [min(N, r*c), min(N, (r+1)*c)), c = ceil(N / world) = ", c, ")");
    }
    rows.push_back(n);
  }
  return rows;
}

// This rank's own checks, before anything is exchanged.
void check_local(const std::vector<io::SaveItem>& items, const io::SaveSettings& settings) {
  std::set<std::string> seen;
  for (const io::SaveItem& it : items) {
    io::check_tensor_name(it.name);
    TSR_CHECK(seen.insert(it.name).second, TSR_ERR_INVALID_ARGUMENT, kWhat, ": duplicate tensor name ",
              io::json_quoted(it.name));
    TSR_CHECK(it.tensor.ndim() >= 1, TSR_ERR_INVALID_ARGUMENT, kWhat, ": tensor ", io::json_quoted(it.name),
              " is 0-dim; a sharded save splits dim 0 across the ranks");
  }
  io::check_metadata_and_level(settings);
  TSR_CHECK(settings.max_shard_size == 0, TSR_ERR_INVALID_ARGUMENT, kWhat,
            ": max_shard_size must be 0 (each rank writes one file)");
}

}  // namespace

void save_sharded(ProcessGroup& pg, const std::string& path, std::vector<io::SaveItem> items,
                  const io::SaveSettings& settings, const RankOutcome& args) {
  const int rank = pg.rank(), world = pg.size();
  // 1. Arguments and descriptions.
  CheckpointPaths paths;
  Previous prev;
  std::string desc;
  RankOutcome mine = args;
  if (mine.status == TSR_OK)
    mine = outcome_of([&] {
      paths = checkpoint_paths(path, false);
      check_local(items, settings);
      Json d = describe(path, items, settings);
      if (rank == 0) {
        prev = look_at_directory(paths);
        d["generation"] = prev.next_generation;
      }
      desc = d.dump();
    });
  std::vector<Json> descs;
  for (const std::string& s : agree_and_gather(pg, mine, desc, kWhat)) descs.push_back(Json::parse(s));
  const std::vector<int64_t> rows = check_agreement(descs);
  const uint64_t generation = descs[0]["generation"].get<uint64_t>();

  // 2. This rank's file, under a name no index refers to yet.
  const std::string file = io::sharded_file_name(paths.stem_base, generation, rank, world);
  const std::string file_path = paths.dir + "/" + file;
  std::vector<tsr_dtype> dtypes;
  for (const io::SaveItem& it : items) dtypes.push_back(it.tensor.dtype());
  std::unique_ptr<io::AtomicWriter> writer;
  std::string record;
  const RankOutcome wrote = outcome_of([&] {
    io::SaveSettings s = settings;
    s.max_shard_size = 0;
    writer = io::write_file(file_path, std::move(items), s);
    writer->commit();
    // The offsets as written (the writer orders tensors its own way).
    io::LoadSettings ls;
    ls.max_bytes = std::numeric_limits<int64_t>::max();
    ls.verify_checksums = false;
    const io::FileIndex fi = io::read_index(file_path, ls);
    Json rec;
    rec["size"] = fi.file->size();
    for (const io::TensorEntry& e : fi.header.tensors)
      rec["offsets"][e.name] = {fi.data_start + e.begin, fi.data_start + e.end};
    record = rec.dump();
  });
  const bool placed = writer && writer->committed();
  auto remove_mine = [&] {
    if (placed) ::unlink(file_path.c_str());
  };
  std::vector<std::string> records;
  try {
    records = agree_and_gather(pg, wrote, record, str(kWhat, ": writing '", file_path, "'"));
  } catch (...) {
    remove_mine();
    throw;
  }

  // 3. Rank 0: the index, last, atomically.
  RankOutcome indexed;
  bool index_in_place = false;
  std::set<std::string> names;
  if (rank == 0) {
    indexed = outcome_of([&] {
      io::ShardedIndex ix;
      ix.generation = generation;
      ix.world_size = world;
      ix.metadata = settings.metadata;
      std::vector<Json> recs;
      for (int r = 0; r < world; ++r) {
        recs.push_back(Json::parse(records[size_t(r)]));
        ix.files.push_back({io::sharded_file_name(paths.stem_base, generation, r, world),
                            recs.back()["size"].get<uint64_t>()});
        names.insert(ix.files.back().name);
      }
      const Json& tensors = descs[0]["tensors"];
      std::vector<size_t> order(tensors.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return tensors[a]["name"].get<std::string>() < tensors[b]["name"].get<std::string>();
      });
      for (size_t i : order) {
        io::ShardedTensor t;
        t.name = tensors[i]["name"].get<std::string>();
        t.dtype = dtypes[i];
        for (const Json& s : tensors[i]["sizes"]) t.shape.push_back(s.get<int64_t>());
        t.shape[0] = rows[i];
        int64_t row = element_size(t.dtype);
        for (size_t k = 1; k < t.shape.size(); ++k) row *= t.shape[k];
        t.row_bytes = row;
        for (int r = 0; r < world; ++r) {
          const auto [b, e] = io::rank_rows(rows[i], r, world);
          const Json& off = recs[size_t(r)]["offsets"][t.name];
          t.chunks.push_back(io::ShardedChunk{size_t(r), b, e, off[0].get<uint64_t>(), off[1].get<uint64_t>()});
        }
        ix.tensors.push_back(std::move(t));
      }
      const std::string text = io::serialize_sharded_index(ix);
      io::AtomicWriter w(paths.index);
      w.write(text.data(), text.size());
      try {
        w.commit();
      } catch (...) {
        index_in_place = w.committed();
        throw;
      }
      index_in_place = true;
    });
  }
  // 4. Whether the index is in place: "<0|1> <status> <message>" from rank 0.
  // (When this exchange fails, whether rank 0 placed the index is unknown:
  // this rank's file stays; the next save removes it if unreachable.)
  const std::string verdict = all_gather_strings(
      pg, rank == 0 ? str(index_in_place ? 1 : 0, ' ', int(indexed.status), ' ', indexed.message) : std::string())[0];
  const bool in_place = verdict.size() > 0 && verdict[0] == '1';
  const size_t sp = verdict.find(' ', 2);
  const int status = std::atoi(verdict.substr(2, sp == std::string::npos ? std::string::npos : sp - 2).c_str());
  if (!in_place) remove_mine();
  if (in_place && rank == 0) remove_unreachable(paths, generation, names, prev.files);
  if (rank == 0 && indexed.status != TSR_OK) throw Error(indexed.status, indexed.message);
  if (status != TSR_OK)
    fail(tsr_status(status), kWhat, ": writing the index failed on rank 0: ",
         sp == std::string::npos ? "" : verdict.substr(sp + 1));
}

}  // namespace tsr::distributed
