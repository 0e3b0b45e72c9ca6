// Pooling in direct loops, PyTorch's CPU kernels' arithmetic
// (aten/src/ATen/native/cpu/MaxPoolKernel.cpp, AvgPoolKernel.cpp,
// AdaptiveAvgPoolKernel.cpp) over dense NCHW or NHWC tensors read through
// their strides. Max pooling always runs here: torch's indices (flat h * W +
// w per plane) are part of its result, and oneDNN's workspace encodes
// something else. Adaptive pooling has no oneDNN primitive. Average pooling
// runs here for float64. Threads split over (n, c) planes, which are
// disjoint in the output and in the input gradient.
//
// Max pooling also takes bfloat16 as it is: compared as the floats it
// widens to (exact; the same choices and indices as on a float32 copy), its
// gradient summed in float per plane or image and rounded once, as the
// float32 path on widened copies does, without those copies' passes over
// memory. The other poolings get widened copies (cnn_dispatch.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/kernels/cnn.h"
#include "cpu/kernels/convert_simd.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/pooling_simd.h"

namespace tsr::kernels {

namespace {

template <typename T>
struct Plane {  // one (n, c) plane of a 4-D tensor
  T* p;
  int64_t sh, sw;
  T& operator()(int64_t h, int64_t w) const { return p[h * sh + w * sw]; }
};
template <typename T>
Plane<T> plane(const Tensor& t, int64_t nc) {
  const int64_t C = t.size(1), n = nc / C, c = nc % C;
  return {t.data<T>() + n * t.stride(0) + c * t.stride(1), t.stride(2), t.stride(3)};
}

int64_t plane_grain(int64_t work) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work)); }

template <typename F>
void by_dtype(tsr_dtype d, F&& f) {
  if (d == TSR_FLOAT64) f(double{});
  else f(float{});
}

// Max pooling's storage types: bfloat16 too, computed in float.
template <typename F>
void by_storage(tsr_dtype d, F&& f) {
  if (d == TSR_BFLOAT16) f(BFloat16{});
  else by_dtype(d, f);
}
template <typename S>
using Compute = std::conditional_t<std::is_same_v<S, BFloat16>, float, S>;

// Max pooling of NCHW planes, a row of outputs at a time: for each input
// element of the windows' rows, in ATen's (h, w) order, every output of the
// row whose window holds it takes it when it is greater or NaN (ATen's
// `val > maxval || std::isnan(val)`: the first maximum, the last NaN).
// Across the row's outputs the update is branch-free and independent (the
// CL kernel's trick, by column instead of by channel): ATen's per-output
// loop costs a mispredicted branch per comparison on random data.
// Index: int32 for float planes under 2^31 elements (one vector blend per
// lane width, as max_forward_cl), else int64. S: the storage type.
template <typename S, typename Index, typename T = Compute<S>>
void max_forward(const Tensor& xt, const Tensor& yt, const Tensor& it, const Pool2dArgs& a) {
  const int64_t H = xt.size(2), W = xt.size(3), OH = yt.size(2), OW = yt.size(3);
  const int64_t sh = a.stride[0], sw = a.stride[1], ph = a.padding[0], pw = a.padding[1];
  const int64_t dh = a.dilation[0], dw = a.dilation[1], kw = a.kernel[1];
  parallel_for(xt.size(0) * xt.size(1), plane_grain(OH * OW * a.kernel[0] * kw), [&](int64_t b, int64_t e) {
    std::vector<T> best(static_cast<size_t>(OW));
    std::vector<Index> at(static_cast<size_t>(OW));
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const S> x = plane<const S>(xt, nc);
      Plane<S> y = plane<S>(yt, nc);
      Plane<int64_t> ind = plane<int64_t>(it, nc);
      for (int64_t oh = 0; oh < OH; ++oh) {
        int64_t h0 = oh * sh - ph;
        const int64_t h1 = std::min(h0 + (a.kernel[0] - 1) * dh + 1, H);
        while (h0 < 0) h0 += dh;
        for (int64_t ow = 0; ow < OW; ++ow) {  // the first element of each window
          int64_t w0 = ow * sw - pw;
          while (w0 < 0) w0 += dw;
          best[ow] = -std::numeric_limits<T>::infinity();
          at[ow] = Index(h0 * W + w0);
        }
        T* bp = best.data();
        Index* ap = at.data();
        for (int64_t h = h0; h < h1; h += dh)
          for (int64_t j = 0; j < kw; ++j) {
            // Column w = ow * sw - pw + j * dw, for the outputs whose window
            // has it inside [0, W): ow in [lo, hi).
            const int64_t shift = j * dw - pw;
            const int64_t lo = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
            const int64_t hi = std::min(OW, W - 1 - shift >= 0 ? (W - 1 - shift) / sw + 1 : 0);
            const S* px = &x(h, 0);
            const Index k0 = Index(h * W + shift);
            for (int64_t ow = lo; ow < hi; ++ow) {
              const T v = T(px[(ow * sw + shift) * x.sw]);
              const bool take = (v > bp[ow]) | (v != v);
              bp[ow] = take ? v : bp[ow];
              ap[ow] = take ? Index(k0 + ow * sw) : ap[ow];
            }
          }
        for (int64_t ow = 0; ow < OW; ++ow) {
          y(oh, ow) = S(bp[ow]);
          ind(oh, ow) = int64_t(ap[ow]);
        }
      }
    }
  });
}

