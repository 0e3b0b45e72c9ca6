// C API: save/load of named tensors and the loaded-collection handle (io.h).
#include <cstddef>
#include <string>
#include <unordered_map>

#include <tessera/io.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/load_settings.h"
#include "capi/save_settings.h"
#include "capi/struct_size.h"
#include "capi/tensor_map_handle.h"
#include "io/load.h"
#include "io/save.h"
#include "io/shards.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

// The caller's options over TSR_SAVE_OPTIONS_INIT,
// read up to its struct_size (capi/struct_size.h): an older, smaller struct
// gets the defaults of the fields it lacks.
tsr_save_options read_save_options(const tsr_save_options* o) {
  return read_struct(o, tsr_save_options TSR_SAVE_OPTIONS_INIT,
                     TSR_FIRST_VERSION_SIZE(tsr_save_options, compression), "save options",
                     "tsr_save_options");
}

}  // namespace

namespace tsr::capi {
// Also read by tsr_saver_open (capi/saver_api.cpp).
io::SaveSettings save_settings(const tsr_save_options* opts) {
  io::SaveSettings s;
  if (!opts) return s;
  const tsr_save_options given = read_save_options(opts);
  const tsr_save_options* o = &given;
  const int compression = enum_arg(o->compression);  // any int may arrive from C
  TSR_CHECK(compression == TSR_COMPRESSION_NONE || compression == TSR_COMPRESSION_ZSTD ||
                compression == TSR_COMPRESSION_ZSTD_PLANES,
            TSR_ERR_INVALID_ARGUMENT, "unknown compression ", compression);
  s.compression = tsr_compression(compression);
  s.level = o->level;
  s.checksums = o->skip_checksums == 0;
  s.progress.fn = o->progress;
  s.progress.user_data = o->progress_user_data;
  TSR_CHECK(o->max_shard_size >= 0, TSR_ERR_INVALID_ARGUMENT, "max_shard_size is ",
            o->max_shard_size, " (0 means one file)");
  s.max_shard_size = o->max_shard_size;
  s.keep_views = o->flatten_views == 0;
  TSR_CHECK(o->n_metadata >= 0, TSR_ERR_INVALID_ARGUMENT, "n_metadata is ", o->n_metadata);
  if (o->n_metadata > 0) {
    require(o->metadata_keys, "metadata_keys");
    require(o->metadata_values, "metadata_values");
  }
  for (int64_t i = 0; i < o->n_metadata; ++i) {
    const char* k = o->metadata_keys[i];
    const char* v = o->metadata_values[i];
    TSR_CHECK(k && v, TSR_ERR_INVALID_ARGUMENT, "metadata entry ", i, " has a NULL ",
              k ? "value" : "key");
    TSR_CHECK(s.metadata.emplace(k, v).second, TSR_ERR_INVALID_ARGUMENT, "duplicate metadata key \"",
              k, "\"");
  }
  return s;
}
}  // namespace tsr::capi

namespace {

const tsr_tensor_map& map_of(const tsr_tensor_map* m) { return *require(m, "tensor map"); }

}  // namespace

TSR_EXTERN tsr_status tsr_save(const char* path, int64_t n, const char* const* names,
                               tsr_tensor* const* tensors, const tsr_save_options* opts) {
  return guarded([&] {
    require(path, "path");
    TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "number of tensors is ", n);
    if (n > 0) {
      require(names, "names");
      require(tensors, "tensors");
    }
    std::vector<io::SaveItem> items;
    items.reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      TSR_CHECK(names[i], TSR_ERR_INVALID_ARGUMENT, "names[", i, "] is NULL");
      TSR_CHECK(tensors[i], TSR_ERR_INVALID_ARGUMENT, "tensors[", i, "] is NULL");
      items.push_back(io::SaveItem{names[i], tensors[i]->tensor});
    }
    io::save_checkpoint(path, std::move(items), save_settings(opts));
  });
}

TSR_EXTERN tsr_status tsr_load(const char* path, const tsr_load_options* opts,
                               tsr_tensor_map** out) {
  return guarded([&] {
    require(path, "path");
    require(out, "out");
    const io::LoadSettings settings = load_settings(opts);
    io::LoadedFile f = io::is_index_path(path) ? io::load_index(path, settings)
                                                : io::load_file(path, settings);
    *out = new tsr_tensor_map(std::move(f));
  });
}

TSR_EXTERN void tsr_tensor_map_retain(tsr_tensor_map* m) { retain(m); }
TSR_EXTERN void tsr_tensor_map_release(tsr_tensor_map* m) { release(m); }

TSR_EXTERN int64_t tsr_tensor_map_count(const tsr_tensor_map* m) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(map_of(m).file.names.size()); });
}

TSR_EXTERN const char* tsr_tensor_map_name(const tsr_tensor_map* m, int64_t i) {
  return guarded_value<const char*>(nullptr, [&] {
    const auto& names = map_of(m).file.names;
    return names[checked_index(i, names.size(), "tensor")].c_str();
  });
}

TSR_EXTERN int64_t tsr_tensor_map_find(const tsr_tensor_map* m, const char* name) {
  return guarded_value<int64_t>(-1, [&] {
    const auto& idx = map_of(m).index;
    auto it = idx.find(require(name, "name"));
    return it == idx.end() ? int64_t(-1) : it->second;
  });
}

TSR_EXTERN tsr_status tsr_tensor_map_get(const tsr_tensor_map* m, int64_t i, tsr_tensor** out) {
  return guarded([&] {
    const auto& f = map_of(m).file;
    require(out, "out");
    emit(out, f.tensors[checked_index(i, f.tensors.size(), "tensor")]);
  });
}

TSR_EXTERN tsr_status tsr_tensor_map_get_by_name(const tsr_tensor_map* m, const char* name,
                                                 tsr_tensor** out) {
  return guarded([&] {
    const tsr_tensor_map& map = map_of(m);
    require(name, "name");
    require(out, "out");
    auto it = map.index.find(name);
    TSR_CHECK(it != map.index.end(), TSR_ERR_INVALID_ARGUMENT, "no tensor named \"", name,
              "\" in the map (", map.file.names.size(), " tensors)");
    emit(out, map.file.tensors[size_t(it->second)]);
  });
}

namespace {
// The i-th metadata pair in key order.
const std::pair<const std::string, std::string>& metadata_at(const tsr_tensor_map* m, int64_t i) {
  const auto& md = map_of(m).metadata;
  return *md[checked_index(i, md.size(), "metadata")];
}
}  // namespace

TSR_EXTERN int64_t tsr_tensor_map_metadata_count(const tsr_tensor_map* m) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(map_of(m).file.metadata.size()); });
}
TSR_EXTERN const char* tsr_tensor_map_metadata_key(const tsr_tensor_map* m, int64_t i) {
  return guarded_value<const char*>(nullptr, [&] { return metadata_at(m, i).first.c_str(); });
}
TSR_EXTERN const char* tsr_tensor_map_metadata_value(const tsr_tensor_map* m, int64_t i) {
  return guarded_value<const char*>(nullptr, [&] { return metadata_at(m, i).second.c_str(); });
}
TSR_EXTERN const char* tsr_tensor_map_metadata_get(const tsr_tensor_map* m, const char* key) {
  return guarded_value<const char*>(nullptr, [&]() -> const char* {
    const auto& md = map_of(m).file.metadata;
    auto it = md.find(require(key, "key"));
    return it == md.end() ? nullptr : it->second.c_str();
  });
}
