// Functors over rows: f(r) computes output r of a reduction, one (log_)
// softmax row, or the nll loss. One thread per output walks its row in the
// CPU kernel's order (src/cpu/kernels/reduce.cpp, nn.cpp), so the results
// match the CPU's bit for bit wherever the CPU's order is the plain one.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

// Output r of a Sum or Max over args.inner (reduce.cpp's sum/mean/max_dim).
template <typename Index>
struct ReduceFn {
  ReduceKernel op;
  OffsetCalc<3, Index> outer;  // out, indices, in
  OffsetCalc<1, Index> inner;  // in
  int64_t inner_numel;
  void* out;
  tsr_dtype out_dtype;
  int64_t* indices;
  const void* in;
  tsr_dtype in_dtype;
  double scale;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const auto o = outer.get(r);
    const int64_t in_base = int64_t(o.v[2]);
    if (op == ReduceKernel::Sum) {
      // double for floating inputs, int64 (wrapping) for integers and bool.
      Wide acc = is_floating(in_dtype) ? wide_float(0.0) : wide_int(0);
      for (int64_t j = 0; j < inner_numel; ++j) {
        const Wide v = load_wide(in, in_base + int64_t(inner.get(j).v[0]), in_dtype);
        if (acc.is_float) acc.f += v.f;
        else acc.i = wrap_add(acc.i, v.i);
      }
      if (scale != 1.0) acc = wide_float((acc.is_float ? acc.f : double(acc.i)) * scale);
      store_wide(out, int64_t(o.v[0]), out_dtype, acc);
      return;
    }
    // Max: the first maximum; the first NaN is the maximum.
    Wide best = load_wide(in, in_base + int64_t(inner.get(0).v[0]), in_dtype);
    int64_t arg = 0;
    if (!(best.is_float && best.f != best.f)) {
      for (int64_t j = 1; j < inner_numel; ++j) {
        const Wide v = load_wide(in, in_base + int64_t(inner.get(j).v[0]), in_dtype);
        if (v.is_float ? v.f > best.f : v.i > best.i) {
          best = v;
          arg = j;
        } else if (v.is_float && v.f != v.f) {
          best = v;
          arg = j;
          break;
        }
      }
    }
    store_wide(out, int64_t(o.v[0]), out_dtype, best);
    if (indices) indices[int64_t(o.v[1])] = arg;
  }
};

// Row r = (o, i) of a contiguous [outer, dim, inner] (log_)softmax, in
// C = float (float16, bfloat16, float32) or double (nn.cpp's acc_t).
template <typename C>
struct SoftmaxFn {
  bool log;
  void* out;
  const void* in;
  tsr_dtype dtype;
  int64_t dim, inner;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const int64_t base = (r / inner) * dim * inner + r % inner;
    C mx = C(-INFINITY);
    for (int64_t k = 0; k < dim; ++k) {
      const C v = wide_to<C>(load_wide(in, base + k * inner, dtype));
      mx = mx < v ? v : mx;  // std::max(mx, v)
    }
    C s = 0;
    for (int64_t k = 0; k < dim; ++k) s += m_exp(C(wide_to<C>(load_wide(in, base + k * inner, dtype)) - mx));
    const C log_s = m_log(s);
    for (int64_t k = 0; k < dim; ++k) {
      const C shifted = C(wide_to<C>(load_wide(in, base + k * inner, dtype)) - mx);
      const C y = log ? C(shifted - log_s) : C(m_exp(shifted) / s);
      store_as<C>(out, base + k * inner, dtype, y);
    }
  }
};

// Row r of log_softmax_backward: grad_in = grad - exp(output) * sum(grad).
template <typename C>
struct LogSoftmaxBackwardFn {
  void* grad_in;
  const void* grad;
  const void* output;
  tsr_dtype dtype;
  int64_t dim, inner;

  TSR_HOST_DEVICE void operator()(int64_t r) const {
    const int64_t base = (r / inner) * dim * inner + r % inner;
    C s = 0;
    for (int64_t k = 0; k < dim; ++k) s += wide_to<C>(load_wide(grad, base + k * inner, dtype));
    for (int64_t k = 0; k < dim; ++k) {
      const int64_t j = base + k * inner;
      const C g = wide_to<C>(load_wide(grad, j, dtype)), y = wide_to<C>(load_wide(output, j, dtype));
      store_as<C>(grad_in, j, dtype, C(g - m_exp(y) * s));
    }
  }
};

// The mean nll loss, one thread (nn.cpp's nll_loss: a double sum in batch
// order). A target outside [0, c) makes it NaN.
struct NllLossFn {
  void* out;
  const void* logp;
  const int64_t* target;
  tsr_dtype dtype;
  int64_t n, c;

  TSR_HOST_DEVICE void operator()(int64_t) const {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t t = target[i];
      if (t < 0 || t >= c) {
        s = NAN;
        break;
      }
      s += load_wide(logp, i * c + t, dtype).f;
    }
    store_wide(out, 0, dtype, wide_float(-s / double(n)));
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
