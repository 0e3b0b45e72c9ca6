// Reading a sharded checkpoint of several processes (io/sharded_index.h):
// the rows one rank holds at a given world size, or (rank 0 of 1) whole
// tensors for tsr_load. Only the byte ranges of the rows asked for are
// read, from the chunks that hold them.
#pragma once

#include <cstdint>
#include <string>

#include "io/load.h"
#include "io/sharded_index.h"

namespace tsr::io {

// Reads the index at path: TSR_ERR_IO when it cannot be read,
// TSR_ERR_CORRUPT_FILE when it is not such an index (a Hugging Face
// index, of tsr_save's max_shard_size, is TSR_ERR_UNSUPPORTED: tsr_load
// reads it), or as parse_sharded_index.
ShardedIndex read_sharded_index(const std::string& path);

// Every tensor of ix, by name, cut to rows rank_rows(shape[0], rank,
// world) (sizes [rows, trailing...], a new contiguous CPU tensor each);
// the caller's metadata the index records. First every file the index
// names must exist with its recorded size (TSR_ERR_IO naming a missing
// one, TSR_ERR_CORRUPT_FILE a truncated or replaced one), so a partial
// checkpoint is refused whatever rows are asked for; then each file that
// holds wanted rows is opened (its header verified as tsr_load does) and
// its entries for them compared with the index (dtype, sizes, offsets)
// before anything is allocated. Reads go through read_tensor_range: with
// checksums verified, each chunk read is read whole and its checksum
// checked; with settings.verify_checksums off, only the rows' bytes.
// Errors from a shard name it and the index.
LoadedFile read_sharded_rows(const std::string& index_path, const ShardedIndex& ix, int64_t rank, int64_t world,
                             const LoadSettings& settings);

}  // namespace tsr::io
