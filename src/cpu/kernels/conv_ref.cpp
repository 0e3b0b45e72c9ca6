// Reference convolution: direct loops over dense NCHW or NHWC tensors (any
// strides, read through each tensor's own strides). The float64 path, which
// oneDNN lacks and gradcheck needs; float32 uses it only when oneDNN is
// unavailable for a case. Accumulates in double. Threads split the work over
// disjoint outputs (planes of the output / input gradient, output channels
// of the weight gradient), so results do not depend on the thread count.
#include "cpu/kernels/cnn.h"

#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"

namespace tsr::kernels::ref {

namespace {

// A 4-D tensor's data and strides.
template <typename T>
struct View4 {
  T* p;
  int64_t s0, s1, s2, s3;
  explicit View4(const Tensor& t)
      : p(t.data<T>()), s0(t.stride(0)), s1(t.stride(1)), s2(t.stride(2)), s3(t.stride(3)) {}
  T& operator()(int64_t a, int64_t b, int64_t c, int64_t d) const { return p[a * s0 + b * s1 + c * s2 + d * s3]; }
};

struct Geometry {
  int64_t N, Cin, H, W, Cout, KH, KW, OH, OW, G, cin_g, cout_g;
  Geometry(const Shape& x, const Shape& w, const Shape& y, int64_t groups)
      : N(x[0]), Cin(x[1]), H(x[2]), W(x[3]), Cout(w[0]), KH(w[2]), KW(w[3]), OH(y[2]), OW(y[3]), G(groups),
        cin_g(w[1]), cout_g(w[0] / groups) {}
};

// Work items of about this many multiply-adds per thread chunk.
int64_t grain_for(int64_t work_per_item) { return std::max<int64_t>(1, 65536 / std::max<int64_t>(1, work_per_item)); }

template <typename T>
void forward(const Tensor& xt, const Tensor& wt, const Tensor& bt, const Tensor& yt, const Conv2dArgs& a) {
  const Geometry g(xt.sizes(), wt.sizes(), yt.sizes(), a.groups);
  View4<const T> x(xt), w(wt);
  View4<T> y(yt);
  const T* bias = bt.defined() ? bt.data<T>() : nullptr;
  const int64_t bs = bt.defined() ? bt.stride(0) : 0;
  parallel_for(g.N * g.Cout, grain_for(g.OH * g.OW * g.cin_g * g.KH * g.KW), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / g.Cout, co = item % g.Cout, ci0 = (co / g.cout_g) * g.cin_g;
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          double acc = bias ? double(bias[co * bs]) : 0.0;
          for (int64_t ci = 0; ci < g.cin_g; ++ci)
            for (int64_t kh = 0; kh < g.KH; ++kh) {
              const int64_t ih = oh * a.stride[0] - a.padding[0] + kh * a.dilation[0];
              if (ih < 0 || ih >= g.H) continue;
              for (int64_t kw = 0; kw < g.KW; ++kw) {
                const int64_t iw = ow * a.stride[1] - a.padding[1] + kw * a.dilation[1];
                if (iw < 0 || iw >= g.W) continue;
                acc += double(x(n, ci0 + ci, ih, iw)) * double(w(co, ci, kh, kw));
              }
            }
          y(n, co, oh, ow) = T(acc);
        }
    }
  });
}

// grad_input[n, ci, ih, iw] = sum over the outputs whose window covers it.
template <typename T>
void backward_input(const Tensor& gt, const Tensor& wt, const Tensor& gxt, const Conv2dArgs& a) {
  const Geometry g(gxt.sizes(), wt.sizes(), gt.sizes(), a.groups);
  View4<const T> gy(gt), w(wt);
  View4<T> gx(gxt);
  parallel_for(g.N * g.Cin, grain_for(g.H * g.W * g.cout_g * g.KH * g.KW), [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / g.Cin, c = item % g.Cin, grp = c / g.cin_g, ci = c % g.cin_g;
      for (int64_t ih = 0; ih < g.H; ++ih)
        for (int64_t iw = 0; iw < g.W; ++iw) {
          double acc = 0;
          for (int64_t kh = 0; kh < g.KH; ++kh) {
            const int64_t th = ih + a.padding[0] - kh * a.dilation[0];
            if (th < 0 || th % a.stride[0]) continue;
            const int64_t oh = th / a.stride[0];
            if (oh >= g.OH) continue;
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              const int64_t tw = iw + a.padding[1] - kw * a.dilation[1];
              if (tw < 0 || tw % a.stride[1]) continue;
              const int64_t ow = tw / a.stride[1];
              if (ow >= g.OW) continue;
              for (int64_t k = 0; k < g.cout_g; ++k) {
                const int64_t co = grp * g.cout_g + k;
                acc += double(gy(n, co, oh, ow)) * double(w(co, ci, kh, kw));
              }
            }
          }
          gx(n, c, ih, iw) = T(acc);
        }
    }
  });
}

