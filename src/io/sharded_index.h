// The index of a sharded checkpoint written by several processes
// (tsr_save_sharded, include/tessera/distributed.h): each rank's file holds
// a block of rows (dim 0) of every tensor; the index, written last, says
// where each block is. Layout in docs/DISTRIBUTED.md ("Sharded
// checkpoints"):
//
//   {"format": "tessera-sharded-1", "generation": 7, "world_size": 4,
//    "metadata": {"total_size": <bytes of all tensors>},
//    "user_metadata": {key: value, ...},
//    "files": [{"name": "<stem>-g7-00000-of-00004.safetensors", "size": <bytes>}, ...],
//    "tensors": {"<name>": {"dtype": "F32", "shape": [10, 3],
//                           "chunks": [{"file": "<file name>", "rows": [0, 3],
//                                       "offsets": [<first byte>, <end byte>]}, ...]}, ...}}
//
// The parser treats the index as hostile input (as io/header_parse.cpp
// does a header): every field checked, sizes checked for overflow.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <tessera/types.h>

#include "core/shape.h"

namespace tsr::io {

constexpr const char* kShardedFormat = "tessera-sharded-1";

struct ShardedChunk {
  size_t file = 0;  // position in ShardedIndex::files
  int64_t row_begin = 0, row_end = 0;
  uint64_t offset_begin = 0, offset_end = 0;  // bytes from the file's start
};

struct ShardedTensor {
  std::string name;
  tsr_dtype dtype = TSR_FLOAT32;
  Shape shape;               // the whole tensor; at least one dim
  int64_t row_bytes = 0;     // bytes of one row (dim 0 index)
  std::vector<ShardedChunk> chunks;  // by rows; they tile [0, shape[0])
};

struct ShardedFile {
  std::string name;  // in the index's directory, no '/'
  uint64_t size = 0;
};

struct ShardedIndex {
  uint64_t generation = 0;
  int64_t world_size = 0;
  std::map<std::string, std::string> metadata;  // the caller's
  std::vector<ShardedFile> files;               // by the saving rank
  std::vector<ShardedTensor> tensors;           // by name
};

// Rows [begin, end) of dim 0 of an n-row tensor that rank holds among
// world: [min(n, rank*c), min(n, (rank+1)*c)), c = ceil(n / world) (torch's
// chunk(), which DTensor's Shard(0) follows).
std::pair<int64_t, int64_t> rank_rows(int64_t n, int64_t rank, int64_t world);

// "<stem_base>-g<generation>-<rank, 5 digits>-of-<world, 5 digits>.safetensors".
std::string sharded_file_name(const std::string& stem_base, uint64_t generation, int64_t rank, int64_t world);
// The generation of a file named as above for stem_base; false when name is
// not such a name.
bool parse_sharded_file_name(const std::string& stem_base, const std::string& name, uint64_t* generation);

// Whether j is an index of this kind (it has a "format" member); such an
// index with another format is refused by parse_sharded_index.
bool is_sharded_index(const nlohmann::json& j);

// The index's text: 2-space indented JSON, as above, ending in a newline.
std::string serialize_sharded_index(const ShardedIndex& ix);

// Validates and reads j (path names the index in messages):
// TSR_ERR_UNSUPPORTED for another "format", TSR_ERR_CORRUPT_FILE for
// anything else that is not as above (chunks that do not tile the rows,
// files not listed, offsets past a file's size, overflowing sizes).
ShardedIndex parse_sharded_index(const nlohmann::json& j, const std::string& path);

}  // namespace tsr::io