template <typename T>
void max_backward(const Tensor& gt, const Tensor& it, const Tensor& gxt) {
  const int64_t W = gxt.size(3), OH = gt.size(2), OW = gt.size(3);
  parallel_for(gt.size(0) * gt.size(1), plane_grain(OH * OW), [&](int64_t b, int64_t e) {
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const T> g = plane<const T>(gt, nc);
      Plane<const int64_t> ind = plane<const int64_t>(it, nc);
      Plane<T> gx = plane<T>(gxt, nc);
      // Rows of gx one after another (always, for a dense NCHW gradient):
      // the flat index k = h * W + w is the offset k * sw, no division.
      const bool flat = gx.sh == W * gx.sw;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t k = ind(oh, ow);
          if (flat) gx.p[k * gx.sw] += g(oh, ow);
          else gx(k / W, k % W) += g(oh, ow);
        }
    }
  });
}

// bfloat16 planes: each plane's gradient summed in a float buffer (the
// adds of max_backward<float>, in its order), then rounded once into gx.
// gx's planes contiguous (dense NCHW, or channels_last with one channel).
void max_backward_bf16(const Tensor& gt, const Tensor& it, const Tensor& gxt) {
  const int64_t HW = gxt.size(2) * gxt.size(3), OH = gt.size(2), OW = gt.size(3);
  parallel_for(gt.size(0) * gt.size(1), plane_grain(HW), [&](int64_t b, int64_t e) {
    std::vector<float> acc(static_cast<size_t>(HW));
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const BFloat16> g = plane<const BFloat16>(gt, nc);
      Plane<const int64_t> ind = plane<const int64_t>(it, nc);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) acc[size_t(ind(oh, ow))] += float(g(oh, ow));
      float_to_bf16_n(acc.data(), reinterpret_cast<uint16_t*>(plane<BFloat16>(gxt, nc).p), HW, false);
    }
  });
}
bool contiguous_planes(const Tensor& t) { return t.stride(3) == 1 && t.stride(2) == t.size(3); }

// The window of output (oh, ow) and its divisor, as ATen's avg_pool2d.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};
AvgWindow avg_window(int64_t oh, int64_t ow, int64_t H, int64_t W, const Pool2dArgs& a) {
  int64_t h0 = oh * a.stride[0] - a.padding[0], w0 = ow * a.stride[1] - a.padding[1];
  int64_t h1 = std::min(h0 + a.kernel[0], H + a.padding[0]);
  int64_t w1 = std::min(w0 + a.kernel[1], W + a.padding[1]);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, H);
  w1 = std::min(w1, W);
  return {h0, h1, w0, w1, a.count_include_pad ? pool_size : (h1 - h0) * (w1 - w0)};
}

template <typename T>
void avg_forward(const Tensor& xt, const Tensor& yt, const Pool2dArgs& a) {
  const int64_t H = xt.size(2), W = xt.size(3), OH = yt.size(2), OW = yt.size(3);
  parallel_for(xt.size(0) * xt.size(1), plane_grain(OH * OW * a.kernel[0] * a.kernel[1]), [&](int64_t b, int64_t e) {
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const T> x = plane<const T>(xt, nc);
      Plane<T> y = plane<T>(yt, nc);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const AvgWindow win = avg_window(oh, ow, H, W, a);
          double s = 0;
          for (int64_t h = win.h0; h < win.h1; ++h)
            for (int64_t w = win.w0; w < win.w1; ++w) s += double(x(h, w));
          // An empty window (a ceil-mode window wholly in the padding, when
          // not counting padding) gives 0 / 0 in torch too.
          y(oh, ow) = T(s / double(win.divisor));
        }
    }
  });
}

