#include "cpu/kernels/normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/factory.h"
#include "cpu/kernels/empty_cpu.h"
#include "core/layout.h"
#include "cpu/kernels/around.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/rows_in_float.h"
#include "cpu/kernels/softmax_simd.h"

namespace tsr::kernels {

void check_softmax_dtype(const Tensor& x, int64_t dim) {
  const tsr_dtype d = x.dtype();
  // float16: torch 1.13 refuses it; torch 2.x computes it in float32 and
  // rounds once (acc_t<Half> below), as tessera does.
  if (is_floating(d)) return;
  const bool last = x.ndim() == 0 || wrap_dim(dim, x.ndim()) == x.ndim() - 1;
  not_implemented("softmax", last ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl", d);
}

Tensor softmax(const Tensor& x0, int64_t dim) {
  dim = wrap_dim(dim, x0.ndim());
  check_softmax_dtype(x0, dim);
  Tensor x = contiguous_or_self(x0);
  Tensor out = empty_cpu(x.sizes(), x.dtype());
  if (x.numel() == 0) return out;
  const Around a = around(x.sizes(), dim);
  dispatch_floating(x.dtype(), "softmax", [&]<typename T>() {
    using C = acc_t<T>;
    const T* in = x.data<T>();
    T* y = out.data<T>();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (a.inner == 1) {  // contiguous rows: vectorized, rows shared by threads
        parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / a.len), [&](int64_t b, int64_t e) {
          simd::softmax_rows(in + b * a.len, y + b * a.len, a.len, e - b);
        });
        return;
      }
    } else if (a.inner == 1) {  // 16-bit rows: the float32 kernel on converted rows
      parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / a.len), [&](int64_t b, int64_t e) {
        rows_in_float(in + b * a.len, y + b * a.len, a.len, e - b,
                      [](const float* xf, float* yf, int64_t n) { simd::softmax_rows(xf, yf, n, 1); });
      });
      return;
    }
    std::vector<C> e(size_t(a.len));
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t i = 0; i < a.inner; ++i) {
        const int64_t base = o * a.len * a.inner + i;
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t k = 0; k < a.len; ++k) {
          const C v = C(in[base + k * a.inner]);
          mx = (v > mx || std::isnan(v)) ? v : mx;  // NaN propagates, as ATen's maximum
        }
        C s = 0;
        for (int64_t k = 0; k < a.len; ++k) s += e[size_t(k)] = std::exp(C(in[base + k * a.inner]) - mx);
        const C r = C(1) / s;
        for (int64_t k = 0; k < a.len; ++k) y[base + k * a.inner] = T(e[size_t(k)] * r);
      }
  });
  return out;
}

Tensor softmax_backward(const Tensor& grad0, const Tensor& y0, int64_t dim) {
  Tensor g = contiguous_or_self(grad0), y = contiguous_or_self(y0);
  Tensor out = empty_cpu(y.sizes(), y.dtype());
  if (out.numel() == 0) return out;
  const Around a = around(y.sizes(), dim);
  dispatch_floating(y.dtype(), "softmax backward", [&]<typename T>() {
    using C = acc_t<T>;
    const T* gy = g.data<T>();
    const T* yy = y.data<T>();
    T* gx = out.data<T>();
    if constexpr (is_16bit_float_v<T>) {
      if (a.inner == 1) {  // 16-bit rows converted in bulk; the loop below's float math
        parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / a.len), [&](int64_t b, int64_t e) {
          rows2_in_float(gy + b * a.len, yy + b * a.len, gx + b * a.len, a.len, e - b,
                         [](const float* gf, const float* yf, float* of, int64_t n) {
                           float s = 0;
                           for (int64_t k = 0; k < n; ++k) s += gf[k] * yf[k];
                           for (int64_t k = 0; k < n; ++k) of[k] = yf[k] * (gf[k] - s);
                         });
        });
        return;
      }
    }
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t i = 0; i < a.inner; ++i) {
        const int64_t base = o * a.len * a.inner + i;
        C s = 0;
        for (int64_t k = 0; k < a.len; ++k) s += C(gy[base + k * a.inner]) * C(yy[base + k * a.inner]);
        for (int64_t k = 0; k < a.len; ++k) {
          const int64_t j = base + k * a.inner;
          gx[j] = T(C(yy[j]) * (C(gy[j]) - s));
        }
      }
  });
  return out;
}

// ---- layer_norm -------------------------------------------------------------

