// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), the counter-based generator PyTorch uses on CUDA. A stream
// (seed, position) is a pure function: word k of seed s is lane k % 4 of
// philox(key = s, counter = k / 4). Any device computes any word without
// the ones before it, so a CPU run, a checkpoint replay and a CUDA kernel
// of the same (seed, offset) give the same numbers. Plain C++ with no
// library calls, so device code can include it.
#pragma once

#include <cstdint>

#include "core/host_device.h"

namespace tsr::philox {

struct Block {
  uint32_t w[4];
};

// Philox4x32-10 of a 4-word counter under a 2-word key (Random123's
// philox4x32 with 10 rounds).
TSR_HOST_DEVICE inline Block philox4x32_10(const uint32_t ctr[4], const uint32_t key[2]) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key bumps
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(kM0) * c0, p1 = uint64_t(kM1) * c2;
    c0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    c1 = uint32_t(p1);
    c2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c3 = uint32_t(p0);
    k0 += kW0;
    k1 += kW1;
  }
  return {{c0, c1, c2, c3}};
}

// The 4 words of block `counter` of stream `seed`.
TSR_HOST_DEVICE inline Block block(uint64_t seed, uint64_t counter) {
  const uint32_t ctr[4] = {uint32_t(counter), uint32_t(counter >> 32), 0, 0};
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  return philox4x32_10(ctr, key);
}

// Words first, first+1, ..., first+n-1 of stream `seed` into out: the
// same words Stream gives, computed 16 blocks at a time in plain arrays so
// the compiler can vectorise the rounds (the 32x32->64 multiplies map to
// SIMD multiplies on x86-64 and ARM).
inline void fill_words(uint64_t seed, uint64_t first, uint64_t n, uint32_t* out) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  constexpr int kLanes = 16;
  uint64_t k = 0;
  // Unaligned head: word by word up to a block boundary.
  if (first % 4 != 0) {
    Block b = block(seed, first / 4);
    for (; k < n && (first + k) % 4 != 0; ++k) out[k] = b.w[(first + k) % 4];
  }
  while (k < n) {
    const uint64_t block0 = (first + k) / 4;
    uint32_t c0[kLanes], c1[kLanes], c2[kLanes], c3[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      c0[l] = uint32_t(block0 + l);
      c1[l] = uint32_t((block0 + l) >> 32);
      c2[l] = c3[l] = 0;
    }
    uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      for (int l = 0; l < kLanes; ++l) {
        const uint64_t p0 = uint64_t(kM0) * c0[l], p1 = uint64_t(kM1) * c2[l];
        const uint32_t n0 = uint32_t(p1 >> 32) ^ c1[l] ^ k0, n2 = uint32_t(p0 >> 32) ^ c3[l] ^ k1;
        c1[l] = uint32_t(p1);
        c3[l] = uint32_t(p0);
        c0[l] = n0;
        c2[l] = n2;
      }
      k0 += kW0;
      k1 += kW1;
    }
    for (int l = 0; l < kLanes && k < n; ++l) {
      const uint32_t w[4] = {c0[l], c1[l], c2[l], c3[l]};
      for (int j = 0; j < 4 && k < n; ++j) out[k++] = w[j];
    }
  }
}

// Dropout's draw, the same on every device: element i is kept when the
// 24-bit uniform of word start + i, (word >> 8) / 2^24, is below 1 - p —
// the integer compare (word >> 8) < threshold — and a kept element is
// scaled by 1 / (1 - p) (0 when p == 1, where nothing is kept).
struct DropoutMask {
  uint32_t threshold;
  double scale;
};
inline DropoutMask dropout_mask(double p) {
  const double keep = 1.0 - p, bound = keep * 0x1p24;  // exact: keep has 53 bits
  uint32_t threshold = uint32_t(bound);
  if (double(threshold) < bound) ++threshold;  // ceil
  return {threshold, p < 1.0 ? 1.0 / keep : 0.0};
}

// Words pos, pos+1, ... of stream `seed`, one block computed per 4 words.
class Stream {
 public:
  Stream(uint64_t seed, uint64_t pos) : seed_(seed), pos_(pos), cur_(block(seed, pos / 4)) {}
  uint32_t next() {
    if (pos_ % 4 == 0 && consumed_) cur_ = block(seed_, pos_ / 4);
    consumed_ = true;
    return cur_.w[pos_++ % 4];
  }
  // 53 random bits from two words (a double's mantissa).
  uint64_t next53() {
    const uint64_t hi = next(), lo = next();
    return ((hi << 32) | lo) >> 11;
  }

 private:
  uint64_t seed_, pos_;
  Block cur_;
  bool consumed_ = false;
};

}  // namespace tsr::philox
