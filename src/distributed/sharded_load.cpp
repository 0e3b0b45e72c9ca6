// tsr_load_sharded: every rank reads the index and the byte ranges of its
// own rows (io/sharded_read.h), then the ranks agree, so a shard missing
// or corrupt for one rank fails them all instead of leaving the others to
// hang in their next collective.
#include "distributed/sharded_checkpoint.h"

#include "core/error.h"
#include "io/sharded_read.h"

namespace tsr::distributed {

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

CheckpointPaths checkpoint_paths(const std::string& path, bool may_be_index) {
  const std::string kSuffix = ".safetensors", kIndex = ".safetensors.index.json";
  std::string stem = path;
  if (may_be_index && ends_with(stem, kIndex)) stem.resize(stem.size() - kIndex.size());
  else if (ends_with(stem, kSuffix)) stem.resize(stem.size() - kSuffix.size());
  CheckpointPaths p;
  const size_t slash = stem.rfind('/');
  p.dir = slash == std::string::npos ? "." : slash == 0 ? "/" : stem.substr(0, slash);
  p.stem_base = slash == std::string::npos ? stem : stem.substr(slash + 1);
  TSR_CHECK(!p.stem_base.empty() && p.stem_base != "." && p.stem_base != "..", TSR_ERR_INVALID_ARGUMENT,
            "path '", path, "' names no checkpoint: it needs a file name stem (\"dir/model\" gives "
            "\"dir/model.safetensors.index.json\" and \"dir/model-g<n>-<rank>-of-<world>.safetensors\")");
  p.index = stem + kIndex;
  return p;
}

io::LoadedFile load_sharded(ProcessGroup& pg, const std::string& path, const io::LoadSettings& settings,
                            const RankOutcome& args) {
  io::LoadedFile out;
  RankOutcome mine = args;
  if (mine.status == TSR_OK)
    mine = outcome_of([&] {
      const CheckpointPaths p = checkpoint_paths(path, true);
      const io::ShardedIndex ix = io::read_sharded_index(p.index);
      out = io::read_sharded_rows(p.index, ix, pg.rank(), pg.size(), settings);
    });
  agree(pg, mine, "tsr_load_sharded");
  return out;
}

}  // namespace tsr::distributed
