// The convolution, pooling and batch-norm kernels below the C API: oneDNN's
// float32 results (cnn_dispatch.cpp) against the reference loops on shapes
// and layouts the golden tests do not cover (strides, dilation, groups,
// ceil-mode average pooling whose padding rule sends it back to the
// reference, cropped windows), bfloat16 (oneDNN) and float16 (widened)
// convolution against the float32 loops on the same values, and the device rules: tensors on two devices
// are refused with PyTorch's message before anything is written, and a
// device without these kernels gets TSR_ERR_UNSUPPORTED.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/cnn.h"
#include "cpu/kernels/copy.h"
#include "device_test_util.h"
#include "cpu/kernels/threads.h"
#include "ops/cnn.h"

// libgomp's, which oneDNN runs on (linked into tessera).
extern "C" int omp_get_max_threads(void);
extern "C" void omp_set_num_threads(int);

namespace tsr::devtest {
namespace {

using kernels::Conv2dArgs;
using kernels::Pool2dArgs;

Tensor randn(const Shape& sizes, tsr_memory_format fmt, uint32_t seed) {
  Tensor t = empty(sizes, TSR_FLOAT32, fmt, kCpu);
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  // Fill in memory order: every element once whatever the strides.
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(g);
  return t;
}

void expect_close(const Tensor& a, const Tensor& b, double tol, const char* what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  EXPECT_EQ(a.strides(), b.strides()) << what;
  Tensor ac = kernels::contiguous_or_self(a), bc = kernels::contiguous_or_self(b);
  const float *pa = ac.data<float>(), *pb = bc.data<float>();
  int bad = 0;
  for (int64_t i = 0; i < a.numel() && bad < 5; ++i)
    if (!(std::fabs(pa[i] - pb[i]) <= tol * (1 + std::fabs(pb[i])))) {
      ADD_FAILURE() << what << "[" << i << "]: " << pa[i] << " vs reference " << pb[i];
      ++bad;
    }
}

struct ConvCase {
  Shape x, w;
  Conv2dArgs a;
};

TEST(CnnKernels, OneDnnConvolutionMatchesReference) {
  const ConvCase cases[] = {
      {{2, 6, 9, 7}, {4, 3, 3, 2}, {{2, 1}, {1, 0}, {1, 2}, 2}},
      {{1, 8, 5, 5}, {8, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 8}},
      {{3, 16, 6, 6}, {32, 16, 1, 1}, {{2, 2}, {0, 0}, {1, 1}, 1}},
      {{2, 3, 11, 10}, {5, 3, 5, 3}, {{3, 2}, {2, 1}, {2, 3}, 1}},
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases)
    for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST}) {
      Tensor x = randn(c.x, fmt, seed++), w = randn(c.w, fmt, seed++), b = randn({c.w[0]}, TSR_CONTIGUOUS_FORMAT, seed++);
      Tensor y = kernels::conv2d(x, w, b, c.a, fmt), yr = kernels::ref::conv2d(x, w, b, c.a, fmt);
      expect_close(y, yr, 1e-4, "conv2d");
      Tensor g = randn(y.sizes(), fmt, seed++);
      for (int mask = 1; mask < 8; ++mask) {
        const bool nx = mask & 1, nw = mask & 2, nb = mask & 4;
        // What the op layer passes: x only for the weight's gradient, w only for the input's.
        Tensor xx = nw ? x : Tensor(), ww = nx ? w : Tensor();
        auto r = kernels::conv2d_backward(g, xx, ww, x.sizes(), w.sizes(), c.a, fmt, nx, nw, nb);
        auto rr = kernels::ref::conv2d_backward(g, xx, ww, x.sizes(), w.sizes(), c.a, fmt, nx, nw, nb);
        if (nx) expect_close(r.input, rr.input, 1e-4, "grad input");
        if (nw) expect_close(r.weight, rr.weight, 1e-4, "grad weight");
        if (nb) expect_close(r.bias, rr.bias, 1e-4, "grad bias");
        EXPECT_EQ(r.input.defined(), nx);
        EXPECT_EQ(r.weight.defined(), nw);
        EXPECT_EQ(r.bias.defined(), nb);
      }
    }
}

