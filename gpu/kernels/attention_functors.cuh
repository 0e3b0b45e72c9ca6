// Scaled dot-product attention on a device (core/device_kernels.h's
// SdpaDeviceArgs), FlashAttention's recurrences. The forward runs in
// shared-memory tiles (SdpaForwardTiles below: a block of query rows reads
// each tile of keys and values once from global memory, one online-softmax
// update per tile); the per-row form (SdpaForwardFn: the row's logsumexp in
// one pass over the keys, its output in a second) takes head sizes whose
// tile would not fit. The backward makes D_i = dO_i . O_i and dq per query
// row, then dk and dv per key row, with the probabilities recomputed from
// the logsumexp (O(L) memory, no (L, S) matrix). The semantics, mask,
// causal rule and dropout words are those of the CPU kernel
// (src/cpu/kernels/attention.cpp), so the same call gives the same mask on
// both.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/device_kernels.h"
#include "core/philox.h"
#include "kernels/dtype_access.cuh"

namespace tsr::gpu {

// The score s_ij (scale * q_i . k_j + mask, -inf where masked) of batch
// element b, in compute type C.
// scale * dot + mask for key j of row i, the dot product already made
// (-inf where the causal rule or a false bool mask hides the key).
template <typename C>
TSR_HOST_DEVICE C sdpa_masked(const SdpaDeviceArgs& a, int64_t b, int64_t i, int64_t j, C dot) {
  if (a.causal && j > i) return -C(INFINITY);
  C s = C(a.scale) * dot;
  if (a.mask != nullptr) {
    const Wide m = load_wide(a.mask, (b * a.L + i) * a.S + j, a.mask_dtype);
    if (a.mask_dtype == TSR_BOOL) {
      if (m.i == 0) return -C(INFINITY);
    } else {
      s += wide_to<C>(m);
    }
  }
  return s;
}

template <typename C>
TSR_HOST_DEVICE C sdpa_score(const SdpaDeviceArgs& a, int64_t b, int64_t i, int64_t j) {
  if (a.causal && j > i) return -C(INFINITY);
  C dot = 0;
  const int64_t qi = (b * a.L + i) * a.E, kj = (b * a.S + j) * a.E;
  for (int64_t e = 0; e < a.E; ++e) dot += wide_to<C>(load_wide(a.q, qi + e, a.dtype)) * wide_to<C>(load_wide(a.k, kj + e, a.dtype));
  return sdpa_masked<C>(a, b, i, j, dot);
}

// Dropout's factor for (b, i, j): keep_scale or 0 (1 without dropout).
template <typename C>
TSR_HOST_DEVICE C sdpa_dropout(const SdpaDeviceArgs& a, int64_t b, int64_t i, int64_t j) {
  if (!a.dropout) return C(1);
  const uint64_t word = a.start + (uint64_t(b) * uint64_t(a.L) + uint64_t(i)) * uint64_t(a.S) + uint64_t(j);
  const uint32_t w = philox::block(a.seed, word / 4).w[word % 4];
  return (w >> 8) < a.threshold ? C(a.keep_scale) : C(0);
}

template <typename C>
TSR_HOST_DEVICE C sdpa_exp(C x) {
  return C(exp(double(x)));
}

// Query row r = b * L + i: lse[r], and acc[r, :] = sum_j P_ij z_ij v_j in C.
template <typename C>
struct SdpaForwardFn {
  SdpaDeviceArgs a;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const int64_t b = r / a.L, i = r % a.L;
    C m = -C(INFINITY), l = 0;
    for (int64_t j = 0; j < a.S; ++j) {
      const C s = sdpa_score<C>(a, b, i, j);
      if (s == -C(INFINITY)) continue;
      if (s > m) {
        l = l * sdpa_exp<C>(m - s) + C(1);
        m = s;
      } else {
        l += sdpa_exp<C>(s - m);
      }
    }
    // A row with no key taking part: lse -inf, output NaN (torch's composed
    // form: softmax of all -inf).
    const C lse = l > C(0) ? m + C(log(double(l))) : -C(INFINITY);
    static_cast<C*>(a.lse)[r] = lse;
    C* acc = static_cast<C*>(a.acc) + r * a.Ev;
    for (int64_t e = 0; e < a.Ev; ++e) acc[e] = l > C(0) ? C(0) : C(NAN);
    if (!(l > C(0))) return;
    for (int64_t j = 0; j < a.S; ++j) {
      const C s = sdpa_score<C>(a, b, i, j);
      if (s == -C(INFINITY)) continue;
      const C p = sdpa_exp<C>(s - lse) * sdpa_dropout<C>(a, b, i, j);
      if (p == C(0)) continue;
      const int64_t vj = (b * a.S + j) * a.Ev;
      for (int64_t e = 0; e < a.Ev; ++e) acc[e] += p * wide_to<C>(load_wide(a.v, vj + e, a.dtype));
    }
  }
};

