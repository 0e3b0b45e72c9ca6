// Sharded checkpoints as Hugging Face writes them (transformers'
// save_pretrained, huggingface_hub's split_torch_state_dict_into_shards):
// "<stem>-00001-of-00003.safetensors", ... and "<stem>.safetensors.index.json"
//   {"metadata": {"total_size": <bytes>}, "weight_map": {name: shard file}}
// next to them.
#pragma once

#include <string>
#include <vector>

#include "io/load.h"
#include "io/save.h"

namespace tsr::io {

// True when path names an index (ends in ".json"): tsr_load reads it with
// load_index.
bool is_index_path(const std::string& path);

// settings.max_shard_size == 0, or the tensors' total bytes within it:
// save_file(path). Otherwise path must end in ".safetensors": the shards
// are written in the tensors' order, a new shard begun whenever the next
// tensor would take the current one past max_shard_size (a larger tensor
// gets a shard of its own), each shard a complete file with the metadata;
// all are written to temporaries first, then renamed one after the other,
// then the index is written (atomically) and shards of an earlier save to
// the same stem that the new index does not name are removed.
void save_checkpoint(const std::string& path, std::vector<SaveItem> items,
                     const SaveSettings& settings);

// Reads an index and every shard it names (file names in the index's
// directory, no '/'), tensors in the order of their shards (shards
// ordered as first named by the sorted weight_map), the metadata of the
// first shard. TSR_ERR_CORRUPT_FILE for an index that is not such JSON,
// a shard that lacks a tensor the index puts there or holds one the index
// does not; TSR_ERR_IO for a shard that cannot be opened (naming it).
LoadedFile load_index(const std::string& path, const LoadSettings& settings);

}  // namespace tsr::io
