#include "io/shards.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/file_index.h"
#include "io/header.h"
#include "io/posix_file.h"
#include "io/quote.h"
#include "io/shared_views.h"
#include "io/sharded_read.h"

namespace tsr::io {

namespace {

constexpr const char* kSuffix = ".safetensors";
constexpr const char* kIndexSuffix = ".index.json";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}
std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string shard_name(const std::string& stem_base, size_t k, size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%05zu-of-%05zu", k, n);
  return stem_base + buf + kSuffix;
}

// Removes "<stem_base>-NNNNN-of-NNNNN.safetensors" files in dir not in keep.
void remove_stale_shards(const std::string& dir, const std::string& stem_base,
                         const std::set<std::string>& keep) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;  // best effort, as io/temp_files.h's cleanup
  std::vector<std::string> stale;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (keep.count(name) || name.size() != stem_base.size() + 15 + std::string(kSuffix).size() ||
        name.compare(0, stem_base.size(), stem_base) != 0 || !ends_with(name, kSuffix))
      continue;
    unsigned a = 0, b = 0;
    char tail[2];
    if (std::sscanf(name.c_str() + stem_base.size(), "-%5u-of-%5u%1s", &a, &b, tail) == 3)
      stale.push_back(name);
  }
  ::closedir(d);
  for (const std::string& name : stale) ::unlink((dir + "/" + name).c_str());
}

}  // namespace

bool is_index_path(const std::string& path) { return ends_with(path, ".json"); }

void save_checkpoint(const std::string& path, std::vector<SaveItem> items,
                     const SaveSettings& settings) {
  TSR_CHECK(settings.max_shard_size >= 0, TSR_ERR_INVALID_ARGUMENT, "max_shard_size is ",
            settings.max_shard_size, " (0 means one file)");
  {  // names are checked over all tensors, before views are grouped
    std::set<std::string> seen;
    for (const SaveItem& it : items)
      TSR_CHECK(seen.insert(it.name).second, TSR_ERR_INVALID_ARGUMENT, "duplicate tensor name ",
                json_quoted(it.name));
  }
  ViewPlan plan;
  if (settings.keep_views) plan = plan_views(std::move(items));
  else plan.items = std::move(items);
  items = std::move(plan.items);
  uint64_t total = 0;
  for (const SaveItem& it : items) total += uint64_t(it.tensor.nbytes());
  if (settings.max_shard_size == 0 || total <= uint64_t(settings.max_shard_size)) {
    SaveSettings s = settings;
    s.internal_metadata = std::move(plan.metadata);
    save_file(path, std::move(items), s);
    return;
  }
  TSR_CHECK(ends_with(path, kSuffix) && base_of(path).size() > std::string(kSuffix).size(),
            TSR_ERR_INVALID_ARGUMENT, "a sharded save needs a path ending in \"", kSuffix,
            "\" (its shards are \"<stem>-00001-of-000NN", kSuffix, "\"), got '", path, "'");
  // Greedy in the caller's order, as huggingface_hub splits a state dict.
  std::vector<std::vector<SaveItem>> shards(1);
  uint64_t in_shard = 0;
  const uint64_t cap = uint64_t(settings.max_shard_size);
  for (SaveItem& it : items) {
    const uint64_t b = uint64_t(it.tensor.nbytes());
    if (!shards.back().empty() && in_shard + b > cap) {
      shards.emplace_back();
      in_shard = 0;
    }
    shards.back().push_back(std::move(it));
    in_shard += b;
  }
  const std::string dir = dir_of(path);
  const std::string stem = path.substr(0, path.size() - std::string(kSuffix).size());
  const std::string stem_base = base_of(stem);
  const std::string index_path = path + kIndexSuffix;
  nlohmann::ordered_json weight_map = nlohmann::ordered_json::object();
  std::map<std::string, std::string> sorted_map;
  std::set<std::string> names;
  std::vector<std::unique_ptr<AtomicWriter>> writers;
  uint64_t done = 0;
  for (size_t k = 0; k < shards.size(); ++k) {
    const std::string file = shard_name(stem_base, k + 1, shards.size());
    names.insert(file);
    uint64_t bytes = 0;
    std::set<std::string> here;
    for (const SaveItem& it : shards[k]) {
      sorted_map[it.name] = file;
      here.insert(it.name);
      bytes += uint64_t(it.tensor.nbytes());
    }
    SaveSettings s = settings;
    // A view goes with its storage: its entry in that shard's metadata,
    // its name in the weight_map.
    for (const auto& [view, storage] : plan.storage_of) {
      if (!here.count(storage)) continue;
      const std::string key = str(kViewKeyPrefix, view);
      s.internal_metadata[key] = plan.metadata.at(key);
      sorted_map[view] = file;
    }
    s.max_shard_size = 0;
    s.progress.offset = done;
    s.progress.whole = total;
    writers.push_back(write_file(dir + "/" + file, std::move(shards[k]), s));
    done += bytes;
  }
  for (const auto& [name, file] : sorted_map) weight_map[name] = file;
  nlohmann::ordered_json index;
  index["metadata"]["total_size"] = total;
  index["weight_map"] = std::move(weight_map);
  const std::string text = index.dump(2) + "\n";
  AtomicWriter iw(index_path);
  iw.write(text.data(), text.size());
  for (auto& w : writers) w->commit();  // every shard complete before any rename
  iw.commit();                          // the index last
  remove_stale_shards(dir, stem_base, names);
}