// The forward in tiles: block `blk` holds query rows [i0, i0 + kRows) of
// batch element b (one thread per row); every tile of kKeys keys is loaded
// into shared memory by the whole block (K then V, in C), then each thread
// updates its row: the tile's scores, their maximum, one rescaling of the
// row's sum l and output acc (global memory, in C) by exp(m_old - m_new),
// the tile's exp(s - m) added to l and, times z and v_j, to acc. finish()
// divides acc by l and writes lse = m + log(l) (a row with no key: -inf
// and NaN, as the per-row form). Steps, each run by every thread of the
// block with a barrier after it (cuda_launch.cuh's block_tiles_kernel, the
// emulator's emulate_block_tiles): start; (load, consume) per tile; finish.
template <typename C>
struct SdpaForwardTiles {
  static constexpr uint32_t kRows = 64;
  static constexpr uint32_t kKeys = 32;
  // What one thread keeps across tiles (registers on a GPU).
  struct State {
    C m, l;
  };
  using Shared = C;

  SdpaDeviceArgs a;

  // Shared memory per block, in elements of C: a tile of K and one of V.
  TSR_HOST_DEVICE static int64_t shared_elements(const SdpaDeviceArgs& x) { return int64_t(kKeys) * (x.E + x.Ev); }
  TSR_HOST_DEVICE int64_t row_blocks() const { return (a.L + kRows - 1) / kRows; }
  TSR_HOST_DEVICE int64_t blocks() const { return a.batch * row_blocks(); }
  // The block's tiles: every key, or under the causal rule those up to its
  // last row (the same count for every thread of the block).
  TSR_HOST_DEVICE int64_t tiles(int64_t blk) const {
    int64_t keys = a.S;
    if (a.causal) {
      const int64_t last_row = (blk % row_blocks()) * kRows + kRows - 1;
      keys = last_row + 1 < a.S ? last_row + 1 : a.S;
    }
    return (keys + kKeys - 1) / kKeys;
  }

  TSR_HOST_DEVICE void start(int64_t blk, uint32_t t, State& st) const {
    st.m = -C(INFINITY);
    st.l = 0;
    const int64_t i = (blk % row_blocks()) * kRows + t;
    if (i >= a.L) return;
    C* acc = static_cast<C*>(a.acc) + ((blk / row_blocks()) * a.L + i) * a.Ev;
    for (int64_t e = 0; e < a.Ev; ++e) acc[e] = 0;
  }

  // Keys [tile * kKeys, + kKeys) of batch element b into shared: K rows
  // (E each), then V rows (Ev each); slots of keys past S stay unwritten
  // (consume never reads them).
  TSR_HOST_DEVICE void load(int64_t blk, int64_t tile, uint32_t t, C* shared) const {
    const int64_t b = blk / row_blocks(), j0 = tile * kKeys;
    const int64_t keys = a.S - j0 < int64_t(kKeys) ? a.S - j0 : int64_t(kKeys);
    for (int64_t x = t; x < keys * a.E; x += kRows)
      shared[x] = wide_to<C>(load_wide(a.k, (b * a.S + j0) * a.E + x, a.dtype));
    C* vs = shared + int64_t(kKeys) * a.E;
    for (int64_t x = t; x < keys * a.Ev; x += kRows)
      vs[x] = wide_to<C>(load_wide(a.v, (b * a.S + j0) * a.Ev + x, a.dtype));
  }

  TSR_HOST_DEVICE void consume(int64_t blk, int64_t tile, uint32_t t, const C* shared, State& st) const {
    const int64_t b = blk / row_blocks(), i = (blk % row_blocks()) * kRows + t;
    if (i >= a.L) return;
    const int64_t j0 = tile * kKeys;
    const int64_t keys = a.S - j0 < int64_t(kKeys) ? a.S - j0 : int64_t(kKeys);
    const int64_t qi = (b * a.L + i) * a.E;
    C s[kKeys];
    C tile_max = -C(INFINITY);
    bool nan = false;
    for (int64_t jj = 0; jj < keys; ++jj) {
      C dot = 0;
      const C* kj = shared + jj * a.E;
      for (int64_t e = 0; e < a.E; ++e) dot += wide_to<C>(load_wide(a.q, qi + e, a.dtype)) * kj[e];
      s[jj] = sdpa_masked<C>(a, b, i, j0 + jj, dot);
      nan = nan || s[jj] != s[jj];
      if (s[jj] > tile_max) tile_max = s[jj];
    }
    // A NaN score makes the row's sum NaN, as in the per-row form (whose
    // finish then writes lse -inf and a NaN output).
    if (nan) st.l = C(NAN);
    if (tile_max == -C(INFINITY)) return;  // no key of this tile takes part
    C* acc = static_cast<C*>(a.acc) + (b * a.L + i) * a.Ev;
    if (tile_max > st.m) {
      const C rescale = st.m == -C(INFINITY) ? C(0) : sdpa_exp<C>(st.m - tile_max);
      st.l *= rescale;
      for (int64_t e = 0; e < a.Ev; ++e) acc[e] *= rescale;
      st.m = tile_max;
    }
    const C* vs = shared + int64_t(kKeys) * a.E;
    for (int64_t jj = 0; jj < keys; ++jj) {
      if (s[jj] == -C(INFINITY)) continue;
      const C p = sdpa_exp<C>(s[jj] - st.m);
      st.l += p;
      const C pz = p * sdpa_dropout<C>(a, b, i, j0 + jj);
      if (pz == C(0)) continue;
      const C* vj = vs + jj * a.Ev;
      for (int64_t e = 0; e < a.Ev; ++e) acc[e] += pz * vj[e];
    }
  }

