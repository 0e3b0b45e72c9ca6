// A seeded, counter-based random generator: Philox4x32-10 (core/philox.h),
// the generator PyTorch uses on CUDA. Its whole state is (seed, offset):
// offset counts the 32-bit words drawn so far. An op reserves the words it
// needs (reserve) and computes each from (seed, position) alone, so the
// same (seed, offset) gives the same numbers on every device, in a
// checkpoint replay, and on every platform (no std:: distributions, whose
// output differs between standard libraries).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/philox.h"
#include "core/tensor.h"

namespace tsr {

class Generator {
 public:
  explicit Generator(uint64_t seed) : seed_(seed) {}
  // torch.Generator.manual_seed: restarts the stream of `seed`.
  void manual_seed(uint64_t seed) {
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset) {
    seed_ = seed;
    offset_ = offset;
  }
  // Takes the next n words of the stream; returns the position of the first.
  uint64_t reserve(uint64_t n) {
    const uint64_t first = offset_;
    offset_ += n;
    return first;
  }
  uint64_t next_u64() {
    philox::Stream s(seed_, reserve(2));
    const uint64_t hi = s.next();
    return (hi << 32) | s.next();
  }
  // Uniform integer in [0, n), unbiased (Lemire's method).
  uint64_t below(uint64_t n);

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// Uniform [0, 1) with `bits` (<= 32) mantissa bits from one word, and with
// 53 bits from two (for float64).
inline double uniform_from_word(uint32_t w, int bits) { return double(w >> (32 - bits)) * std::ldexp(1.0, -bits); }
inline double uniform53(uint64_t bits53) { return double(bits53) * 0x1p-53; }

// Contiguous tensors of uniform [0,1) / standard normal values (floating
// dtypes only), and a random permutation of [0, n) as int64. Element i of
// rand takes word i (two words, 2i and 2i+1, for float64) of the reserved
// range; randn takes four words per pair of elements (Box-Muller).
Tensor rand(Generator& g, const Shape& sizes, tsr_dtype dtype);
Tensor randn(Generator& g, const Shape& sizes, tsr_dtype dtype);
Tensor randperm(Generator& g, int64_t n);

}  // namespace tsr
