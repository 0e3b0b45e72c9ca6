// Scaled dot-product attention on a device (core/device_kernels.h's
// SdpaDeviceArgs), FlashAttention's recurrences with one thread per row:
// the forward makes each query row's logsumexp in one pass over the keys
// (online max and sum), then its output in a second; the backward makes
// D_i = dO_i . O_i and dq per query row, then dk and dv per key row, with
// the probabilities recomputed from the logsumexp (O(L) memory, no (L, S)
// matrix). The semantics, mask, causal rule and dropout words are those
// of the CPU kernel (src/cpu/kernels/attention.cpp), so the same call
// gives the same mask on both. Rows in shared-memory tiles are the next
// step for speed; this is the emulator-tested reference path.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/device_kernels.h"
#include "core/philox.h"
#include "kernels/dtype_access.cuh"

namespace tsr::gpu {

// The score s_ij (scale * q_i . k_j + mask, -inf where masked) of batch
// element b, in compute type C.
template <typename C>
TSR_HOST_DEVICE C sdpa_score(const SdpaDeviceArgs& a, int64_t b, int64_t i, int64_t j) {
  if (a.causal && j > i) return -C(INFINITY);
  C dot = 0;
  const int64_t qi = (b * a.L + i) * a.E, kj = (b * a.S + j) * a.E;
  for (int64_t e = 0; e < a.E; ++e) dot += wide_to<C>(load_wide(a.q, qi + e, a.dtype)) * wide_to<C>(load_wide(a.k, kj + e, a.dtype));
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