void check_layer_norm(const Tensor& x, const Shape& ns, const Tensor& w, const Tensor& b) {
  TSR_CHECK(!ns.empty(), TSR_ERR_SHAPE_MISMATCH,
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
            "element, but got normalized_shape = ", ns);
  TSR_CHECK(!w.defined() || w.sizes() == ns, TSR_ERR_SHAPE_MISMATCH,
            "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
            w.sizes(), " and normalized_shape = ", ns);
  TSR_CHECK(!b.defined() || b.sizes() == ns, TSR_ERR_SHAPE_MISMATCH,
            "Expected bias to be of same shape as normalized_shape, but got bias of shape ", b.sizes(),
            " and normalized_shape = ", ns);
  const int64_t nd = x.ndim(), nn = int64_t(ns.size());
  bool fits = nd >= nn;
  for (int64_t i = 0; fits && i < nn; ++i) fits = x.sizes()[nd - nn + i] == ns[i];
  if (!fits) {
    std::string star = "[*";
    for (int64_t v : ns) star += ", " + std::to_string(v);
    fail(TSR_ERR_SHAPE_MISMATCH, "Given normalized_shape=", ns, ", expected input with shape ", star,
         "], but got input of size", x.sizes());
  }
  const tsr_dtype d = x.dtype();
  if (!is_floating(d))  // float16 included: torch 2.x's rule (torch 1.13 refuses it)
    not_implemented("layer_norm", "LayerNormKernelImpl", d);
  for (const Tensor* p : {&w, &b})
    TSR_CHECK(!p->defined() || p->dtype() == d, TSR_ERR_DTYPE_MISMATCH, "expected scalar type ",
              scalar_type_name(d), " but found ", scalar_type_name(p->dtype()), " (layer_norm: input ",
              dtype_name(d), ", ", p == &w ? "weight " : "bias ", dtype_name(p->dtype()), ")");
}

namespace {
// Rows [M, N] of x for normalized_shape.
std::pair<int64_t, int64_t> rows_of(const Tensor& x, const Shape& ns) {
  int64_t n = 1;
  for (int64_t v : ns) n *= v;
  int64_t m = 1;
  for (int64_t i = 0; i < x.ndim() - int64_t(ns.size()); ++i) m *= x.sizes()[i];
  return {m, n};
}

// a * b + c rounded once (a fused multiply-add): float through double,
// whose product of two floats is exact.
inline float fused(float a, float b, float c) { return float(double(a) * double(b) + double(c)); }
inline double fused(double a, double b, double c) { return std::fma(a, b, c); }

// Mean and biased variance of one row, accumulated in double (two passes).
template <typename T>
std::pair<double, double> moments(const T* x, int64_t n) {
  double s = 0;
  for (int64_t j = 0; j < n; ++j) s += double(compute_t<T>(x[j]));
  const double mean = n ? s / double(n) : 0.0;
  double v = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double d = double(compute_t<T>(x[j])) - mean;
    v += d * d;
  }
  return {mean, n ? v / double(n) : 0.0};
}
}  // namespace

namespace {
// One row of layer_norm, computing in C: out = (x - mean) * rstd * w + b.
template <typename C, typename E>
void layer_norm_row(const E* x, const E* w, const E* b, E* y, int64_t n, double eps) {
  // ATen: moments in the accumulation type, then rstd and the shift
  // -rstd * mean computed in it (its rounding shows for large means).
  const auto [mean_d, var_d] = moments(x, n);
  const C mean = C(mean_d), scale = C(1) / std::sqrt(std::max(C(var_d), C(0)) + C(eps));
  const C shift = -scale * mean;
  if (w && b) {  // ATen's vectorised map3: every operation rounded
    for (int64_t j = 0; j < n; ++j) y[j] = E(C(C(C(x[j]) * scale) + shift) * C(w[j]) + C(b[j]));
  } else {  // ATen's scalar loop, which its compiler contracts to FMAs
    for (int64_t j = 0; j < n; ++j) {
      const C v = fused(C(x[j]), scale, shift);
      y[j] = E(fused(v, w ? C(w[j]) : C(1), b ? C(b[j]) : C(0)));
    }
  }
}
}  // namespace

Tensor layer_norm(const Tensor& x0, const Shape& ns, const Tensor& w0, const Tensor& b0, double eps) {
  check_layer_norm(x0, ns, w0, b0);
  Tensor x = contiguous_or_self(x0);
  Tensor w = w0.defined() ? contiguous_or_self(w0) : w0, b = b0.defined() ? contiguous_or_self(b0) : b0;
  Tensor out = empty_cpu(x.sizes(), x.dtype());
  const std::pair<int64_t, int64_t> rows = rows_of(x, ns);
  const int64_t M = rows.first, N = rows.second;  // captured below: no structured binding (clang < 16)
  if (out.numel() == 0) return out;
  dispatch_floating(x.dtype(), "layer_norm", [&]<typename T>() {
    const T* xp = x.data<T>();
    const T* wp = w.defined() ? w.data<T>() : nullptr;
    const T* bp = b.defined() ? b.data<T>() : nullptr;
    T* y = out.data<T>();
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N));
    if constexpr (is_16bit_float_v<T>) {
      // Rows, weight and bias converted to float (vectorized), normalized by
      // the float32 row code, rounded once: the values of the per-element
      // path, without its scalar 16-bit conversions.
      std::vector<float> wf(size_t(wp ? N : 0)), bf(size_t(bp ? N : 0));
      if (wp) to_float_row(wp, wf.data(), N);
      if (bp) to_float_row(bp, bf.data(), N);
      parallel_for(M, grain, [&](int64_t i0, int64_t i1) {
        rows_in_float(xp + i0 * N, y + i0 * N, N, i1 - i0, [&](const float* xr, float* yr, int64_t n) {
          layer_norm_row<float>(xr, wp ? wf.data() : nullptr, bp ? bf.data() : nullptr, yr, n, eps);
        });
      });
    } else {
      parallel_for(M, grain, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) layer_norm_row<acc_t<T>>(xp + i * N, wp, bp, y + i * N, N, eps);
      });
    }
  });
  return out;
}

