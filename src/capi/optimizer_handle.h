// The struct behind tsr_optimizer (optim.h), shared with the schedulers'
// entry points (lr_scheduler_api.cpp), which keep a reference to one.
#pragma once

#include <atomic>
#include <memory>

#include "optim/optimizer.h"

struct tsr_optimizer {
  explicit tsr_optimizer(std::unique_ptr<tsr::optim::Optimizer> o) : impl(std::move(o)) {}
  std::atomic<int64_t> refs{1};
  std::unique_ptr<tsr::optim::Optimizer> impl;
};
