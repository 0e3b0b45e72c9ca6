// Batch norm in direct loops, ATen's CPU formulas
// (aten/src/ATen/native/Normalization.cpp: batch_norm_cpu_update_stats /
// batch_norm_cpu_transform_input / batch_norm_backward_cpu), for float64,
// and for float32 too: oneDNN 2.6's primitive was 4x ATen's time on NCHW
// input (a generic C++ kernel) and 8-25x on channels_last (its JIT kernel
// with 32 or 64 channels, measured with tsr_conv_bench). Two vectorized
// paths (batch_norm_simd.h): channels innermost (channels_last, [N, C]),
// vectorized across channels over chunks of rows; and one channel at a
// time over its contiguous runs (NCHW planes), threads split over channels.
// Other layouts go element by element. Statistics accumulate in double
// across runs and chunks.
//
// bfloat16 x (and g) is read and written as bfloat16 and computed in float,
// with float32 parameters and statistics (the dispatcher widens bfloat16
// parameters, a [C] copy): S below is the storage type, T = Compute<S> the
// arithmetic one. Every float operation is the float32 kernel's, so the
// result is bit for bit that of the float32 kernel on the widened tensors,
// rounded once, without the widened copies' two passes over memory.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "cpu/kernels/batch_norm_simd.h"
#include "cpu/kernels/cnn.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"

namespace tsr::kernels::ref {

namespace {

// The arithmetic type of storage type S: float for bfloat16.
template <typename S>
using Compute = std::conditional_t<std::is_same_v<S, BFloat16>, float, S>;

// x as [N, C, H, W]: a 4-D tensor as it is, any other (contiguous, from
// the op layer) as [N, C, 1, S].
struct Geom {
  int64_t N, C, H, W, sn, sc, sh, sw;
  explicit Geom(const Tensor& t) {
    N = t.size(0);
    C = t.size(1);
    if (t.ndim() == 4) {
      H = t.size(2), W = t.size(3);
      sn = t.stride(0), sc = t.stride(1), sh = t.stride(2), sw = t.stride(3);
    } else {
      int64_t s = 1;
      for (int64_t d = 2; d < t.ndim(); ++d) s *= t.size(d);
      H = 1, W = s, sn = C * s, sc = s, sh = s, sw = 1;
    }
  }
  template <typename F>
  void each(int64_t c, F&& f) const {  // f(offset) over channel c's elements
    for (int64_t n = 0; n < N; ++n)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) f(n * sn + c * sc + h * sh + w * sw);
  }
  // Whether each (n, h) row of a channel is contiguous, for each_run.
  bool has_runs() const { return sw == 1; }
  template <typename F>
  void each_run(int64_t c, F&& f) const {  // f(offset, length) over channel c's runs
    if (sh == W) {  // a whole plane per n
      for (int64_t n = 0; n < N; ++n) f(n * sn + c * sc, H * W);
      return;
    }
    for (int64_t n = 0; n < N; ++n)
      for (int64_t h = 0; h < H; ++h) f(n * sn + c * sc + h * sh, W);
  }
  int64_t count() const { return N * H * W; }
};

template <typename T>
T param(const Tensor& p, int64_t c, T dflt) {
  return p.defined() ? p.data<T>()[c * p.stride(0)] : dflt;
}

// ---- channels innermost: x as rows of C channels (row r at r * C), the
// layout of dense channels_last input and of [N, C] input. Sums run over
// fixed chunks of rows in vectors of channels, each chunk's partial sums
// then added in double in chunk order: the same result on any thread count.

bool is_rows_layout(const Geom& g) {
  return g.C > 1 && g.sc == 1 && (g.W == 1 || g.sw == g.C) && (g.H == 1 || g.sh == g.W * g.C) &&
         (g.N == 1 || g.sn == g.H * g.W * g.C);
}

constexpr int64_t kRowsPerChunk = 256;

// For each of `sums` accumulators: out[k][c] = the sum over chunks of the
// partials that chunk(r0, r1, partials) adds into partials[k][c] (zeroed).
template <typename T, int sums, typename F>
void chunked_sums(int64_t rows, int64_t C, std::vector<double> (&out)[sums], F&& chunk) {
  const int64_t chunks = (rows + kRowsPerChunk - 1) / kRowsPerChunk;
  std::vector<T> part[sums];
  for (auto& p : part) p.assign(size_t(chunks * C), T(0));
  parallel_for(chunks, std::max<int64_t>(1, kGrainSize / (kRowsPerChunk * C)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      T* ps[sums];
      for (int s = 0; s < sums; ++s) ps[s] = part[s].data() + k * C;
      chunk(k * kRowsPerChunk, std::min(rows, (k + 1) * kRowsPerChunk), ps);
    }
  });
  for (int s = 0; s < sums; ++s) {
    out[s].assign(size_t(C), 0.0);
    for (int64_t k = 0; k < chunks; ++k)
      for (int64_t c = 0; c < C; ++c) out[s][c] += double(part[s][k * C + c]);
  }
}

