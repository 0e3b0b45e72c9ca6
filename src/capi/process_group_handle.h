// The struct behind tsr_process_group (distributed.h), shared by the
// collectives (distributed_api.cpp), the sharded checkpoints
// (sharded_checkpoint_api.cpp) and DistributedDataParallel (ddp_api.cpp).
#pragma once

#include <atomic>
#include <memory>

#include <tessera/distributed.h>

#include "capi/handles.h"
#include "distributed/process_group.h"

struct tsr_process_group {
  explicit tsr_process_group(std::shared_ptr<tsr::distributed::ProcessGroup> g) : impl(std::move(g)) {}
  std::atomic<int64_t> refs{1};
  std::shared_ptr<tsr::distributed::ProcessGroup> impl;
};

namespace tsr::capi {
// The group of a handle; TSR_ERR_INVALID_ARGUMENT ("pg") for NULL.
inline distributed::ProcessGroup& group_of(tsr_process_group* pg) { return *require(pg, "pg")->impl; }
}  // namespace tsr::capi