template <typename T>
void avg_backward(const Tensor& gt, const Tensor& gxt, const Pool2dArgs& a) {
  const int64_t H = gxt.size(2), W = gxt.size(3), OH = gt.size(2), OW = gt.size(3);
  parallel_for(gt.size(0) * gt.size(1), plane_grain(OH * OW * a.kernel[0] * a.kernel[1]), [&](int64_t b, int64_t e) {
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const T> g = plane<const T>(gt, nc);
      Plane<T> gx = plane<T>(gxt, nc);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const AvgWindow win = avg_window(oh, ow, H, W, a);
          const T v = T(double(g(oh, ow)) / double(win.divisor));
          for (int64_t h = win.h0; h < win.h1; ++h)
            for (int64_t w = win.w0; w < win.w1; ++w) gx(h, w) += v;
        }
    }
  });
}

// Adaptive windows: [floor(i * in / out), ceil((i + 1) * in / out)).
int64_t start_index(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t end_index(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

template <typename T>
void adaptive_forward(const Tensor& xt, const Tensor& yt) {
  const int64_t H = xt.size(2), W = xt.size(3), OH = yt.size(2), OW = yt.size(3);
  parallel_for(xt.size(0) * xt.size(1), plane_grain(H * W), [&](int64_t b, int64_t e) {
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const T> x = plane<const T>(xt, nc);
      Plane<T> y = plane<T>(yt, nc);
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
          double s = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) s += double(x(h, w));
          y(oh, ow) = T(s / double((h1 - h0) * (w1 - w0)));
        }
      }
    }
  });
}

template <typename T>
void adaptive_backward(const Tensor& gt, const Tensor& gxt) {
  const int64_t H = gxt.size(2), W = gxt.size(3), OH = gt.size(2), OW = gt.size(3);
  parallel_for(gt.size(0) * gt.size(1), plane_grain(H * W), [&](int64_t b, int64_t e) {
    for (int64_t nc = b; nc < e; ++nc) {
      Plane<const T> g = plane<const T>(gt, nc);
      Plane<T> gx = plane<T>(gxt, nc);
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
          const T v = T(double(g(oh, ow)) / double((h1 - h0) * (w1 - w0)));
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) gx(h, w) += v;
        }
      }
    }
  });
}

// ---- channels_last: channels innermost ------------------------------------
// The plane loops above would step C elements between neighbours of an
// NHWC tensor (one useful float per cache line for C >= 16: measured 5x
// slower than torch on [32,64,112,112]); these loops keep channels
// innermost, contiguous and vectorizable, and split over (n, output row).
// Same comparisons as the plane loops, per channel, so the same results.

// x's element (n, 0, h, w): channels follow with stride 1.
template <typename T>
T* pixel(const Tensor& t, int64_t n, int64_t h, int64_t w) {
  return t.data<T>() + n * t.stride(0) + h * t.stride(2) + w * t.stride(3);
}

bool channels_innermost(const Tensor& t) { return t.stride(1) == 1 && t.size(1) > 1; }

// Each output pixel's window as a list of input pixels (offsets from the
// image's start, flat indices), then simd::max_pool_pixel across channels.
// S: the storage type.
template <typename S>
void max_forward_cl(const Tensor& xt, const Tensor& yt, const Tensor& it, const Pool2dArgs& a) {
  const int64_t C = xt.size(1), H = xt.size(2), W = xt.size(3), OH = yt.size(2), OW = yt.size(3);
  const int64_t xs0 = xt.stride(0), xs2 = xt.stride(2), xs3 = xt.stride(3);
  const int64_t ys0 = yt.stride(0), ys2 = yt.stride(2), ys3 = yt.stride(3);
  const int64_t is0 = it.stride(0), is2 = it.stride(2), is3 = it.stride(3);
  const S* x = xt.data<S>();
  S* y = yt.data<S>();
  int64_t* ind = it.data<int64_t>();
  parallel_for(xt.size(0) * OH, plane_grain(OW * C * a.kernel[0] * a.kernel[1]), [&](int64_t b, int64_t e) {
    // float's indices as int32 (H * W < 2^31 is checked by the caller).
    using Index = std::conditional_t<sizeof(Compute<S>) == 4, int32_t, int64_t>;
    std::vector<int64_t> offsets(static_cast<size_t>(a.kernel[0] * a.kernel[1]));
    std::vector<Index> flat(offsets.size());
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / OH, oh = item % OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = oh * a.stride[0] - a.padding[0], w0 = ow * a.stride[1] - a.padding[1];
        const int64_t h1 = std::min(h0 + (a.kernel[0] - 1) * a.dilation[0] + 1, H);
        const int64_t w1 = std::min(w0 + (a.kernel[1] - 1) * a.dilation[1] + 1, W);
        while (h0 < 0) h0 += a.dilation[0];
        while (w0 < 0) w0 += a.dilation[1];
        int64_t count = 0;
        for (int64_t h = h0; h < h1; h += a.dilation[0])
          for (int64_t w = w0; w < w1; w += a.dilation[1]) {
            offsets[count] = n * xs0 + h * xs2 + w * xs3;
            flat[count++] = Index(h * W + w);
          }
        simd::max_pool_pixel(x, offsets.data(), flat.data(), count, C, y + n * ys0 + oh * ys2 + ow * ys3,
                             ind + n * is0 + oh * is2 + ow * is3);
      }
    }
  });
}