// t converted to dtype, keeping its strides (dense in fmt).
Tensor as_dtype(const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt) {
  Tensor r = empty(t.sizes(), dtype, t.ndim() == 4 ? fmt : TSR_CONTIGUOUS_FORMAT, kCpu);
  kernels::copy_strided(r, t);
  return r;
}

// bfloat16 convolution (oneDNN's bf16 kernels; every gradient combination,
// the bias's alone included) against the float32 reference loops run on the
// same bfloat16 values: one rounding of a float32 accumulation apart, so
// within a bfloat16 ulp (2^-7 relative) or so of magnitude 1 + |value|.
// float16 (widened to float32, rounded once) likewise, within 2^-10.
TEST(CnnKernels, LowPrecisionConvolutionMatchesFloat32Rounded) {
  const ConvCase cases[] = {
      {{2, 6, 9, 7}, {4, 3, 3, 2}, {{2, 1}, {1, 0}, {1, 2}, 2}},
      {{1, 8, 5, 5}, {8, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 8}},
      {{3, 16, 6, 6}, {32, 16, 1, 1}, {{2, 2}, {0, 0}, {1, 1}, 1}},
  };
  uint32_t seed = 500;
  for (tsr_dtype dt : {TSR_BFLOAT16, TSR_FLOAT16}) {
    const double tol = dt == TSR_BFLOAT16 ? 1.0 / 128 : 1.0 / 1024;
    for (const ConvCase& c : cases)
      for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST}) {
        Tensor x = as_dtype(randn(c.x, fmt, seed++), dt, fmt), w = as_dtype(randn(c.w, fmt, seed++), dt, fmt),
               b = as_dtype(randn({c.w[0]}, TSR_CONTIGUOUS_FORMAT, seed++), dt, fmt);
        Tensor xf = as_dtype(x, TSR_FLOAT32, fmt), wf = as_dtype(w, TSR_FLOAT32, fmt), bf = as_dtype(b, TSR_FLOAT32, fmt);
        Tensor y = kernels::conv2d(x, w, b, c.a, fmt);
        ASSERT_EQ(y.dtype(), dt);
        expect_close(as_dtype(y, TSR_FLOAT32, fmt), kernels::ref::conv2d(xf, wf, bf, c.a, fmt), tol, "conv2d");
        Tensor g = as_dtype(randn(y.sizes(), fmt, seed++), dt, fmt), gf = as_dtype(g, TSR_FLOAT32, fmt);
        for (int mask = 1; mask < 8; ++mask) {
          const bool nx = mask & 1, nw = mask & 2, nb = mask & 4;
          auto r = kernels::conv2d_backward(g, nw ? x : Tensor(), nx ? w : Tensor(), x.sizes(), w.sizes(), c.a, fmt,
                                            nx, nw, nb);
          auto rr = kernels::ref::conv2d_backward(gf, nw ? xf : Tensor(), nx ? wf : Tensor(), x.sizes(), w.sizes(),
                                                  c.a, fmt, nx, nw, nb);
          const Tensor* got[] = {&r.input, &r.weight, &r.bias};
          const Tensor* want[] = {&rr.input, &rr.weight, &rr.bias};
          const char* what[] = {"grad input", "grad weight", "grad bias"};
          for (int k = 0; k < 3; ++k) {
            ASSERT_EQ(got[k]->defined(), bool(mask & (1 << k))) << what[k];
            if (!got[k]->defined()) continue;
            EXPECT_EQ(got[k]->dtype(), dt) << what[k];
            expect_close(as_dtype(*got[k], TSR_FLOAT32, fmt), *want[k], tol, what[k]);
          }
        }
      }
  }
}

TEST(CnnKernels, OneDnnAvgPoolMatchesReference) {
  const Pool2dArgs cases[] = {
      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, false, true},
      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, true, true},    // past the padding: reference
      {{3, 3}, {2, 2}, {1, 0}, {1, 1}, true, false},   // ceil mode, oneDNN's exclude rule
      {{2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true},   // odd sizes: cropped input
      {{3, 2}, {1, 3}, {1, 1}, {1, 1}, false, false},
  };
  uint32_t seed = 100;
  for (const Pool2dArgs& a : cases)
    for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST}) {
      Tensor x = randn({2, 5, 9, 7}, fmt, seed++);
      Tensor y = kernels::avg_pool2d(x, a, fmt), yr = kernels::ref::avg_pool2d(x, a, fmt);
      expect_close(y, yr, 1e-5, "avg_pool2d");
      Tensor g = randn(y.sizes(), fmt, seed++);
      expect_close(kernels::avg_pool2d_backward(g, x.sizes(), a, fmt),
                   kernels::ref::avg_pool2d_backward(g, x.sizes(), a, fmt), 1e-5, "avg_pool2d backward");
    }
}

