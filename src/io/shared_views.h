// Tensors that share a storage saved once, as their storage, and restored
// as views of one storage (docs/FILE-FORMAT.md, "Views").
//
// Save: tensors of one storage (two or more, same dtype, strides >= 0,
// elements) form a group; the storage's elements spanned by the group are
// written as one ordinary tensor entry: the group's first tensor (by name)
// that is C-contiguous and covers the span exactly, under its own name and
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

// Turns the file's tessera.view.* metadata into views of the tensors they
// name (entries removed from f.metadata; views appended to f's tensors in
// name order; tessera.storage.* entries used by views removed).
// TSR_ERR_CORRUPT_FILE for an entry that is not such JSON, names a missing
// storage or an existing tensor, or reaches outside its storage.
void restore_views(LoadedFile& f);

}  // namespace tsr::io
