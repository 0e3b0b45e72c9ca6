#include "cpu/kernels/nn.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/layout.h"
#include "cpu/kernels/around.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/rows_in_float.h"
#include "cpu/kernels/softmax_simd.h"

namespace tsr::kernels {

Tensor log_softmax(const Tensor& t0, int64_t dim) {
  dim = wrap_dim(dim, t0.ndim());
  Tensor t = contiguous_or_self(t0);
  Tensor out = empty_cpu(t.sizes(), t.dtype());
  if (t.numel() == 0) return out;
  const Around a = around(t.sizes(), dim);
  dispatch_floating(t.dtype(), "log_softmax", [&]<typename T>() {
    using C = acc_t<T>;
    const T* x = t.data<T>();
    T* y = out.data<T>();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (a.inner == 1) {  // contiguous rows: vectorized, rows shared by threads
        parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / a.len), [&](int64_t b, int64_t e) {
          simd::log_softmax_rows(x + b * a.len, y + b * a.len, a.len, e - b);
        });
        return;
      }
    } else if (a.inner == 1) {  // 16-bit rows: the float32 kernel on converted rows
      parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / a.len), [&](int64_t b, int64_t e) {
        rows_in_float(x + b * a.len, y + b * a.len, a.len, e - b,
                      [](const float* xf, float* yf, int64_t n) { simd::log_softmax_rows(xf, yf, n, 1); });
      });
      return;
    }
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t i = 0; i < a.inner; ++i) {
        const int64_t base = o * a.len * a.inner + i;
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t k = 0; k < a.len; ++k) mx = std::max(mx, C(x[base + k * a.inner]));
        C s = 0;
        for (int64_t k = 0; k < a.len; ++k) s += std::exp(C(x[base + k * a.inner]) - mx);
        // (x - max) - log(s), as ATen: folding max into one lse = max +
        // log(s) first rounds away log(s)'s low bits when |max| is large
        // (1e4 in float32 keeps only ~1e-3 of it).
        const C log_s = std::log(s);
        for (int64_t k = 0; k < a.len; ++k)
          y[base + k * a.inner] = T(C(C(x[base + k * a.inner]) - mx) - log_s);
      }
  });
  return out;
}

Tensor log_softmax_backward(const Tensor& grad0, const Tensor& output, int64_t dim) {
  Tensor g = contiguous_or_self(grad0);
  Tensor out = empty_cpu(output.sizes(), output.dtype());
  if (out.numel() == 0) return out;
  const Around a = around(output.sizes(), dim);
  dispatch_floating(output.dtype(), "log_softmax backward", [&]<typename T>() {
    using C = acc_t<T>;
    const T* gy = g.data<T>();
    const T* y = output.data<T>();
    T* gx = out.data<T>();
    if constexpr (is_16bit_float_v<T>) {
      if (a.inner == 1) {  // 16-bit rows converted in bulk; the loop below's float math
        parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / a.len), [&](int64_t b, int64_t e) {
          rows2_in_float(gy + b * a.len, y + b * a.len, gx + b * a.len, a.len, e - b,
                         [](const float* gf, const float* yf, float* of, int64_t n) {
                           float s = 0;
                           for (int64_t k = 0; k < n; ++k) s += gf[k];
                           for (int64_t k = 0; k < n; ++k) of[k] = gf[k] - std::exp(yf[k]) * s;
                         });
        });
        return;
      }
    }
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t i = 0; i < a.inner; ++i) {
        const int64_t base = o * a.len * a.inner + i;
        C s = 0;
        for (int64_t k = 0; k < a.len; ++k) s += C(gy[base + k * a.inner]);
        for (int64_t k = 0; k < a.len; ++k) {
          const int64_t j = base + k * a.inner;
          gx[j] = T(C(gy[j]) - std::exp(C(y[j])) * s);
        }
      }
  });
  return out;
}

void check_nll_args(const Tensor& logp, const Tensor& target) {
  TSR_CHECK(logp.ndim() == 2, TSR_ERR_SHAPE_MISMATCH, "cross_entropy: expected logits of 2 dims [N, C], got ",
            logp.sizes());
  TSR_CHECK(target.ndim() == 1 && target.sizes()[0] == logp.sizes()[0], TSR_ERR_SHAPE_MISMATCH,
            "Expected input batch_size (", logp.sizes()[0], ") to match target batch_size (",
            target.ndim() == 1 ? target.sizes()[0] : -1, "); target sizes ", target.sizes());
  TSR_CHECK(target.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH,
            "cross_entropy: expected target of dtype int64 (class indices), got ",
            dtype_name(target.dtype()));
}

Tensor nll_loss(const Tensor& logp0, const Tensor& target0) {
  check_nll_args(logp0, target0);
  Tensor logp = contiguous_or_self(logp0), target = contiguous_or_self(target0);
  const int64_t N = logp.sizes()[0], C = logp.sizes()[1];
  const int64_t* tg = target.data<int64_t>();
  for (int64_t i = 0; i < N; ++i)
    TSR_CHECK(tg[i] >= 0 && tg[i] < C, TSR_ERR_INDEX_OUT_OF_RANGE, "Target ", tg[i],
              " is out of bounds (", C, " classes) at batch index ", i);
  Tensor out = empty_cpu({}, logp.dtype());
  dispatch_floating(logp.dtype(), "cross_entropy", [&]<typename T>() {
    const T* x = logp.data<T>();
    double s = 0;
    for (int64_t i = 0; i < N; ++i) s += double(compute_t<T>(x[i * C + tg[i]]));
    *out.data<T>() = T(compute_t<T>(-s / double(N)));  // N == 0: nan, as torch
  });
  return out;
}

Tensor nll_loss_backward(const Tensor& grad, const Shape& logp_sizes, const Tensor& target0) {
  Tensor target = contiguous_or_self(target0);
  const int64_t N = logp_sizes[0], C = logp_sizes[1];
  Tensor out = empty_cpu(logp_sizes, grad.dtype());
  fill(out, 0.0);
  const int64_t* tg = target.data<int64_t>();
  dispatch_floating(grad.dtype(), "cross_entropy backward", [&]<typename T>() {
    const double g = double(compute_t<T>(*grad.data<T>()));
    T* o = out.data<T>();
    for (int64_t i = 0; i < N; ++i) o[i * C + tg[i]] = T(compute_t<T>(-g / double(N)));
  });
  return out;
}

}  // namespace tsr::kernels