// Split over n only: two output pixels of one image may scatter to the
// same input pixel.
template <typename T>
void max_backward_cl(const Tensor& gt, const Tensor& it, const Tensor& gxt) {
  const int64_t C = gt.size(1), W = gxt.size(3), OH = gt.size(2), OW = gt.size(3);
  // Pixels of gx one after another (a dense channels_last gradient): the
  // flat index k = h * W + w is the pixel offset k * stride(3), no division.
  const int64_t pixel_stride = gxt.stride(3);
  const bool flat = gxt.stride(2) == W * pixel_stride;
  parallel_for(gt.size(0), 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      T* gx_n = pixel<T>(gxt, n, 0, 0);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const T* pg = pixel<const T>(gt, n, oh, ow);
          const int64_t* pi = pixel<const int64_t>(it, n, oh, ow);
          if (flat) {
            for (int64_t c = 0; c < C; ++c) gx_n[pi[c] * pixel_stride + c] += pg[c];
          } else {
            for (int64_t c = 0; c < C; ++c) pixel<T>(gxt, n, pi[c] / W, pi[c] % W)[c] += pg[c];
          }
        }
    }
  });
}

// bfloat16: each image's gradient summed in a float buffer (the adds of
// max_backward_cl<float>, in its order), then rounded once into gx, whose
// images are dense channels_last.
void max_backward_cl_bf16(const Tensor& gt, const Tensor& it, const Tensor& gxt) {
  const int64_t C = gt.size(1), OH = gt.size(2), OW = gt.size(3);
  const int64_t image = gxt.size(2) * gxt.size(3) * C;
  parallel_for(gt.size(0), 1, [&](int64_t b, int64_t e) {
    std::vector<float> acc(static_cast<size_t>(image));
    float* pa = acc.data();
    for (int64_t n = b; n < e; ++n) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const BFloat16* pg = pixel<const BFloat16>(gt, n, oh, ow);
          const int64_t* pi = pixel<const int64_t>(it, n, oh, ow);
          for (int64_t c = 0; c < C; ++c) pa[pi[c] * C + c] += float(pg[c]);
        }
      float_to_bf16_n(pa, reinterpret_cast<uint16_t*>(pixel<BFloat16>(gxt, n, 0, 0)), image, false);
    }
  });
}
bool dense_channels_last(const Tensor& t) {
  return t.stride(1) == 1 && t.stride(3) == t.size(1) && t.stride(2) == t.size(3) * t.size(1);
}

template <typename T>
void adaptive_forward_cl(const Tensor& xt, const Tensor& yt) {
  const int64_t C = xt.size(1), H = xt.size(2), W = xt.size(3), OH = yt.size(2), OW = yt.size(3);
  parallel_for(xt.size(0) * OH, plane_grain(OW * C * (H / std::max<int64_t>(OH, 1) + 1) * W), [&](int64_t b, int64_t e) {
    std::vector<double> acc(static_cast<size_t>(C));
    for (int64_t item = b; item < e; ++item) {
      const int64_t n = item / OH, oh = item % OH;
      const int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            const T* px = pixel<const T>(xt, n, h, w);
            for (int64_t c = 0; c < C; ++c) acc[size_t(c)] += double(px[c]);
          }
        const double div = double((h1 - h0) * (w1 - w0));
        T* py = pixel<T>(yt, n, oh, ow);
        for (int64_t c = 0; c < C; ++c) py[c] = T(acc[size_t(c)] / div);
      }
    }
  });
}

