// bfloat16 batch norm and max pooling, which read and write bfloat16 and
// widen it to float in registers (batch_norm_simd.cpp, pooling_simd.cpp,
// pooling_ref.cpp), against the float32 kernels run on the same values
// widened, their results rounded once to bfloat16: the two must agree bit
// for bit (the same float operations in the same order), NaNs, ties and the
// float accumulation of overlapping pooling windows included. Shapes chosen
// for the vector loops' edges: channel counts below, at and past a vector
// (1, 3, 8, 11, 20), runs and planes not a multiple of it (5x7), more rows
// than one chunk of the channels-innermost sums (256), both memory formats.
// The torch goldens of test_cnn_lowp.c check the values themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/factory.h"
#include "core/half.h"
#include "cpu/kernels/cnn.h"
#include "cpu/kernels/copy.h"
#include "device_test_util.h"

namespace tsr::devtest {
namespace {

using kernels::Pool2dArgs;

Tensor randn(const Shape& sizes, tsr_memory_format fmt, uint32_t seed, float scale = 1, float shift = 0) {
  Tensor t = empty(sizes, TSR_FLOAT32, fmt, kCpu);
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(g) * scale + shift;
  return t;
}

// t converted to dtype, dense in fmt (4-D) or contiguous.
Tensor as_dtype(const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt) {
  if (!t.defined()) return t;
  Tensor r = empty(t.sizes(), dtype, t.ndim() == 4 ? fmt : TSR_CONTIGUOUS_FORMAT, kCpu);
  kernels::copy_strided(r, t);
  return r;
}

// a and b: same sizes, strides and dtype, the same bytes.
void expect_same_bits(const Tensor& a, const Tensor& b, const char* what) {
  ASSERT_TRUE(a.defined() && b.defined()) << what;
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  ASSERT_EQ(a.strides(), b.strides()) << what;
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  const auto* pa = static_cast<const unsigned char*>(a.data_ptr());
  const auto* pb = static_cast<const unsigned char*>(b.data_ptr());
  const int64_t esize = a.nbytes() / std::max<int64_t>(1, a.numel());
  int bad = 0;
  for (int64_t i = 0; i < a.numel() && bad < 5; ++i)
    if (std::memcmp(pa + i * esize, pb + i * esize, size_t(esize)) != 0) {
      ADD_FAILURE() << what << ": element " << i << " (in memory order) differs";
      ++bad;
    }
}

struct Shape4 {
  int64_t n, c, h, w;
};
const Shape4 kShapes[] = {{3, 1, 5, 7}, {2, 3, 5, 7}, {4, 8, 9, 9}, {3, 11, 10, 9}, {2, 20, 5, 7}};

TEST(CnnBf16Kernels, BatchNormMatchesFloat32RoundedBitwise) {
  uint32_t seed = 1;
  for (const Shape4& s : kShapes)
    for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST})
      for (bool training : {true, false})
        for (bool affine : {true, false}) {
          SCOPED_TRACE(::testing::Message() << "[" << s.n << "," << s.c << "," << s.h << "," << s.w << "] "
                                            << (fmt == TSR_CHANNELS_LAST ? "channels_last" : "contiguous")
                                            << (training ? " training" : " eval") << (affine ? " affine" : ""));
          const Shape xs{s.n, s.c, s.h, s.w}, cs{s.c};
          // A mean away from zero, as a ReLU network's: the centred sums matter.
          Tensor x = as_dtype(randn(xs, fmt, seed++, 2.0f, 0.75f), TSR_BFLOAT16, fmt);
          Tensor xf = as_dtype(x, TSR_FLOAT32, fmt);
          Tensor w = affine ? randn(cs, TSR_CONTIGUOUS_FORMAT, seed++) : Tensor();
          Tensor b = affine ? randn(cs, TSR_CONTIGUOUS_FORMAT, seed++) : Tensor();
          Tensor rm = randn(cs, TSR_CONTIGUOUS_FORMAT, seed++, 0.5f);
          Tensor rv = randn(cs, TSR_CONTIGUOUS_FORMAT, seed++, 0.1f, 1.0f);
          auto r = kernels::batch_norm(x, w, b, rm, rv, training, 1e-5, fmt, TSR_FLOAT32);
          auto rr = kernels::ref::batch_norm(xf, w, b, rm, rv, training, 1e-5, fmt);
          EXPECT_EQ(r.out.dtype(), TSR_BFLOAT16);
          expect_same_bits(r.out, as_dtype(rr.out, TSR_BFLOAT16, fmt), "out");
          expect_same_bits(r.mean, rr.mean, "mean");
          expect_same_bits(r.var, rr.var, "var");
          if (training) expect_same_bits(r.unbiased_var, rr.unbiased_var, "unbiased var");

          Tensor g = as_dtype(randn(xs, fmt, seed++), TSR_BFLOAT16, fmt), gf = as_dtype(g, TSR_FLOAT32, fmt);
          auto gr = kernels::batch_norm_backward(g, x, w, r.mean, r.var, 1e-5, training, fmt, true, true, true);
          auto grr = kernels::ref::batch_norm_backward(gf, xf, w, rr.mean, rr.var, 1e-5, training, fmt, true, true, true);
          EXPECT_EQ(gr.input.dtype(), TSR_BFLOAT16);
          expect_same_bits(gr.input, as_dtype(grr.input, TSR_BFLOAT16, fmt), "grad input");
          expect_same_bits(gr.weight, grr.weight, "grad weight");
          expect_same_bits(gr.bias, grr.bias, "grad bias");
        }
}