  TSR_HOST_DEVICE void finish(int64_t blk, uint32_t t, const State& st) const {
    const int64_t b = blk / row_blocks(), i = (blk % row_blocks()) * kRows + t;
    if (i >= a.L) return;
    const int64_t r = b * a.L + i;
    C* acc = static_cast<C*>(a.acc) + r * a.Ev;
    const bool any = st.l > C(0);
    static_cast<C*>(a.lse)[r] = any ? st.m + C(log(double(st.l))) : -C(INFINITY);
    for (int64_t e = 0; e < a.Ev; ++e) acc[e] = any ? acc[e] / st.l : C(NAN);
  }
};

// dP_ij = z_ij * (dO_i . v_j).
template <typename C>
TSR_HOST_DEVICE C sdpa_dp(const SdpaDeviceArgs& a, int64_t b, int64_t i, int64_t j) {
  C dot = 0;
  const int64_t oi = (b * a.L + i) * a.Ev, vj = (b * a.S + j) * a.Ev;
  for (int64_t e = 0; e < a.Ev; ++e)
    dot += wide_to<C>(load_wide(a.grad_out, oi + e, a.dtype)) * wide_to<C>(load_wide(a.v, vj + e, a.dtype));
  return dot * sdpa_dropout<C>(a, b, i, j);
}

// Query row r: D[r] = dO_r . O_r, and dq[r, :] = scale * sum_j dS_ij k_j
// with dS_ij = P_ij (dP_ij - D_r), in C.
template <typename C>
struct SdpaBackwardQueryFn {
  SdpaDeviceArgs a;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const int64_t b = r / a.L, i = r % a.L;
    C d = 0;
    for (int64_t e = 0; e < a.Ev; ++e)
      d += wide_to<C>(load_wide(a.grad_out, r * a.Ev + e, a.dtype)) * wide_to<C>(load_wide(a.out, r * a.Ev + e, a.dtype));
    static_cast<C*>(a.delta)[r] = d;
    const C lse = static_cast<const C*>(a.lse)[r];
    C* dq = static_cast<C*>(a.acc) + r * a.E;
    for (int64_t e = 0; e < a.E; ++e) dq[e] = 0;
    for (int64_t j = 0; j < a.S; ++j) {
      const C s = sdpa_score<C>(a, b, i, j);
      // A hidden key adds nothing, but in a row with no key at all P is
      // exp(-inf + inf) = NaN, which the CPU kernel (and torch's composed
      // form) carries into the gradients.
      if (s == -C(INFINITY) && lse != -C(INFINITY)) continue;
      const C ds = sdpa_exp<C>(s - lse) * (sdpa_dp<C>(a, b, i, j) - d);
      const int64_t kj = (b * a.S + j) * a.E;
      for (int64_t e = 0; e < a.E; ++e) dq[e] += C(a.scale) * ds * wide_to<C>(load_wide(a.k, kj + e, a.dtype));
    }
  }
};

// Key row r = b * S + j: dk[r, :] = scale * sum_i dS_ij q_i and
// dv[r, :] = sum_i P_ij z_ij dO_i, in C (after SdpaBackwardQueryFn's D).
template <typename C>
struct SdpaBackwardKeyFn {
  SdpaDeviceArgs a;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const int64_t b = r / a.S, j = r % a.S;
    C* dk = static_cast<C*>(a.acc2) + r * a.E;
    C* dv = static_cast<C*>(a.acc3) + r * a.Ev;
    for (int64_t e = 0; e < a.E; ++e) dk[e] = 0;
    for (int64_t e = 0; e < a.Ev; ++e) dv[e] = 0;
    for (int64_t i = 0; i < a.L; ++i) {
      const C s = sdpa_score<C>(a, b, i, j);
      const int64_t row = b * a.L + i;
      const C lse = static_cast<const C*>(a.lse)[row];
      if (s == -C(INFINITY) && lse != -C(INFINITY)) continue;  // as in the query kernel
      const C p = sdpa_exp<C>(s - lse);
      const C z = sdpa_dropout<C>(a, b, i, j);
      if (z != C(0))
        for (int64_t e = 0; e < a.Ev; ++e) dv[e] += p * z * wide_to<C>(load_wide(a.grad_out, row * a.Ev + e, a.dtype));
      const C ds = p * (sdpa_dp<C>(a, b, i, j) - static_cast<const C*>(a.delta)[row]);
      for (int64_t e = 0; e < a.E; ++e) dk[e] += C(a.scale) * ds * wide_to<C>(load_wide(a.q, row * a.E + e, a.dtype));
    }
  }
};

}  // namespace tsr::gpu