LoadedFile load_index(const std::string& path, const LoadSettings& settings) {
  std::string text;
  {
    ReadFile f(path);
    TSR_CHECK(f.size() <= kMaxHeaderBytes, TSR_ERR_CORRUPT_FILE, "index '", path, "' is ", f.size(),
              " bytes, above the limit of ", kMaxHeaderBytes);
    text.resize(f.size());
    f.read_at(text.data(), f.size(), 0);
  }
  auto bad = [&](const std::string& why) {
    return Error(TSR_ERR_CORRUPT_FILE, str("index '", path, "': ", why,
                                           " (expected {\"metadata\": {...}, \"weight_map\": "
                                           "{tensor name: shard file name}})"));
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw bad("not valid JSON");
  if (!j.is_object()) throw bad("not a JSON object");
  // An index of tsr_save_sharded (several processes' row blocks): whole
  // tensors are the rows of rank 0 of 1.
  if (is_sharded_index(j)) return read_sharded_rows(path, parse_sharded_index(j, path), 0, 1, settings);
  auto wm = j.find("weight_map");
  if (wm == j.end() || !wm->is_object()) throw bad("no \"weight_map\" object");
  // Shards in the order the sorted names first name them; tensors each.
  std::vector<std::string> files;
  std::map<std::string, std::set<std::string>> wanted;
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    if (!it->is_string())
      throw bad(str("the weight_map entry of ", json_quoted(it.key()), " is not a string"));
    const std::string file = it->get<std::string>();
    if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
      throw bad(str("the weight_map entry of ", json_quoted(it.key()), " is ", json_quoted(file),
                    ", not a file name in the index's directory"));
    if (!wanted.count(file)) files.push_back(file);
    wanted[file].insert(it.key());
  }
  std::vector<LoadedFile> parts;
  uint64_t total = 0;
  std::vector<std::string> paths;
  for (const std::string& file : files) paths.push_back(dir_of(path) + "/" + file);
  // Sizes first (headers only), so progress has its total before any read.
  if (settings.progress) {
    for (const std::string& p : paths) {
      try {
        LoadSettings s = settings;
        FileIndex ix = read_index(p, s);
        for (const TensorEntry& e : ix.header.tensors) total += uint64_t(e.nbytes);
      } catch (const Error& e) {
        throw Error(e.status(), str("shard '", p, "' of index '", path, "': ", e.what()));
      }
    }
  }
  LoadedFile out;
  uint64_t done = 0;
  for (size_t k = 0; k < files.size(); ++k) {
    LoadSettings s = settings;
    s.progress.offset = done;
    s.progress.whole = total;
    LoadedFile part;
    try {
      part = load_file(paths[k], s);
    } catch (const Error& e) {
      if (e.status() == TSR_ERR_CANCELLED) throw;
      throw Error(e.status(), str("shard '", paths[k], "' of index '", path, "': ", e.what()));
    }
    const std::set<std::string>& names = wanted[files[k]];
    for (size_t i = 0; i < part.names.size(); ++i) {
      TSR_CHECK(names.count(part.names[i]), TSR_ERR_CORRUPT_FILE, "index '", path, "': shard '",
                files[k], "' holds tensor ", json_quoted(part.names[i]),
                " which the weight_map does not put there");
      done += uint64_t(part.tensors[i].nbytes());
      out.names.push_back(part.names[i]);
      out.tensors.push_back(part.tensors[i]);
    }
    // Every name the index puts here is here, but the storages of views,
    // which the shard's load does not list (io/shared_views.h).
    const std::set<std::string> have(part.names.begin(), part.names.end());
    for (const std::string& n : names)
      TSR_CHECK(have.count(n) || n.rfind(kStorageNamePrefix, 0) == 0, TSR_ERR_CORRUPT_FILE,
                "index '", path, "': the weight_map puts tensor ", json_quoted(n), " in shard '",
                files[k], "', which has no such tensor (it holds ", part.names.size(), ")");
    if (k == 0) out.metadata = std::move(part.metadata);
  }
  return out;
}

}  // namespace tsr::io