// bfloat16 parameters (an all-bfloat16 module): widened for the kernel, the
// statistics and parameter gradients rounded to bfloat16 once.
TEST(CnnBf16Kernels, BatchNormWithBfloat16ParametersMatchesFloat32Rounded) {
  const Shape xs{3, 11, 5, 7}, cs{11};
  const tsr_memory_format fmt = TSR_CHANNELS_LAST;
  Tensor x = as_dtype(randn(xs, fmt, 40), TSR_BFLOAT16, fmt), xf = as_dtype(x, TSR_FLOAT32, fmt);
  Tensor w = as_dtype(randn(cs, TSR_CONTIGUOUS_FORMAT, 41), TSR_BFLOAT16, fmt), wf = as_dtype(w, TSR_FLOAT32, fmt);
  Tensor b = as_dtype(randn(cs, TSR_CONTIGUOUS_FORMAT, 42), TSR_BFLOAT16, fmt), bf = as_dtype(b, TSR_FLOAT32, fmt);
  auto r = kernels::batch_norm(x, w, b, Tensor(), Tensor(), true, 1e-5, fmt, TSR_BFLOAT16);
  auto rr = kernels::ref::batch_norm(xf, wf, bf, Tensor(), Tensor(), true, 1e-5, fmt);
  expect_same_bits(r.out, as_dtype(rr.out, TSR_BFLOAT16, fmt), "out");
  expect_same_bits(r.mean, as_dtype(rr.mean, TSR_BFLOAT16, fmt), "mean");
  expect_same_bits(r.var, as_dtype(rr.var, TSR_BFLOAT16, fmt), "var");
  Tensor g = as_dtype(randn(xs, fmt, 43), TSR_BFLOAT16, fmt), gf = as_dtype(g, TSR_FLOAT32, fmt);
  auto gr = kernels::batch_norm_backward(g, x, w, r.mean, r.var, 1e-5, true, fmt, true, true, true);
  auto grr = kernels::ref::batch_norm_backward(gf, xf, wf, as_dtype(r.mean, TSR_FLOAT32, fmt),
                                               as_dtype(r.var, TSR_FLOAT32, fmt), 1e-5, true, fmt, true, true, true);
  expect_same_bits(gr.input, as_dtype(grr.input, TSR_BFLOAT16, fmt), "grad input");
  expect_same_bits(gr.weight, as_dtype(grr.weight, TSR_BFLOAT16, fmt), "grad weight");
  expect_same_bits(gr.bias, as_dtype(grr.bias, TSR_BFLOAT16, fmt), "grad bias");
}