template <typename T>
void backward_weight(const Tensor& gt, const Tensor& xt, const Tensor& gwt, const Conv2dArgs& a) {
  const Geometry g(xt.sizes(), gwt.sizes(), gt.sizes(), a.groups);
  View4<const T> gy(gt), x(xt);
  View4<T> gw(gwt);
  parallel_for(g.Cout, 1, [&](int64_t b, int64_t e) {
    for (int64_t co = b; co < e; ++co) {
      const int64_t ci0 = (co / g.cout_g) * g.cin_g;
      for (int64_t ci = 0; ci < g.cin_g; ++ci)
        for (int64_t kh = 0; kh < g.KH; ++kh)
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            double acc = 0;
            for (int64_t n = 0; n < g.N; ++n)
              for (int64_t oh = 0; oh < g.OH; ++oh) {
                const int64_t ih = oh * a.stride[0] - a.padding[0] + kh * a.dilation[0];
                if (ih < 0 || ih >= g.H) continue;
                for (int64_t ow = 0; ow < g.OW; ++ow) {
                  const int64_t iw = ow * a.stride[1] - a.padding[1] + kw * a.dilation[1];
                  if (iw < 0 || iw >= g.W) continue;
                  acc += double(gy(n, co, oh, ow)) * double(x(n, ci0 + ci, ih, iw));
                }
              }
            gw(co, ci, kh, kw) = T(acc);
          }
    }
  });
}

template <typename T>
Tensor bias_grad(const Tensor& gt) {
  View4<const T> gy(gt);
  const int64_t N = gt.size(0), C = gt.size(1), H = gt.size(2), W = gt.size(3);
  Tensor gb = empty_cpu({C}, gt.dtype());
  T* out = gb.data<T>();
  for (int64_t c = 0; c < C; ++c) {
    double acc = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) acc += double(gy(n, c, h, w));
    out[c] = T(acc);
  }
  return gb;
}

template <typename F>
void by_dtype(tsr_dtype d, F&& f) {
  if (d == TSR_FLOAT64) f(double{});
  else f(float{});
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dArgs& a, tsr_memory_format fmt) {
  Tensor y = empty_cpu(conv2d_output_sizes(x, w, bias, a), x.dtype(), fmt);
  if (y.numel() == 0) return y;
  by_dtype(x.dtype(), [&](auto t) { forward<decltype(t)>(x, w, bias, y, a); });
  return y;
}

ConvGrads conv2d_backward(const Tensor& g, const Tensor& x, const Tensor& w, const Shape& x_sizes,
                          const Shape& w_sizes, const Conv2dArgs& a, tsr_memory_format fmt, bool need_input,
                          bool need_weight, bool need_bias) {
  ConvGrads r;
  by_dtype(g.dtype(), [&](auto t) {
    using T = decltype(t);
    if (need_input) {
      r.input = empty_cpu(x_sizes, g.dtype(), fmt);
      if (r.input.numel()) backward_input<T>(g, w, r.input, a);
    }
    if (need_weight) {
      r.weight = empty_cpu(w_sizes, g.dtype(), fmt);
      if (r.weight.numel()) backward_weight<T>(g, x, r.weight, a);
    }
    if (need_bias) r.bias = bias_grad<T>(g);
  });
  return r;
}

}  // namespace tsr::kernels::ref