// f(r0, r1) over disjoint ranges of rows, split across threads.
template <typename F>
void for_rows(int64_t rows, int64_t C, F&& f) {
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / C), [&](int64_t b, int64_t e) { f(b, e); });
}

template <typename S, typename T = Compute<S>>
void forward_rows(const Geom& geo, const S* x, const Tensor& wt, const Tensor& bt, const Tensor& rm,
                  const Tensor& rv, bool training, double eps, BatchNormResult& r) {
  const int64_t C = geo.C, rows = geo.count(), M = rows;
  T *mean = r.mean.data<T>(), *var_out = r.var.data<T>();
  S* y = r.out.data<S>();
  std::vector<T> mean_t(static_cast<size_t>(C)), alpha(static_cast<size_t>(C)), beta(static_cast<size_t>(C));
  if (training) {
    std::vector<double> sum[1], ss[1];
    chunked_sums<T, 1>(rows, C, sum, [&](int64_t r0, int64_t r1, T** p) {
      simd::bn_rows_sum(x + r0 * C, r1 - r0, C, p[0]);
    });
    for (int64_t c = 0; c < C; ++c) mean_t[c] = T(M ? sum[0][c] / double(M) : 0.0);
    chunked_sums<T, 1>(rows, C, ss, [&](int64_t r0, int64_t r1, T** p) {
      simd::bn_rows_centered_square_sum(x + r0 * C, r1 - r0, C, mean_t.data(), p[0]);
    });
    T* uvar = r.unbiased_var.data<T>();
    for (int64_t c = 0; c < C; ++c) {
      mean[c] = mean_t[c];
      var_out[c] = T(M ? ss[0][c] / double(M) : 0.0);
      uvar[c] = T(M > 1 ? ss[0][c] / double(M - 1) : NAN);
    }
  } else {
    for (int64_t c = 0; c < C; ++c) {
      mean[c] = param<T>(rm, c, T(0));
      var_out[c] = param<T>(rv, c, T(1));
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    const double inv = 1.0 / std::sqrt(double(var_out[c]) + eps);
    const double a = inv * double(param<T>(wt, c, T(1)));
    alpha[c] = T(a);
    beta[c] = T(double(param<T>(bt, c, T(0))) - double(mean[c]) * a);
  }
  for_rows(rows, C, [&](int64_t r0, int64_t r1) {
    simd::bn_rows_affine(x + r0 * C, y + r0 * C, r1 - r0, C, alpha.data(), beta.data());
  });
}

template <typename S, typename T = Compute<S>>
void backward_rows(const Geom& geo, const S* g, const S* x, const Tensor& wt, const T* mean, const T* var,
                   double eps, bool training, BatchNormGrads& r) {
  const int64_t C = geo.C, rows = geo.count(), M = rows;
  std::vector<double> sums[2];  // sum g, sum (x - mean) g
  chunked_sums<T, 2>(rows, C, sums, [&](int64_t r0, int64_t r1, T** p) {
    simd::bn_rows_grad_sums(g + r0 * C, x + r0 * C, r1 - r0, C, mean, p[0], p[1]);
  });
  std::vector<T> a(static_cast<size_t>(C)), b(static_cast<size_t>(C)), k(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const double inv = 1.0 / std::sqrt(double(var[c]) + eps), w = double(param<T>(wt, c, T(1)));
    const double gsum = sums[0][c], dotp = sums[1][c];
    if (r.weight.defined()) r.weight.data<T>()[c] = T(dotp * inv);
    if (r.bias.defined()) r.bias.data<T>()[c] = T(gsum);
    // Training: (g - gmean - (x - mu) kk) inv w = g a + x b + k; evaluation: g inv w.
    const double kk = training ? dotp * inv * inv / double(M) : 0.0, gmean = training ? gsum / double(M) : 0.0;
    a[c] = T(inv * w);
    b[c] = T(-kk * inv * w);
    k[c] = T((double(mean[c]) * kk - gmean) * inv * w);
  }
  if (!r.input.defined()) return;
  S* gx = r.input.data<S>();
  for_rows(rows, C, [&](int64_t r0, int64_t r1) {
    const int64_t o = r0 * C;
    simd::bn_rows_input_grad(g + o, x + o, gx + o, r1 - r0, C, a.data(), b.data(), k.data());
  });
}

// ---- any layout: one channel at a time, over its contiguous runs where it
// has them (NCHW planes), else element by element.

template <typename S, typename T = Compute<S>>
void forward(const Tensor& xt, const Tensor& wt, const Tensor& bt, const Tensor& rm, const Tensor& rv,
             bool training, double eps, BatchNormResult& r) {
  const Geom gx(xt);  // out has x's sizes and format, hence its offsets
  const S* x = xt.data<S>();
  if (is_rows_layout(gx)) return forward_rows<S>(gx, x, wt, bt, rm, rv, training, eps, r);
  S* y = r.out.data<S>();
  T *mean = r.mean.data<T>(), *var_out = r.var.data<T>();
  T* uvar = training ? r.unbiased_var.data<T>() : nullptr;
  const int64_t M = gx.count();
  parallel_for(gx.C, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      double mu, var;
      if (training) {
        double s = 0;
        if (gx.has_runs()) gx.each_run(c, [&](int64_t o, int64_t n) { s += simd::bn_sum(x + o, n); });
        else gx.each(c, [&](int64_t o) { s += double(T(x[o])); });
        mu = M ? s / double(M) : 0.0;
        double ss = 0;  // two passes: the variance of centred values
        if (gx.has_runs()) {
          gx.each_run(c, [&](int64_t o, int64_t n) { ss += simd::bn_centered_square_sum(x + o, n, mu); });
        } else {
          gx.each(c, [&](int64_t o) {
            const double d = double(T(x[o])) - mu;
            ss += d * d;
          });
        }
        var = M ? ss / double(M) : 0.0;
        uvar[c] = T(M > 1 ? ss / double(M - 1) : NAN);
      } else {
        mu = double(param<T>(rm, c, T(0)));
        var = double(param<T>(rv, c, T(1)));
      }
      mean[c] = T(mu);
      var_out[c] = T(var);
      const double inv = 1.0 / std::sqrt(var + eps);
      const double alpha = inv * double(param<T>(wt, c, T(1)));
      const double beta = double(param<T>(bt, c, T(0))) - mu * alpha;
      // x and out share one geometry (same sizes, same format).
      if (gx.has_runs()) gx.each_run(c, [&](int64_t o, int64_t n) { simd::bn_affine(x + o, y + o, n, alpha, beta); });
      else gx.each(c, [&](int64_t o) { y[o] = S(T(double(T(x[o])) * alpha + beta)); });
    }
  });
}

