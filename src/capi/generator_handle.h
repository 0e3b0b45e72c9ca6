// The struct behind tsr_generator, shared by the entry points that draw
// from one (random_api.cpp, optim_api.cpp's initializers).
#pragma once

#include <atomic>
#include <memory>

#include <tessera/types.h>

#include "core/generator.h"

// The generator is shared: a dropout recorded for backward or on a
// checkpoint tape keeps it alive (a replay without preserve_rng_state
// draws from it again).
struct tsr_generator {
  explicit tsr_generator(uint64_t seed) : shared(std::make_shared<tsr::Generator>(seed)), gen(*shared) {}
  std::atomic<int64_t> refs{1};
  std::shared_ptr<tsr::Generator> shared;
  tsr::Generator& gen;
};
