// The struct behind tsr_process_group, shared by the C entry points that
// take a group (distributed_api.cpp, ddp_api.cpp).
#pragma once

#include <atomic>
#include <memory>

#include <tessera/distributed.h>

#include "distributed/process_group.h"

struct tsr_process_group {
  explicit tsr_process_group(std::shared_ptr<tsr::distributed::ProcessGroup> g) : impl(std::move(g)) {}
  std::atomic<int64_t> refs{1};
  std::shared_ptr<tsr::distributed::ProcessGroup> impl;
};