template <typename S, typename T = Compute<S>>
void backward(const Tensor& gt, const Tensor& xt, const Tensor& wt, const Tensor& mt, const Tensor& vt,
              double eps, bool training, BatchNormGrads& r) {
  const Geom geo(xt);  // g and the gradient have x's sizes and format
  const S *g = gt.data<S>(), *x = xt.data<S>();
  const T *mean = mt.data<T>(), *var = vt.data<T>();
  if (is_rows_layout(geo)) return backward_rows<S>(geo, g, x, wt, mean, var, eps, training, r);
  S* gx = r.input.defined() ? r.input.data<S>() : nullptr;
  T* gw = r.weight.defined() ? r.weight.data<T>() : nullptr;
  T* gb = r.bias.defined() ? r.bias.data<T>() : nullptr;
  const int64_t M = geo.count();
  parallel_for(geo.C, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const double mu = double(mean[c]), inv = 1.0 / std::sqrt(double(var[c]) + eps);
      const double w = double(param<T>(wt, c, T(1)));
      double gsum = 0, dotp = 0;
      if (geo.has_runs()) {
        geo.each_run(c, [&](int64_t o, int64_t n) { simd::bn_grad_sums(g + o, x + o, n, mu, gsum, dotp); });
      } else {
        geo.each(c, [&](int64_t o) {
          gsum += double(T(g[o]));
          dotp += (double(T(x[o])) - mu) * double(T(g[o]));
        });
      }
      if (gx) {
        if (training) {
          const double k = dotp * inv * inv / double(M), gmean = gsum / double(M);
          if (geo.has_runs()) {
            // (g - gmean - (x - mu) k) inv w = g a + x b + c
            const double a = inv * w, b = -k * a, cc = (mu * k - gmean) * a;
            geo.each_run(c, [&](int64_t o, int64_t n) { simd::bn_input_grad(g + o, x + o, gx + o, n, a, b, cc); });
          } else {
            geo.each(c, [&](int64_t o) {
              gx[o] = S(T((double(T(g[o])) - gmean - (double(T(x[o])) - mu) * k) * inv * w));
            });
          }
        } else {
          if (geo.has_runs()) geo.each_run(c, [&](int64_t o, int64_t n) { simd::bn_affine(g + o, gx + o, n, inv * w, 0.0); });
          else geo.each(c, [&](int64_t o) { gx[o] = S(T(double(T(g[o])) * inv * w)); });
        }
      }
      if (gw) gw[c] = T(dotp * inv);
      if (gb) gb[c] = T(gsum);
    }
  });
}

