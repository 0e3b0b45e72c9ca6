// Batch norm in direct loops, ATen's CPU formulas
// (aten/src/ATen/native/Normalization.cpp: batch_norm_cpu_update_stats /
// batch_norm_cpu_transform_input / batch_norm_backward_cpu), for float64
// and every input oneDNN's primitive does not take (not 4-D). Statistics
// accumulate in double; threads split over channels, which are disjoint in
// every output.
#include <cmath>

#include "cpu/kernels/cnn.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"

namespace tsr::kernels::ref {

namespace {

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
  int64_t count() const { return N * H * W; }
};

template <typename T>
T param(const Tensor& p, int64_t c, T dflt) {
  return p.defined() ? p.data<T>()[c * p.stride(0)] : dflt;
}

template <typename T>
void forward(const Tensor& xt, const Tensor& wt, const Tensor& bt, const Tensor& rm, const Tensor& rv,
             bool training, double eps, BatchNormResult& r) {
  const Geom gx(xt);  // out has x's sizes and format, hence its offsets
  const T* x = xt.data<T>();
  T* y = r.out.data<T>();
  T *mean = r.mean.data<T>(), *var_out = r.var.data<T>();
  T* uvar = training ? r.unbiased_var.data<T>() : nullptr;
  const int64_t M = gx.count();
  parallel_for(gx.C, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      double mu, var;
      if (training) {
        double s = 0;
        gx.each(c, [&](int64_t o) { s += double(x[o]); });
        mu = M ? s / double(M) : 0.0;
        double ss = 0;  // two passes: the variance of centred values
        gx.each(c, [&](int64_t o) {
          const double d = double(x[o]) - mu;
          ss += d * d;
        });
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
      gx.each(c, [&](int64_t o) { y[o] = T(double(x[o]) * alpha + beta); });
    }
  });
}

template <typename T>
void backward(const Tensor& gt, const Tensor& xt, const Tensor& wt, const Tensor& mt, const Tensor& vt,
              double eps, bool training, BatchNormGrads& r) {
  const Geom geo(xt);
  const T *g = gt.data<T>(), *x = xt.data<T>(), *mean = mt.data<T>(), *var = vt.data<T>();
  T* gx = r.input.defined() ? r.input.data<T>() : nullptr;
  T* gw = r.weight.defined() ? r.weight.data<T>() : nullptr;
  T* gb = r.bias.defined() ? r.bias.data<T>() : nullptr;
  const int64_t M = geo.count();
  parallel_for(geo.C, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const double mu = double(mean[c]), inv = 1.0 / std::sqrt(double(var[c]) + eps);
      const double w = double(param<T>(wt, c, T(1)));
      double gsum = 0, dotp = 0;
      geo.each(c, [&](int64_t o) {
        gsum += double(g[o]);
        dotp += (double(x[o]) - mu) * double(g[o]);
      });
      if (gx) {
        if (training) {
          const double k = dotp * inv * inv / double(M), gmean = gsum / double(M);
          geo.each(c, [&](int64_t o) {
            gx[o] = T((double(g[o]) - gmean - (double(x[o]) - mu) * k) * inv * w);
          });
        } else {
          geo.each(c, [&](int64_t o) { gx[o] = T(double(g[o]) * inv * w); });
        }
      }
      if (gw) gw[c] = T(dotp * inv);
      if (gb) gb[c] = T(gsum);
    }
  });
}

template <typename F>
void by_dtype(tsr_dtype d, F&& f) {
  if (d == TSR_FLOAT64) f(double{});
  else f(float{});
}

}  // namespace

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double eps, tsr_memory_format fmt) {
  const int64_t C = x.size(1);
  BatchNormResult r;
  r.out = empty_cpu(x.sizes(), x.dtype(), fmt);
  r.mean = empty_cpu({C}, x.dtype());
  r.var = empty_cpu({C}, x.dtype());
  if (training) r.unbiased_var = empty_cpu({C}, x.dtype());
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
  if (need_weight) r.weight = empty_cpu({C}, x.dtype());
  if (need_bias) r.bias = empty_cpu({C}, x.dtype());
  by_dtype(x.dtype(), [&](auto t) { backward<decltype(t)>(g, x, weight, mean, var, eps, training, r); });
  return r;
}

}  // namespace tsr::kernels::ref
