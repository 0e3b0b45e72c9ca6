// A seeded random engine (mt19937_64) and the distributions tessera offers.
// Everything is computed with explicit arithmetic (no std:: distributions,
// whose output differs between standard libraries), so a seed gives the same
// numbers everywhere.
#pragma once

#include <cstdint>
#include <random>

#include "core/tensor.h"

namespace tsr {

class Generator {
 public:
  explicit Generator(uint64_t seed) : engine_(seed) {}
  void manual_seed(uint64_t seed) { engine_.seed(seed); }
  uint64_t next_u64() { return engine_(); }
  // Uniform in [0, 1) with `bits` random mantissa bits (<= 53).
  double uniform(int bits) { return double(next_u64() >> (64 - bits)) * std::ldexp(1.0, -bits); }
  // Uniform integer in [0, n), unbiased (Lemire's method).
  uint64_t below(uint64_t n);

 private:
  std::mt19937_64 engine_;
};

// Contiguous tensors of uniform [0,1) / standard normal values (floating
// dtypes only), and a random permutation of [0, n) as int64.
Tensor rand(Generator& g, const Shape& sizes, tsr_dtype dtype);
Tensor randn(Generator& g, const Shape& sizes, tsr_dtype dtype);
Tensor randperm(Generator& g, int64_t n);

}  // namespace tsr