// NaNs at a few places (a quiet one, a signalling one: the float path
// quiets it on rounding, so must the bfloat16 one), ties from bfloat16's
// coarse values, windows that overlap (3x3 stride 2: the backward adds
// several gradients into one element, in float) and that do not, padding,
// dilation and ceil mode.
TEST(CnnBf16Kernels, MaxPoolMatchesFloat32RoundedBitwise) {
  const Pool2dArgs cases[] = {
      {{2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true},
      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, false, true},
      {{2, 3}, {2, 2}, {1, 1}, {2, 2}, true, true},
      {{3, 3}, {1, 1}, {1, 1}, {1, 1}, false, true},
  };
  uint32_t seed = 100;
  for (const Shape4& s : kShapes)
    for (const Pool2dArgs& a : cases)
      for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST}) {
        SCOPED_TRACE(::testing::Message() << "[" << s.n << "," << s.c << "," << s.h << "," << s.w << "] kernel "
                                          << a.kernel[0] << "x" << a.kernel[1] << " stride " << a.stride[0]
                                          << (fmt == TSR_CHANNELS_LAST ? " channels_last" : " contiguous"));
        const Shape xs{s.n, s.c, s.h, s.w};
        // Values rounded to a coarse grid: many ties within a window.
        Tensor x0 = randn(xs, fmt, seed++);
        float* p = x0.data<float>();
        for (int64_t i = 0; i < x0.numel(); ++i) p[i] = std::round(p[i] * 4) / 4;
        p[0] = std::numeric_limits<float>::quiet_NaN();
        if (x0.numel() > 37) p[37] = bf16_to_float(0x7f81);  // signalling NaN
        if (x0.numel() > 50) p[50] = -std::numeric_limits<float>::infinity();
        Tensor x = as_dtype(x0, TSR_BFLOAT16, fmt), xf = as_dtype(x, TSR_FLOAT32, fmt);
        auto [y, ind] = kernels::max_pool2d(x, a, fmt);
        auto [yf, indf] = kernels::ref::max_pool2d(xf, a, fmt);
        ASSERT_EQ(y.dtype(), TSR_BFLOAT16);
        expect_same_bits(y, as_dtype(yf, TSR_BFLOAT16, fmt), "max_pool2d");
        expect_same_bits(ind, indf, "indices");
        Tensor g = as_dtype(randn(y.sizes(), fmt, seed++), TSR_BFLOAT16, fmt), gf = as_dtype(g, TSR_FLOAT32, fmt);
        Tensor gx = kernels::max_pool2d_backward(g, ind, xs, fmt);
        ASSERT_EQ(gx.dtype(), TSR_BFLOAT16);
        expect_same_bits(gx, as_dtype(kernels::ref::max_pool2d_backward(gf, indf, xs, fmt), TSR_BFLOAT16, fmt),
                         "max_pool2d backward");
      }
}

// Every element of the gradient is written (the bfloat16 path allocates it
// without zeros): input pixels no window reaches get 0.
TEST(CnnBf16Kernels, MaxPoolBackwardZeroesUncoveredInput) {
  const Pool2dArgs a{{2, 2}, {3, 3}, {0, 0}, {1, 1}, false, true};  // stride past the kernel
  for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST}) {
    const Shape xs{2, 11, 7, 8};
    Tensor x = as_dtype(randn(xs, fmt, 7), TSR_BFLOAT16, fmt);
    auto [y, ind] = kernels::max_pool2d(x, a, fmt);
    Tensor g = as_dtype(randn(y.sizes(), fmt, 8), TSR_BFLOAT16, fmt);
    Tensor gx = as_dtype(kernels::max_pool2d_backward(g, ind, xs, fmt), TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT);
    const float* p = gx.data<float>();
    int64_t zeros = 0;
    for (int64_t i = 0; i < gx.numel(); ++i) zeros += p[i] == 0.0f;
    // One element of each of a plane's 2 x 3 windows gets its gradient, the
    // other 50 of the plane's 56 stay 0.
    ASSERT_EQ(y.size(2) * y.size(3), 6);
    EXPECT_EQ(zeros, 2 * 11 * (56 - 6));
  }
}

}  // namespace
}  // namespace tsr::devtest