TEST(CnnKernels, OneDnnBatchNormMatchesReference) {
  uint32_t seed = 200;
  for (tsr_memory_format fmt : {TSR_CONTIGUOUS_FORMAT, TSR_CHANNELS_LAST})
    for (bool training : {true, false})
      for (bool affine : {true, false}) {
        Tensor x = randn({4, 6, 5, 3}, fmt, seed++);
        Tensor w = affine ? randn({6}, TSR_CONTIGUOUS_FORMAT, seed++) : Tensor();
        Tensor b = affine ? randn({6}, TSR_CONTIGUOUS_FORMAT, seed++) : Tensor();
        Tensor rm = randn({6}, TSR_CONTIGUOUS_FORMAT, seed++), rv = empty({6}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
        for (int i = 0; i < 6; ++i) rv.data<float>()[i] = 0.5f + 0.1f * float(i);
        auto r = kernels::batch_norm(x, w, b, rm, rv, training, 1e-3, fmt, x.dtype());
        auto rr = kernels::ref::batch_norm(x, w, b, rm, rv, training, 1e-3, fmt);
        expect_close(r.out, rr.out, 1e-4, "batch_norm");
        expect_close(r.mean, rr.mean, 1e-5, "mean");
        expect_close(r.var, rr.var, 1e-4, "var");
        if (training) expect_close(r.unbiased_var, rr.unbiased_var, 1e-4, "unbiased var");
        Tensor g = randn(x.sizes(), fmt, seed++);
        auto gr = kernels::batch_norm_backward(g, x, w, r.mean, r.var, 1e-3, training, fmt, true, affine, affine);
        auto grr = kernels::ref::batch_norm_backward(g, x, w, r.mean, r.var, 1e-3, training, fmt, true, affine, affine);
        expect_close(gr.input, grr.input, 1e-3, "grad input");
        if (affine) {
          expect_close(gr.weight, grr.weight, 1e-3, "grad weight");
          expect_close(gr.bias, grr.bias, 1e-3, "grad bias");
        }
      }
}

// oneDNN runs with tsr_set_num_threads' count, set for the call only: the
// caller's own OpenMP setting is what it was afterwards, and results agree
// across thread counts.
TEST(CnnKernels, OneDnnThreadCountIsScopedToTheCall) {
  const int64_t before = kernels::num_threads();
  omp_set_num_threads(3);
  Tensor x = randn({2, 8, 9, 9}, TSR_CHANNELS_LAST, 7), w = randn({8, 8, 3, 3}, TSR_CHANNELS_LAST, 8);
  const Conv2dArgs a{{1, 1}, {1, 1}, {1, 1}, 1};
  kernels::set_num_threads(1);
  Tensor y1 = kernels::conv2d(x, w, Tensor(), a, TSR_CHANNELS_LAST);
  EXPECT_EQ(omp_get_max_threads(), 3);
  kernels::set_num_threads(2);
  Tensor y2 = kernels::conv2d(x, w, Tensor(), a, TSR_CHANNELS_LAST);
  EXPECT_EQ(omp_get_max_threads(), 3);
  expect_close(y1, y2, 1e-5, "conv2d on 1 and 2 threads");
  kernels::set_num_threads(before);
}

// Several threads running oneDNN primitives at once (distinct shapes, so
// distinct primitives, each with its scratchpad) get what one thread gets.
TEST(CnnKernels, ConcurrentCallsAgreeWithSerialOnes) {
  struct Job {
    Tensor x, w, g, y, gx, gw;
    Conv2dArgs a;
  };
  std::vector<Job> jobs;
  for (int k = 0; k < 4; ++k) {
    Job j;
    j.x = randn({2, 8 + 4 * k, 10 + k, 9}, k % 2 ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT, 300 + k);
    j.w = randn({16, 8 + 4 * k, 3, 3}, k % 2 ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT, 310 + k);
    j.a = {{1, 1}, {1, 1}, {1, 1}, 1};
    const tsr_memory_format fmt = kernels::conv_format(j.x, j.w, j.a);
    j.y = kernels::conv2d(j.x, j.w, Tensor(), j.a, fmt);
    j.g = randn(j.y.sizes(), fmt, 320 + k);
    auto r = kernels::conv2d_backward(j.g, j.x, j.w, j.x.sizes(), j.w.sizes(), j.a, fmt, true, true, false);
    j.gx = r.input;
    j.gw = r.weight;
    jobs.push_back(j);
  }
  std::vector<std::thread> threads;
  std::vector<int> bad(jobs.size(), 0);
  for (size_t k = 0; k < jobs.size(); ++k)
    threads.emplace_back([&, k] {
      const Job& j = jobs[k];
      const tsr_memory_format fmt = kernels::conv_format(j.x, j.w, j.a);
      for (int rep = 0; rep < 10; ++rep) {
        Tensor y = kernels::conv2d(j.x, j.w, Tensor(), j.a, fmt);
        auto r = kernels::conv2d_backward(j.g, j.x, j.w, j.x.sizes(), j.w.sizes(), j.a, fmt, true, true, false);
        for (auto [got, want] : {std::pair{y, j.y}, std::pair{r.input, j.gx}, std::pair{r.weight, j.gw}})
          if (std::memcmp(got.data_ptr(), want.data_ptr(), size_t(got.nbytes())) != 0) ++bad[k];
      }
    });
  for (auto& t : threads) t.join();
  for (size_t k = 0; k < jobs.size(); ++k) EXPECT_EQ(bad[k], 0) << "job " << k;
}

class CnnDeviceTest : public DeviceFixture {
 protected:
  CnnDeviceTest() : DeviceFixture(&rec) {}
  RecordingKernels rec;
  Tensor dev(const Shape& sizes) { return empty(sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, sim_device()); }
};

void expect_status(tsr_status want, const char* needle, const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), want) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(CnnDeviceTest, MixedDevicesRefusedAndOtherDevicesUnsupported) {
  Tensor x = empty({2, 3, 5, 5}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
  Tensor w = dev({4, 3, 3, 3});
  const Conv2dArgs a{{1, 1}, {1, 1}, {1, 1}, 1};
  expect_status(TSR_ERR_DEVICE_MISMATCH, "Expected all tensors to be on the same device, but found at least two devices",
                [&] { ops::conv2d(x, w, Tensor(), a); });
  Tensor xd = dev({2, 3, 5, 5});
  expect_status(TSR_ERR_UNSUPPORTED, "no kernel for device", [&] { ops::conv2d(xd, w, Tensor(), a); });
  const Pool2dArgs p{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true};
  // max pooling has a device path: a device whose DeviceKernels lack the
  // kernel says so.
  expect_status(TSR_ERR_UNSUPPORTED, "max_pool2d: this device has no kernel for it",
                [&] { ops::max_pool2d(xd, p); });
  expect_status(TSR_ERR_UNSUPPORTED, "no kernel for device", [&] { ops::avg_pool2d(xd, p); });
  expect_status(TSR_ERR_UNSUPPORTED, "no kernel for device", [&] { ops::adaptive_avg_pool2d(xd, {1, 1}); });
  // batch_norm's running stats on another device: refused before the
  // running update could touch them.
  Tensor rm = dev({3}), rv = dev({3});
  const int64_t v_rm = rm.version();
  expect_status(TSR_ERR_DEVICE_MISMATCH, "(batch_norm: running_mean)",
                [&] { ops::batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.1, 1e-5); });
  EXPECT_EQ(rm.version(), v_rm);
  expect_status(TSR_ERR_UNSUPPORTED, "no kernel for device",
                [&] { ops::batch_norm(xd, rm, rv, Tensor(), Tensor(), true, 0.1, 1e-5); });
  EXPECT_EQ(rm.version(), v_rm);
}

}  // namespace
}  // namespace tsr::devtest