// f(S{}) for x's storage type S.
template <typename F>
void by_dtype(tsr_dtype d, F&& f) {
  if (d == TSR_FLOAT64) f(double{});
  else if (d == TSR_BFLOAT16) f(BFloat16{});
  else f(float{});
}

// The statistics' and parameter gradients' dtype: float32 for bfloat16 x.
tsr_dtype compute_dtype(tsr_dtype x) { return x == TSR_BFLOAT16 ? TSR_FLOAT32 : x; }

}  // namespace

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double eps, tsr_memory_format fmt) {
  const int64_t C = x.size(1);
  BatchNormResult r;
  r.out = empty_cpu(x.sizes(), x.dtype(), fmt);
  const tsr_dtype sd = compute_dtype(x.dtype());
  r.mean = empty_cpu({C}, sd);
  r.var = empty_cpu({C}, sd);
  if (training) r.unbiased_var = empty_cpu({C}, sd);
  by_dtype(x.dtype(), [&](auto t) {
    forward<decltype(t)>(x, weight, bias, running_mean, running_var, training, eps, r);
  });
  return r;
}

BatchNormGrads batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight, const Tensor& mean,
                                   const Tensor& var, double eps, bool training, tsr_memory_format fmt, bool need_input,
                                   bool need_weight, bool need_bias) {
  BatchNormGrads r;
  const int64_t C = x.size(1);
  if (need_input) r.input = empty_cpu(x.sizes(), x.dtype(), fmt);
  if (need_weight) r.weight = empty_cpu({C}, compute_dtype(x.dtype()));
  if (need_bias) r.bias = empty_cpu({C}, compute_dtype(x.dtype()));
  by_dtype(x.dtype(), [&](auto t) { backward<decltype(t)>(g, x, weight, mean, var, eps, training, r); });
  return r;
}

}  // namespace tsr::kernels::ref
