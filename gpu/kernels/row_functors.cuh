// (log_)softmax, its backward and the nll loss as phase functors over rows
// (block_rows.cuh; the reductions are in reduce_row.cuh), and the nll
// loss's elementwise backward. Run by one thread per row they walk the row
// in element order, as the CPU's scalar loops (src/cpu/kernels/nn.cpp); the
// CPU's vectorized rows and a block's split round sums differently, within
// a few ULPs.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/block_rows.cuh"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"

namespace tsr::gpu {

// Row r = (o, i) of a contiguous [outer, dim, inner] (log_)softmax, in
// C = float (float16, bfloat16, float32) or double (nn.cpp's acc_t), of
// storage dtype D (a template argument: one typed load per element,
// kShareLoads in flight, scan_share): the row's max, then the sum of exp(x - max),
// then the writes.
template <typename C, tsr_dtype D>
struct SoftmaxFn {
  using Partial = C;
  static constexpr int kPasses = 2;

  bool log;
  void* out;
  const void* in;
  int64_t dim, inner;

  TSR_HOST_DEVICE int64_t base(int64_t r) const { return (r / inner) * dim * inner + r % inner; }

  TSR_HOST_DEVICE C partial(int64_t r, int pass, const BlockThread& t, const C* done) const {
    const int64_t b = base(r);
    auto at = [&](int64_t k) { return wide_to<C>(load_wide(in, b + k * inner, D)); };
    if (pass == 0) {
      // std::max(mx, v) as the CPU writes it: a NaN never becomes the max
      // (it makes the sum NaN instead), so partials are never NaN and
      // their combine is the same max.
      C mx = C(-INFINITY);
      scan_share(t.tid, dim, t.nthreads, at, [&](C v, int64_t) {
        mx = mx < v ? v : mx;
        return true;
      });
      return mx;
    }
    C s = 0;
    const C mx = done[0];
    scan_share(t.tid, dim, t.nthreads, at, [&](C v, int64_t) {
      s += m_exp(C(v - mx));
      return true;
    });
    return s;
  }

  TSR_HOST_DEVICE C combine(int pass, C a, C b) const { return pass == 0 ? (a < b ? b : a) : C(a + b); }

  TSR_HOST_DEVICE void finish(int64_t r, const BlockThread& t, const C* done) const {
    const int64_t b = base(r);
    const C mx = done[0], s = done[1], log_s = m_log(s);
    auto at = [&](int64_t k) { return wide_to<C>(load_wide(in, b + k * inner, D)); };
    scan_share(t.tid, dim, t.nthreads, at, [&](C x, int64_t k) {
      const C shifted = C(x - mx);
      const C y = log ? C(shifted - log_s) : C(m_exp(shifted) / s);
      store_as<C>(out, b + k * inner, D, y);
      return true;
    });
  }
};

// Row r of log_softmax_backward: grad_in = grad - exp(output) * sum(grad),
// storage dtype D as SoftmaxFn's.
template <typename C, tsr_dtype D>
struct LogSoftmaxBackwardFn {
  using Partial = C;
  static constexpr int kPasses = 1;

  void* grad_in;
  const void* grad;
  const void* output;
  int64_t dim, inner;

  TSR_HOST_DEVICE int64_t base(int64_t r) const { return (r / inner) * dim * inner + r % inner; }

  TSR_HOST_DEVICE C partial(int64_t r, int, const BlockThread& t, const C*) const {
    const int64_t b = base(r);
    C s = 0;
    scan_share(
        t.tid, dim, t.nthreads, [&](int64_t k) { return wide_to<C>(load_wide(grad, b + k * inner, D)); },
        [&](C g, int64_t) {
          s += g;
          return true;
        });
    return s;
  }

  TSR_HOST_DEVICE C combine(int, C a, C b) const { return C(a + b); }

  TSR_HOST_DEVICE void finish(int64_t r, const BlockThread& t, const C* done) const {
    const int64_t b = base(r);
    const C s = done[0];
    struct GradOut {
      C g, y;
    };
    scan_share(
        t.tid, dim, t.nthreads,
        [&](int64_t k) {
          const int64_t j = b + k * inner;
          return GradOut{wide_to<C>(load_wide(grad, j, D)), wide_to<C>(load_wide(output, j, D))};
        },
        [&](const GradOut& v, int64_t k) {
          store_as<C>(grad_in, b + k * inner, D, C(v.g - m_exp(v.y) * s));
          return true;
        });
  }
};

// The mean nll loss, one row: the batch (nn.cpp's nll_loss: a double sum,
// in batch order when one thread runs it). A target outside [0, c) makes
// the share's sum, hence the loss, NaN.
struct NllLossFn {
  using Partial = double;
  static constexpr int kPasses = 1;

  void* out;
  const void* logp;
  const int64_t* target;
  tsr_dtype dtype;
  int64_t n, c;

  TSR_HOST_DEVICE double partial(int64_t, int, const BlockThread& t, const double*) const {
    double s = 0;
    for (int64_t i = t.tid; i < n; i += t.nthreads) {
      const int64_t k = target[i];
      if (k < 0 || k >= c) return NAN;
      s += load_wide(logp, i * c + k, dtype).f;
    }
    return s;
  }

  TSR_HOST_DEVICE double combine(int, double a, double b) const { return a + b; }

  TSR_HOST_DEVICE void finish(int64_t, const BlockThread& t, const double* done) const {
    if (t.tid == 0) store_wide(out, 0, dtype, wide_float(-done[0] / double(n)));  // n == 0: NaN, as torch
  }
};

// Element j of grad_logp [n, c]: -(grad / n) at the target, else 0.
struct NllLossBackwardFn {
  void* grad_logp;
  const void* grad;
  const int64_t* target;
  tsr_dtype dtype;
  int64_t n, c;

  TSR_HOST_DEVICE void operator()(int64_t j) const {
    const double g = load_wide(grad, 0, dtype).f;
    const bool hit = target[j / c] == j % c;
    store_wide(grad_logp, j, dtype, wide_float(hit ? -g / double(n) : 0.0));
  }
};

}  // namespace tsr::gpu
