// Checkpoints saved and loaded by every rank of a group, each holding a
// block of rows (dim 0) of every tensor (torch.distributed.checkpoint's
// save_state_dict / load_state_dict for tensors sharded as DTensor's
// Shard(0)). Files and index: io/sharded_index.h, docs/DISTRIBUTED.md.
#pragma once

#include <string>
#include <vector>

#include "distributed/exchange.h"
#include "distributed/process_group.h"
#include "io/load.h"
#include "io/save.h"

namespace tsr::distributed {

// The paths of a checkpoint named by the caller's path: a stem (a trailing
// ".safetensors" dropped), or for a load also the index itself.
struct CheckpointPaths {
  std::string dir;         // the stem's directory
  std::string stem_base;   // the stem's file name
  std::string index;       // "<stem>.safetensors.index.json"
};
// TSR_ERR_INVALID_ARGUMENT for an empty stem name.
CheckpointPaths checkpoint_paths(const std::string& path, bool may_be_index);

// tsr_save_sharded. `args` is this rank's own argument check: a failure
// there fails every rank together (no rank is left waiting). items are
// this rank's rows of each tensor.
void save_sharded(ProcessGroup& pg, const std::string& path, std::vector<io::SaveItem> items,
                  const io::SaveSettings& settings, const RankOutcome& args);

// tsr_load_sharded: this rank's rows of every tensor; fails on every rank
// when it fails on any.
io::LoadedFile load_sharded(ProcessGroup& pg, const std::string& path, const io::LoadSettings& settings,
                            const RankOutcome& args);

}  // namespace tsr::distributed
