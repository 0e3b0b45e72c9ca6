// Tensors that share a storage saved once, as their storage, and restored
// as views of one storage (docs/FILE-FORMAT.md, "Views").
//
// Save: tensors of one storage (two or more, same dtype, strides >= 0,
// elements) form a group; the storage's elements spanned by the group are
// written as one ordinary tensor entry: the group's first tensor (in the
// caller's order) that is C-contiguous and covers the span exactly, under its own name and
// shape, or else a 1-D entry "tessera.storage.<k>". Every other tensor of
// the group becomes a "__metadata__" entry
//   "tessera.view.<name>": {"storage":"<entry>","sizes":[..],"strides":[..],
//                           "storage_offset":<elements from the entry's start>}
// Load: each such entry becomes a view of the entry's tensor (one shared
// storage); "tessera.storage.<k>" entries that views use are not listed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/shape.h"
#include "io/load.h"
#include "io/save.h"

namespace tsr::io {

constexpr const char* kViewKeyPrefix = "tessera.view.";
constexpr const char* kStorageNamePrefix = "tessera.storage.";

struct ViewPlan {
  std::vector<SaveItem> items;                  // what is written
  std::map<std::string, std::string> metadata;  // tessera.view.* entries
  std::map<std::string, std::string> storage_of;  // view name -> entry name
};

// Groups items by storage as described above; items alone in their storage
// are written as before.
ViewPlan plan_views(std::vector<SaveItem> items);

// A view entry of a file, checked: tensor `storage` (an index into the
// file's tensors) seen with these sizes, strides and offset (elements from
// its first element).
struct ViewSpec {
  std::string name;
  size_t storage;
  Shape sizes, strides;
  int64_t offset;
};

// Takes the tessera.view.* entries out of metadata and checks each against
// the file's tensors (names[i] has numels[i] elements); in name order.
// TSR_ERR_CORRUPT_FILE as restore_views.
std::vector<ViewSpec> parse_views(std::map<std::string, std::string>& metadata,
                                  const std::vector<std::string>& names,
                                  const std::vector<int64_t>& numels);

// Whether tensor i, called name, is a tessera.storage.* entry that views
// use (not listed by tsr_load or tsr_open_file).
bool hidden_storage(const std::string& name, size_t i, const std::vector<ViewSpec>& views);

// Turns the file's tessera.view.* metadata into views of the tensors they
// name (entries removed from f.metadata; views appended to f's tensors in
// name order; tessera.storage.* entries used by views removed).
// TSR_ERR_CORRUPT_FILE for an entry that is not such JSON, names a missing
// storage or an existing tensor, or reaches outside its storage.
void restore_views(LoadedFile& f);

}  // namespace tsr::io