// Split over n: windows overlap when the output is larger than the input.
template <typename T>
void adaptive_backward_cl(const Tensor& gt, const Tensor& gxt) {
  const int64_t C = gt.size(1), H = gxt.size(2), W = gxt.size(3), OH = gt.size(2), OW = gt.size(3);
  parallel_for(gt.size(0), 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n)
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = start_index(oh, OH, H), h1 = end_index(oh, OH, H);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = start_index(ow, OW, W), w1 = end_index(ow, OW, W);
          const double div = double((h1 - h0) * (w1 - w0));
          const T* pg = pixel<const T>(gt, n, oh, ow);
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
              T* px = pixel<T>(gxt, n, h, w);
              for (int64_t c = 0; c < C; ++c) px[c] += T(double(pg[c]) / div);
            }
        }
      }
  });
}

// A zero-filled gradient of x's sizes.
Tensor zeros_in(const Shape& sizes, const Tensor& g, tsr_memory_format fmt) {
  Tensor gx = empty_cpu(sizes, g.dtype(), fmt);
  fill(gx, 0.0);
  return gx;
}

}  // namespace

namespace ref {

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt) {
  const Shape sizes = pool2d_output_sizes("max_pool2d", x, a);
  Tensor y = empty_cpu(sizes, x.dtype(), fmt), ind = empty_cpu(sizes, TSR_INT64, fmt);
  if (y.numel()) by_storage(x.dtype(), [&](auto t) {
      using S = decltype(t);
      const bool small = x.size(2) * x.size(3) < (int64_t(1) << 31);
      if (channels_innermost(x) && channels_innermost(y) && small) max_forward_cl<S>(x, y, ind, a);
      else if (small && sizeof(Compute<S>) == 4) max_forward<S, int32_t>(x, y, ind, a);
      else max_forward<S, int64_t>(x, y, ind, a);
    });
  return {y, ind};
}

Tensor max_pool2d_backward(const Tensor& g, const Tensor& indices, const Shape& x_sizes, tsr_memory_format fmt) {
  if (g.dtype() == TSR_BFLOAT16 && g.numel()) {
    // Every element of gx is written by the rounding of its float sums.
    Tensor gx = empty_cpu(x_sizes, g.dtype(), fmt);
    if (channels_innermost(g) && channels_innermost(indices) && dense_channels_last(gx)) {
      max_backward_cl_bf16(g, indices, gx);
      return gx;
    }
    if (contiguous_planes(gx)) {
      max_backward_bf16(g, indices, gx);
      return gx;
    }
    // Never for a dense fmt: widen, as any other layout.
    Tensor wide = empty_cpu(g.sizes(), TSR_FLOAT32, fmt);
    copy_strided(wide, g);
    copy_strided(gx, max_pool2d_backward(wide, indices, x_sizes, fmt));
    return gx;
  }
  Tensor gx = zeros_in(x_sizes, g, fmt);
  if (g.numel()) by_dtype(g.dtype(), [&](auto t) {
      using T = decltype(t);
      if (channels_innermost(g) && channels_innermost(indices) && channels_innermost(gx)) max_backward_cl<T>(g, indices, gx);
      else max_backward<T>(g, indices, gx);
    });
  return gx;
}

Tensor adaptive_avg_pool2d(const Tensor& x, const Pair& output_size, tsr_memory_format fmt) {
  Tensor y = empty_cpu(adaptive_pool2d_output_sizes(x, output_size), x.dtype(), fmt);
  if (y.numel()) by_dtype(x.dtype(), [&](auto t) {
      using T = decltype(t);
      if (channels_innermost(x) && channels_innermost(y)) adaptive_forward_cl<T>(x, y);
      else adaptive_forward<T>(x, y);
    });
  return y;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, tsr_memory_format fmt) {
  Tensor gx = zeros_in(x_sizes, g, fmt);
  if (g.numel()) by_dtype(g.dtype(), [&](auto t) {
      using T = decltype(t);
      if (channels_innermost(g) && channels_innermost(gx)) adaptive_backward_cl<T>(g, gx);
      else adaptive_backward<T>(g, gx);
    });
  return gx;
}

Tensor avg_pool2d(const Tensor& x, const Pool2dArgs& a, tsr_memory_format fmt) {
  Tensor y = empty_cpu(pool2d_output_sizes("avg_pool2d", x, a), x.dtype(), fmt);
  if (y.numel()) by_dtype(x.dtype(), [&](auto t) { avg_forward<decltype(t)>(x, y, a); });
  return y;
}

Tensor avg_pool2d_backward(const Tensor& g, const Shape& x_sizes, const Pool2dArgs& a, tsr_memory_format fmt) {
  Tensor gx = zeros_in(x_sizes, g, fmt);
  if (g.numel()) by_dtype(g.dtype(), [&](auto t) { avg_backward<decltype(t)>(g, gx, a); });
  return gx;
}

}  // namespace ref

}  // namespace tsr::kernels
