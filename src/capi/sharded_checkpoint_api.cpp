// C API: sharded checkpoints of a process group (distributed.h,
// tsr_save_sharded / tsr_load_sharded) over src/distributed/sharded_*.cpp.
// A rank's own argument errors (other than a NULL group, which cannot
// reach the others) go through the ranks' agreement, so every rank fails
// with them instead of waiting for the one that gave up.
#include <tessera/distributed.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/load_settings.h"
#include "capi/process_group_handle.h"
#include "capi/save_settings.h"
#include "capi/tensor_map_handle.h"
#include "distributed/sharded_checkpoint.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_save_sharded(tsr_process_group* pg, const char* path, int64_t n,
                                       const char* const* names, tsr_tensor* const* local_chunks,
                                       const tsr_save_options* options) {
  return guarded([&] {
    distributed::ProcessGroup& g = group_of(pg);
    std::vector<io::SaveItem> items;
    io::SaveSettings settings;
    const distributed::RankOutcome args = distributed::outcome_of([&] {
      require(path, "path");
      TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "number of tensors is ", n);
      if (n > 0) {
        require(names, "names");
        require(local_chunks, "local_chunks");
      }
      for (int64_t i = 0; i < n; ++i) {
        TSR_CHECK(names[i], TSR_ERR_INVALID_ARGUMENT, "names[", i, "] is NULL");
        TSR_CHECK(local_chunks[i], TSR_ERR_INVALID_ARGUMENT, "local_chunks[", i, "] is NULL");
        items.push_back(io::SaveItem{names[i], local_chunks[i]->tensor});
      }
      settings = save_settings(options);
    });
    distributed::save_sharded(g, path ? path : "", std::move(items), settings, args);
  });
}

TSR_EXTERN tsr_status tsr_load_sharded(tsr_process_group* pg, const char* path, const tsr_load_options* options,
                                       tsr_tensor_map** out) {
  return guarded([&] {
    distributed::ProcessGroup& g = group_of(pg);
    io::LoadSettings settings;
    const distributed::RankOutcome args = distributed::outcome_of([&] {
      require(path, "path");
      require(out, "out");
      settings = load_settings(options);
    });
    io::LoadedFile f = distributed::load_sharded(g, path ? path : "", settings, args);
    *out = new tsr_tensor_map(std::move(f));
  });
}