LayerNormGrads layer_norm_backward(const Tensor& grad0, const Tensor& x0, const Shape& ns,
                                   const Tensor& w0, double eps, bool need_x, bool need_w, bool need_b) {
  Tensor g = contiguous_or_self(grad0), x = contiguous_or_self(x0);
  Tensor w = w0.defined() ? contiguous_or_self(w0) : w0;
  const std::pair<int64_t, int64_t> rows = rows_of(x, ns);
  const int64_t M = rows.first, N = rows.second;  // captured below: no structured binding (clang < 16)
  LayerNormGrads r;
  if (need_x) r.x = empty_cpu(x.sizes(), x.dtype());
  if (need_w) r.weight = empty_cpu(ns, x.dtype());
  if (need_b) r.bias = empty_cpu(ns, x.dtype());
  dispatch_floating(x.dtype(), "layer_norm backward", [&]<typename T>() {
    // The 16-bit floats are read as float rows converted in bulk (E), the
    // same values the per-element conversions gave, without their cost.
    constexpr bool k16 = is_16bit_float_v<T>;
    using E = std::conditional_t<k16, float, T>;
    std::vector<float> gbuf(size_t(k16 ? N : 0)), xbuf(size_t(k16 ? N : 0)), wbuf, dxbuf(size_t(k16 ? N : 0));
    const T* gp = g.data<T>();
    const T* xp = x.data<T>();
    const T* wp0 = w.defined() ? w.data<T>() : nullptr;
    const E* wp = nullptr;
    if constexpr (k16) {
      if (wp0) {
        wbuf.resize(size_t(N));
        to_float_row(wp0, wbuf.data(), N);
        wp = wbuf.data();
      }
    } else {
      wp = wp0;
    }
    std::vector<double> dw(size_t(need_w ? N : 0), 0.0), db(size_t(need_b ? N : 0), 0.0);
    const double scale = N ? 1.0 / double(N) : 0.0;
    for (int64_t i = 0; i < M; ++i) {
      const E* gr;
      const E* xr;
      if constexpr (k16) {
        to_float_row(gp + i * N, gbuf.data(), N);
        to_float_row(xp + i * N, xbuf.data(), N);
        gr = gbuf.data();
        xr = xbuf.data();
      } else {
        gr = gp + i * N;
        xr = xp + i * N;
      }
      const auto [mean, var] = moments(xr, N);
      const double rstd = 1.0 / std::sqrt(std::max(var, 0.0) + eps);
      auto gv = [&](int64_t j) { return double(compute_t<E>(gr[j])); };
      auto xv = [&](int64_t j) { return double(compute_t<E>(xr[j])); };
      auto wv = [&](int64_t j) { return wp ? double(compute_t<E>(wp[j])) : 1.0; };
      if (need_x) {
        double ds = 0, dbs = 0;  // sum dy*gamma*x, sum dy*gamma
        for (int64_t j = 0; j < N; ++j) {
          ds += gv(j) * wv(j) * xv(j);
          dbs += gv(j) * wv(j);
        }
        const double a = rstd;
        const double b = (dbs * mean - ds) * a * a * a * scale;
        const double c = -b * mean - dbs * a * scale;
        T* dx = r.x.data<T>() + i * N;
        if constexpr (k16) {
          for (int64_t j = 0; j < N; ++j) dxbuf[size_t(j)] = float(a * gv(j) * wv(j) + b * xv(j) + c);
          from_float_row(dxbuf.data(), dx, N);
        } else {
          for (int64_t j = 0; j < N; ++j) dx[j] = T(compute_t<T>(a * gv(j) * wv(j) + b * xv(j) + c));
        }
      }
      if (need_w)
        for (int64_t j = 0; j < N; ++j) dw[size_t(j)] += gv(j) * (xv(j) - mean) * rstd;
      if (need_b)
        for (int64_t j = 0; j < N; ++j) db[size_t(j)] += gv(j);
    }
    if (need_w)
      for (int64_t j = 0; j < N; ++j) r.weight.data<T>()[j] = T(compute_t<T>(dw[size_t(j)]));
    if (need_b)
      for (int64_t j = 0; j < N; ++j) r.bias.data<T>()[j] = T(compute_t<T>(db[size_t(j)]));
  });
  return r;
}

}  // namespace tsr::kernels
