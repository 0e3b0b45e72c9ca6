// conv2d and batch norm on the CUDA device without a GPU: libtessera.so loads the emulated
// plugin through $TSR_CUDA_PLUGIN, whose real cuDNN code (gpu/cudnn_*.cpp)
// calls the cuDNN test double (tests/cudnn_double), which computes each
// convolution with tessera's CPU reference loops in stream order. Checked
// against the CPU path of the same C API: forward and both backwards in
// NCHW and channels_last, groups, dilation, stride, padding, odd shapes;
// the output memory format (torch 1.13's cudnn rule); algorithm choice as
// torch.backends.cudnn (heuristics, benchmark timed once per shape,
// deterministic); workspaces in device memory; bad input as on the CPU;
// batch norm (training with running statistics, evaluation, backward) in
// both layouts and dtypes cuDNN takes; average pooling through cuDNN and
// max pooling through tessera's own kernel (indices), against the CPU.
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

// Built twice: against the cuDNN double (TSR_CUDNN_DOUBLE, ctest
// cuda_emulated_cudnn), whose counters show which calls and algorithms
// cuDNN saw; and as tests/gpu's test_cuda_cudnn for a real GPU (real
// cuDNN; the counters' checks left out, everything else the same).
#include "tsr_cudnn_double.h"  // without the double: the counters' type only

#ifdef TSR_CUDNN_DOUBLE
#include "tsr_cuda_double.h"
constexpr bool kDouble = true;
#else
constexpr bool kDouble = false;
tsr_cudnn_double_counters tsr_cudnn_double_get_counters() { return tsr_cudnn_double_counters{}; }
void tsr_cudnn_double_reset_counters() {}
size_t tsr_double_violations() { return 0; }
#endif

namespace {

struct T {
  tsr_tensor* h = nullptr;
  T() = default;
  T(const T&) = delete;
  T& operator=(const T&) = delete;
  ~T() { tsr_tensor_release(h); }
};

#define ASSERT_OK(call) ASSERT_EQ((call), TSR_OK) << #call << ": " << tsr_last_error_message()

// Deterministic values in [-1, 1).
std::vector<double> values(size_t n, uint64_t seed) {
  std::vector<double> v(n);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = double(s >> 11) / double(1ull << 53) * 2.0 - 1.0;
  }
  return v;
}

void make(const std::vector<int64_t>& sizes, tsr_dtype dtype, uint64_t seed, bool channels_last, T* out) {
  size_t n = 1;
  for (int64_t s : sizes) n *= size_t(s);
  const std::vector<double> v = values(n, seed);
  T d;
  ASSERT_OK(tsr_from_data(v.data(), v.size() * sizeof(double), int64_t(sizes.size()), sizes.data(), TSR_FLOAT64, &d.h));
  T typed;
  ASSERT_OK(tsr_to_dtype(d.h, dtype, &typed.h));
  ASSERT_OK(tsr_contiguous(typed.h, channels_last ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT, &out->h));
}

std::vector<double> read(const tsr_tensor* t) {
  T d;
  EXPECT_EQ(tsr_to_dtype(t, TSR_FLOAT64, &d.h), TSR_OK) << tsr_last_error_message();
  T host;
  EXPECT_EQ(tsr_to_device(d.h, TSR_DEVICE_CPU, 0, 0, &host.h), TSR_OK) << tsr_last_error_message();
  std::vector<double> v(size_t(tsr_tensor_numel(host.h)));
  EXPECT_EQ(tsr_copy_to_buffer(host.h, v.data(), v.size() * sizeof(double), nullptr), TSR_OK);
  return v;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << what << " element " << i;
}

bool is_channels_last(const tsr_tensor* t) {
  bool cl = false, contiguous = false;
  EXPECT_EQ(tsr_is_contiguous(t, TSR_CHANNELS_LAST, &cl), TSR_OK);
  EXPECT_EQ(tsr_is_contiguous(t, TSR_CONTIGUOUS_FORMAT, &contiguous), TSR_OK);
  return cl && !contiguous;
}

struct Case {
  const char* name;
  std::vector<int64_t> x, w;  // [N, C, H, W], [K, C / groups, kH, kW]
  int64_t stride[2], padding[2], dilation[2], groups;
  bool x_cl, w_cl, bias;
  tsr_dtype dtype;
};

// The results of one run: output, its format, and the three gradients.
struct Result {
  std::vector<double> y, gx, gw, gb;
  bool y_channels_last = false, gx_channels_last = false;
};

void run(const Case& c, tsr_device_type device, Result* r) {
  T x, w, b, gy;
  ASSERT_NO_FATAL_FAILURE(make(c.x, c.dtype, 1, c.x_cl, &x));
  ASSERT_NO_FATAL_FAILURE(make(c.w, c.dtype, 2, c.w_cl, &w));
  if (c.bias) {
    ASSERT_NO_FATAL_FAILURE(make({c.w[0]}, c.dtype, 3, false, &b));
  }
  T xd, wd, bd;
  ASSERT_OK(tsr_to_device(x.h, device, 0, 0, &xd.h));
  ASSERT_OK(tsr_to_device(w.h, device, 0, 0, &wd.h));
  if (c.bias) {
    ASSERT_OK(tsr_to_device(b.h, device, 0, 0, &bd.h));
  }
  ASSERT_EQ(is_channels_last(xd.h), is_channels_last(x.h)) << "the transfer keeps the layout";
  ASSERT_OK(tsr_set_requires_grad(xd.h, true));
  ASSERT_OK(tsr_set_requires_grad(wd.h, true));
  if (c.bias) {
    ASSERT_OK(tsr_set_requires_grad(bd.h, true));
  }
  T y;
  ASSERT_OK(tsr_conv2d(xd.h, wd.h, bd.h, c.stride, c.padding, c.dilation, c.groups, &y.h));
  EXPECT_EQ(tsr_tensor_device_type(y.h), device);
  r->y = read(y.h);
  r->y_channels_last = is_channels_last(y.h);
  // The output's gradient: fixed values in the output's shape and layout.
  std::vector<int64_t> ys(tsr_tensor_sizes(y.h), tsr_tensor_sizes(y.h) + 4);
  T g;
  ASSERT_NO_FATAL_FAILURE(make(ys, c.dtype, 4, r->y_channels_last, &g));
  ASSERT_OK(tsr_to_device(g.h, device, 0, 0, &gy.h));
  ASSERT_OK(tsr_backward(y.h, gy.h, false));
  T gx, gw, gb;
  ASSERT_OK(tsr_grad(xd.h, &gx.h));
  ASSERT_OK(tsr_grad(wd.h, &gw.h));
  r->gx = read(gx.h);
  r->gw = read(gw.h);
  r->gx_channels_last = is_channels_last(gx.h);
  if (c.bias) {
    ASSERT_OK(tsr_grad(bd.h, &gb.h));
    r->gb = read(gb.h);
  }
}

class CudaEmulatedConv : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(tsr_cuda_init());
    tsr_cudnn_set_benchmark(false);
    tsr_cudnn_set_deterministic(false);
    // On a GPU, float32 in full precision: TF32 (torch's default for cuDNN)
    // is 1e-3 off the CPU. The double ignores the math type.
    tsr_cudnn_set_allow_tf32(kDouble);
    tsr_cudnn_double_reset_counters();
  }
  void TearDown() override {
    tsr_cudnn_set_benchmark(false);
    tsr_cudnn_set_deterministic(false);
    tsr_cudnn_set_allow_tf32(true);
    ASSERT_OK(tsr_cuda_synchronize(-1));
    if (!kDouble) return;
    const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
    EXPECT_EQ(k.failed_runs, 0);
    EXPECT_EQ(k.live_descriptors, 0) << "every descriptor the plugin made was destroyed";
    // A kernel the emulator refused after its launch returned (stderr: "simdev: ...").
    EXPECT_EQ(tsr_double_violations(), 0u);
  }
};

const Case kCases[] = {
    {"nchw_3x3_pad1", {2, 3, 7, 6}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, false, true, TSR_FLOAT32},
    {"nhwc_3x3_pad1", {2, 3, 7, 6}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, false, true, TSR_FLOAT32},
    {"weight_nhwc_groups2_dilated_strided", {2, 4, 9, 8}, {6, 2, 3, 2}, {2, 2}, {1, 2}, {2, 1}, 2, false, true, true,
     TSR_FLOAT32},
    {"odd_nhwc_1x5", {1, 5, 5, 11}, {3, 5, 1, 5}, {2, 3}, {0, 2}, {1, 2}, 1, true, false, false, TSR_FLOAT32},
    {"depthwise_nhwc", {2, 3, 6, 6}, {6, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, true, true, true, TSR_FLOAT32},
    {"nhwc_float64", {2, 3, 5, 5}, {2, 3, 2, 2}, {1, 2}, {1, 0}, {2, 1}, 1, true, false, true, TSR_FLOAT64},
    {"nhwc_float16_groups", {2, 4, 6, 5}, {4, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, true, false, true, TSR_FLOAT16},
    {"nchw_bfloat16", {2, 3, 6, 6}, {4, 3, 3, 3}, {2, 1}, {1, 1}, {1, 1}, 1, false, false, true, TSR_BFLOAT16},
};

// Tolerance relative to 1 + |value|: float64 exact but for the order of
// sums; float32 sums in another order (oneDNN on the CPU, the reference
// loops in the double); the 16-bit types are computed in float by both and
// rounded once, so results may differ by a rounding step of the type.
double tolerance(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT64: return 1e-12;
    case TSR_FLOAT16: return 2e-3;
    case TSR_BFLOAT16: return 1.6e-2;
    default: return 2e-5;
  }
}

TEST_F(CudaEmulatedConv, MatchesTheCpuInBothLayouts) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const tsr_cudnn_double_counters before = tsr_cudnn_double_get_counters();
    Result cpu, cuda;
    ASSERT_NO_FATAL_FAILURE(run(c, TSR_DEVICE_CPU, &cpu));
    ASSERT_NO_FATAL_FAILURE(run(c, TSR_DEVICE_CUDA, &cuda));
    const double tol = tolerance(c.dtype);
    expect_close(cuda.y, cpu.y, tol, "output");
    expect_close(cuda.gx, cpu.gx, tol, "input gradient");
    expect_close(cuda.gw, cpu.gw, tol, "weight gradient");
    expect_close(cuda.gb, cpu.gb, tol, "bias gradient");
    // torch 1.13's cudnn_conv_suggest_memory_format: channels_last when x or
    // w suggests it (groups or not), contiguous for float64.
    const bool want_cl = c.dtype != TSR_FLOAT64 && (c.x_cl || c.w_cl);
    EXPECT_EQ(cuda.y_channels_last, want_cl);
    // x.grad follows x's layout (AccumulateGrad's layout contract), on
    // both devices.
    EXPECT_EQ(cuda.gx_channels_last, c.x_cl);
    EXPECT_EQ(cpu.gx_channels_last, c.x_cl);
    // Each pass ran through cuDNN once, in that layout.
    const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
    for (int p = 0; kDouble && p < 3; ++p) {
      EXPECT_EQ(k.runs[p] - before.runs[p], 1) << "pass " << p;
      EXPECT_EQ(k.last_channels_last[p], want_cl ? 1 : 0) << "pass " << p;
    }
  }
}

const Case kPlain = {"plain", {2, 3, 8, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, false, true, TSR_FLOAT32};

Case with_height(int64_t h) {
  Case c = kPlain;
  c.x[2] = h;
  return c;
}

void expect_algos(int fwd, int data, int filter) {
  if (!kDouble) return;
  const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
  EXPECT_EQ(k.last_algo[TSR_CUDNN_FWD], fwd);
  EXPECT_EQ(k.last_algo[TSR_CUDNN_BWD_DATA], data);
  EXPECT_EQ(k.last_algo[TSR_CUDNN_BWD_FILTER], filter);
}

// The setters return the previous value. (The defaults, torch's, are
// checked against torch itself in bindings/python/tests/test_backends_cudnn.py;
// SetUp has set benchmark and deterministic off and allow_tf32 as kDouble.)
TEST_F(CudaEmulatedConv, FlagsAreTorchBackendsCudnns) {
  EXPECT_FALSE(tsr_cudnn_benchmark());
  EXPECT_FALSE(tsr_cudnn_deterministic());
  EXPECT_EQ(tsr_cudnn_set_allow_tf32(true), kDouble);
  EXPECT_TRUE(tsr_cudnn_allow_tf32());
  EXPECT_FALSE(tsr_cudnn_set_benchmark(true));
  EXPECT_TRUE(tsr_cudnn_benchmark());
  EXPECT_TRUE(tsr_cudnn_set_benchmark(false));
  EXPECT_FALSE(tsr_cudnn_set_deterministic(true));
  EXPECT_TRUE(tsr_cudnn_deterministic());
  EXPECT_TRUE(tsr_cudnn_set_allow_tf32(false));
  EXPECT_FALSE(tsr_cudnn_allow_tf32());
  EXPECT_FALSE(tsr_cudnn_set_allow_tf32(true));
}

// Without benchmark: cuDNN's heuristics, asked once per shape and cached.
TEST_F(CudaEmulatedConv, HeuristicsOncePerShape) {
  Result r;
  const Case c = with_height(9);
  ASSERT_NO_FATAL_FAILURE(run(c, TSR_DEVICE_CUDA, &r));
  ASSERT_NO_FATAL_FAILURE(run(c, TSR_DEVICE_CUDA, &r));
  const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
  for (int p = 0; kDouble && p < 3; ++p) {
    EXPECT_EQ(k.heuristic_queries[p], 1) << "pass " << p;
    EXPECT_EQ(k.find_calls[p], 0) << "pass " << p;
    EXPECT_EQ(k.runs[p], 2) << "pass " << p;
  }
  // The double's heuristics rank forward 1, backward-data 0, backward-filter 0 first.
  expect_algos(1, 0, 0);
}

// Benchmark: every candidate timed by cudnnFind*AlgorithmEx once per
// shape, the fastest used (the double's timings: forward 2, data 0,
// filter 3), and the choice kept for the next run of that shape.
TEST_F(CudaEmulatedConv, BenchmarkTimesOncePerShape) {
  tsr_cudnn_set_benchmark(true);
  Result first, again, other;
  ASSERT_NO_FATAL_FAILURE(run(with_height(10), TSR_DEVICE_CUDA, &first));
  ASSERT_NO_FATAL_FAILURE(run(with_height(10), TSR_DEVICE_CUDA, &again));
  tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
  for (int p = 0; kDouble && p < 3; ++p) {
    EXPECT_EQ(k.find_calls[p], 1) << "pass " << p;
    EXPECT_EQ(k.heuristic_queries[p], 0) << "pass " << p;
  }
  expect_algos(2, 0, 3);
  // Algorithm 2 wants an im2col workspace, which the double found in device
  // memory (a run with less, or host memory, is refused).
  if (kDouble) {
    EXPECT_GT(k.last_workspace_bytes[TSR_CUDNN_FWD], 0);
  }
  ASSERT_NO_FATAL_FAILURE(run(with_height(11), TSR_DEVICE_CUDA, &other));
  k = tsr_cudnn_double_get_counters();
  for (int p = 0; kDouble && p < 3; ++p) EXPECT_EQ(k.find_calls[p], 2) << "pass " << p;
  // The same values whichever algorithm ran.
  expect_close(again.y, first.y, 0, "output");
  Result cpu;
  ASSERT_NO_FATAL_FAILURE(run(with_height(10), TSR_DEVICE_CPU, &cpu));
  expect_close(first.gw, cpu.gw, 2e-5, "weight gradient");
}

// Deterministic: only algorithms cuDNN marks deterministic, with the
// heuristics (backward-data 1, backward-filter 1 instead of 0) and with
// benchmark (the fastest deterministic one: forward 2, data 1, filter 1).
TEST_F(CudaEmulatedConv, DeterministicSkipsNondeterministicAlgorithms) {
  tsr_cudnn_set_deterministic(true);
  Result r;
  ASSERT_NO_FATAL_FAILURE(run(with_height(12), TSR_DEVICE_CUDA, &r));
  expect_algos(1, 1, 1);
  tsr_cudnn_set_benchmark(true);
  ASSERT_NO_FATAL_FAILURE(run(with_height(12), TSR_DEVICE_CUDA, &r));
  expect_algos(2, 1, 1);
  const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
  for (int p = 0; kDouble && p < 3; ++p) EXPECT_EQ(k.find_calls[p], 1) << "pass " << p;
}

// Bad arguments fail before anything reaches the device: the CPU path's
// status and message, out untouched, nothing queued.
TEST_F(CudaEmulatedConv, BadInputFailsAsOnTheCpu) {
  T x, w, xd, wd;
  ASSERT_NO_FATAL_FAILURE(make({2, 4, 7, 7}, TSR_FLOAT32, 1, true, &x));
  ASSERT_NO_FATAL_FAILURE(make({6, 3, 3, 3}, TSR_FLOAT32, 2, false, &w));
  ASSERT_OK(tsr_to_device(x.h, TSR_DEVICE_CUDA, 0, 0, &xd.h));
  ASSERT_OK(tsr_to_device(w.h, TSR_DEVICE_CUDA, 0, 0, &wd.h));
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0}, bad_stride[2] = {0, 1};
  struct Bad {
    const int64_t* stride;
    int64_t groups;
  };
  for (const Bad& b : {Bad{one, 1}, Bad{bad_stride, 1}, Bad{one, 0}}) {
    tsr_tensor* sentinel = reinterpret_cast<tsr_tensor*>(0x1);
    tsr_tensor* out_cpu = sentinel;
    const tsr_status cpu = tsr_conv2d(x.h, w.h, nullptr, b.stride, zero, one, b.groups, &out_cpu);
    ASSERT_NE(cpu, TSR_OK);
    const std::string cpu_message = tsr_last_error_message();
    const tsr_cudnn_double_counters before = tsr_cudnn_double_get_counters();
    tsr_tensor* out = sentinel;
    EXPECT_EQ(tsr_conv2d(xd.h, wd.h, nullptr, b.stride, zero, one, b.groups, &out), cpu);
    EXPECT_EQ(std::string(tsr_last_error_message()), cpu_message);
    EXPECT_EQ(out, sentinel);
    EXPECT_EQ(out_cpu, sentinel);
    const tsr_cudnn_double_counters after = tsr_cudnn_double_get_counters();
    EXPECT_EQ(after.runs[0], before.runs[0]);
  }
}

// Devices mixed: torch's device-mismatch error, nothing run.
TEST_F(CudaEmulatedConv, WeightOnAnotherDeviceIsRefused) {
  T x, w, xd;
  ASSERT_NO_FATAL_FAILURE(make({1, 3, 5, 5}, TSR_FLOAT32, 1, false, &x));
  ASSERT_NO_FATAL_FAILURE(make({2, 3, 3, 3}, TSR_FLOAT32, 2, false, &w));
  ASSERT_OK(tsr_to_device(x.h, TSR_DEVICE_CUDA, 0, 0, &xd.h));
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_conv2d(xd.h, w.h, nullptr, one, zero, one, 1, &out), TSR_ERR_DEVICE_MISMATCH);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(tsr_cudnn_double_get_counters().runs[0], 0);
}

// ---- batch norm through cuDNN ---------------------------------------------------

struct BnResult {
  std::vector<double> y, gx, gw, gb, running_mean, running_var;
  bool y_channels_last = false;
};

void run_batch_norm(const std::vector<int64_t>& sizes, tsr_dtype dtype, bool channels_last, bool training,
                    bool affine, tsr_device_type device, BnResult* r) {
  const int64_t c = sizes[1];
  T x, w, b, rm, rv;
  ASSERT_NO_FATAL_FAILURE(make(sizes, dtype, 5, channels_last, &x));
  // The parameters and running stats in float32 for 16-bit input (torch's
  // mixed batch norm, what cuDNN takes).
  const tsr_dtype pd = dtype == TSR_FLOAT64 ? TSR_FLOAT64 : TSR_FLOAT32;
  ASSERT_NO_FATAL_FAILURE(make({c}, pd, 6, false, &w));
  ASSERT_NO_FATAL_FAILURE(make({c}, pd, 7, false, &b));
  ASSERT_NO_FATAL_FAILURE(make({c}, pd, 8, false, &rm));
  T rv_raw;
  ASSERT_NO_FATAL_FAILURE(make({c}, pd, 9, false, &rv_raw));
  ASSERT_OK(tsr_abs(rv_raw.h, &rv.h));  // a variance is not negative
  T xd, wd, bd, rmd, rvd;
  ASSERT_OK(tsr_to_device(x.h, device, 0, 0, &xd.h));
  ASSERT_OK(tsr_to_device(w.h, device, 0, 0, &wd.h));
  ASSERT_OK(tsr_to_device(b.h, device, 0, 0, &bd.h));
  ASSERT_OK(tsr_to_device(rm.h, device, 0, 0, &rmd.h));
  ASSERT_OK(tsr_to_device(rv.h, device, 0, 0, &rvd.h));
  ASSERT_OK(tsr_set_requires_grad(xd.h, true));
  ASSERT_OK(tsr_set_requires_grad(wd.h, true));
  ASSERT_OK(tsr_set_requires_grad(bd.h, true));
  T y;
  ASSERT_OK(tsr_batch_norm(xd.h, rmd.h, rvd.h, affine ? wd.h : nullptr, affine ? bd.h : nullptr, training, 0.3, 1e-5,
                           &y.h));
  r->y = read(y.h);
  r->y_channels_last = is_channels_last(y.h);
  r->running_mean = read(rmd.h);
  r->running_var = read(rvd.h);
  T g, gd;
  ASSERT_NO_FATAL_FAILURE(make(sizes, dtype, 10, r->y_channels_last, &g));
  ASSERT_OK(tsr_to_device(g.h, device, 0, 0, &gd.h));
  ASSERT_OK(tsr_backward(y.h, gd.h, false));
  T gx;
  ASSERT_OK(tsr_grad(xd.h, &gx.h));
  r->gx = read(gx.h);
  if (affine) {
    T gw, gb;
    ASSERT_OK(tsr_grad(wd.h, &gw.h));
    ASSERT_OK(tsr_grad(bd.h, &gb.h));
    r->gw = read(gw.h);
    r->gb = read(gb.h);
  }
}

struct BnCase {
  const char* name;
  std::vector<int64_t> sizes;
  tsr_dtype dtype;
  bool channels_last, training, affine;
};

TEST_F(CudaEmulatedConv, BatchNormMatchesTheCpu) {
  const BnCase cases[] = {
      {"train_nchw", {4, 3, 5, 6}, TSR_FLOAT32, false, true, true},
      {"train_nhwc", {3, 5, 4, 7}, TSR_FLOAT32, true, true, true},
      {"train_nhwc_no_affine", {2, 4, 3, 3}, TSR_FLOAT32, true, true, false},
      {"train_float64", {2, 3, 4, 5}, TSR_FLOAT64, false, true, true},
      {"train_bfloat16_nhwc", {2, 4, 5, 5}, TSR_BFLOAT16, true, true, true},
      {"eval_nhwc", {3, 5, 4, 4}, TSR_FLOAT32, true, false, true},
      {"eval_nchw_float64", {2, 3, 4, 5}, TSR_FLOAT64, false, false, true},
  };
  for (const BnCase& c : cases) {
    SCOPED_TRACE(c.name);
    const tsr_cudnn_double_counters before = tsr_cudnn_double_get_counters();
    BnResult cpu, cuda;
    ASSERT_NO_FATAL_FAILURE(run_batch_norm(c.sizes, c.dtype, c.channels_last, c.training, c.affine, TSR_DEVICE_CPU,
                                           &cpu));
    ASSERT_NO_FATAL_FAILURE(run_batch_norm(c.sizes, c.dtype, c.channels_last, c.training, c.affine,
                                           TSR_DEVICE_CUDA, &cuda));
    const double tol = c.dtype == TSR_FLOAT64 ? 1e-10 : c.dtype == TSR_BFLOAT16 ? 1.6e-2 : 2e-5;
    expect_close(cuda.y, cpu.y, tol, "output");
    expect_close(cuda.running_mean, cpu.running_mean, tol, "running mean");
    expect_close(cuda.running_var, cpu.running_var, tol, "running var");
    expect_close(cuda.gx, cpu.gx, tol, "input gradient");
    expect_close(cuda.gw, cpu.gw, tol, "weight gradient");
    expect_close(cuda.gb, cpu.gb, tol, "bias gradient");
    // cudnn_batch_norm's output: x's suggested format.
    EXPECT_EQ(cuda.y_channels_last, c.channels_last);
    const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
    if (kDouble) {
      EXPECT_EQ(k.batch_norm_calls[0] - before.batch_norm_calls[0], c.training ? 1 : 0);
      EXPECT_EQ(k.batch_norm_calls[1] - before.batch_norm_calls[1], c.training ? 0 : 1);
      // The training gradients through cuDNN's backward; evaluation's are a
      // scaling, on the elementwise kernels.
      EXPECT_EQ(k.batch_norm_calls[2] - before.batch_norm_calls[2], c.training ? 1 : 0);
    }
  }
}

// Parameters cuDNN does not take (bfloat16 weight for bfloat16 input):
// TSR_ERR_UNSUPPORTED naming them, before anything is queued.
TEST_F(CudaEmulatedConv, BatchNormWithLowPrecisionParametersIsUnsupported) {
  T x, w, xd, wd;
  ASSERT_NO_FATAL_FAILURE(make({2, 3, 4, 4}, TSR_BFLOAT16, 1, false, &x));
  ASSERT_NO_FATAL_FAILURE(make({3}, TSR_BFLOAT16, 2, false, &w));
  ASSERT_OK(tsr_to_device(x.h, TSR_DEVICE_CUDA, 0, 0, &xd.h));
  ASSERT_OK(tsr_to_device(w.h, TSR_DEVICE_CUDA, 0, 0, &wd.h));
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_batch_norm(xd.h, nullptr, nullptr, wd.h, nullptr, true, 0.1, 1e-5, &out), TSR_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsr_last_error_message()).find("takes float32 weight"), std::string::npos)
      << tsr_last_error_message();
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(tsr_cudnn_double_get_counters().batch_norm_calls[0], 0);
}

// The CPU's argument checks hold on the device (message and status alike).
TEST_F(CudaEmulatedConv, BatchNormBadInputFailsAsOnTheCpu) {
  T x, xd;
  ASSERT_NO_FATAL_FAILURE(make({1, 3, 1, 1}, TSR_FLOAT32, 1, false, &x));
  ASSERT_OK(tsr_to_device(x.h, TSR_DEVICE_CUDA, 0, 0, &xd.h));
  tsr_tensor* out_cpu = nullptr;
  const tsr_status cpu = tsr_batch_norm(x.h, nullptr, nullptr, nullptr, nullptr, true, 0.1, 1e-5, &out_cpu);
  ASSERT_NE(cpu, TSR_OK);
  const std::string message = tsr_last_error_message();
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_batch_norm(xd.h, nullptr, nullptr, nullptr, nullptr, true, 0.1, 1e-5, &out), cpu);
  EXPECT_EQ(std::string(tsr_last_error_message()), message);
  EXPECT_EQ(out, nullptr);
}

// ---- average pooling through cuDNN -------------------------------------------------

struct PoolCase {
  const char* name;
  std::vector<int64_t> sizes;  // 4-D, or unbatched 3-D
  bool adaptive;
  int64_t kernel[2], stride[2], padding[2];  // avg_pool2d; adaptive: kernel = output size
  bool ceil_mode, count_include_pad, channels_last;
  tsr_dtype dtype;
};

tsr_status pool(const PoolCase& c, const tsr_tensor* x, tsr_tensor** out) {
  return c.adaptive ? tsr_adaptive_avg_pool2d(x, c.kernel, out)
                    : tsr_avg_pool2d(x, c.kernel, c.stride, c.padding, c.ceil_mode, c.count_include_pad, out);
}

void run_pool(const PoolCase& c, tsr_device_type device, Result* r) {
  T x, xd;
  ASSERT_NO_FATAL_FAILURE(make(c.sizes, c.dtype, 11, c.channels_last, &x));
  ASSERT_OK(tsr_to_device(x.h, device, 0, 0, &xd.h));
  ASSERT_OK(tsr_set_requires_grad(xd.h, true));
  T y;
  ASSERT_OK(pool(c, xd.h, &y.h));
  r->y = read(y.h);
  r->y_channels_last = tsr_tensor_ndim(y.h) == 4 && is_channels_last(y.h);
  std::vector<int64_t> ys(tsr_tensor_sizes(y.h), tsr_tensor_sizes(y.h) + tsr_tensor_ndim(y.h));
  T g, gd;
  ASSERT_NO_FATAL_FAILURE(make(ys, c.dtype, 12, false, &g));
  ASSERT_OK(tsr_to_device(g.h, device, 0, 0, &gd.h));
  ASSERT_OK(tsr_backward(y.h, gd.h, false));
  T gx;
  ASSERT_OK(tsr_grad(xd.h, &gx.h));
  r->gx = read(gx.h);
}

TEST_F(CudaEmulatedConv, AveragePoolingMatchesTheCpu) {
  const PoolCase cases[] = {
      {"avg_nchw_3x3_s2_p1", {2, 3, 7, 8}, false, {3, 3}, {2, 2}, {1, 1}, false, true, false, TSR_FLOAT32},
      {"avg_nhwc_exclude_pad", {2, 5, 7, 6}, false, {3, 2}, {2, 1}, {1, 1}, false, false, true, TSR_FLOAT32},
      {"avg_ceil_same_count", {1, 2, 6, 6}, false, {2, 2}, {2, 2}, {0, 0}, true, true, true, TSR_FLOAT32},
      {"avg_unbatched_float64", {3, 5, 5}, false, {2, 2}, {1, 2}, {1, 0}, false, true, false, TSR_FLOAT64},
      {"adaptive_1x1_nhwc", {2, 6, 4, 5}, true, {1, 1}, {}, {}, false, true, true, TSR_FLOAT32},
      {"adaptive_2x3_nchw", {2, 3, 6, 9}, true, {2, 3}, {}, {}, false, true, false, TSR_FLOAT32},
      {"adaptive_bfloat16", {1, 4, 4, 4}, true, {2, 2}, {}, {}, false, true, true, TSR_BFLOAT16},
  };
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(c.name);
    const tsr_cudnn_double_counters before = tsr_cudnn_double_get_counters();
    Result cpu, cuda;
    ASSERT_NO_FATAL_FAILURE(run_pool(c, TSR_DEVICE_CPU, &cpu));
    ASSERT_NO_FATAL_FAILURE(run_pool(c, TSR_DEVICE_CUDA, &cuda));
    expect_close(cuda.y, cpu.y, tolerance(c.dtype), "output");
    expect_close(cuda.gx, cpu.gx, tolerance(c.dtype), "input gradient");
    // Pooling keeps x's suggested format, on both devices.
    EXPECT_EQ(cuda.y_channels_last, cpu.y_channels_last);
    const bool one_by_one = c.adaptive && c.kernel[0] == 1 && c.kernel[1] == 1;  // both formats at once
    if (!one_by_one) {
      EXPECT_EQ(cuda.y_channels_last, c.channels_last && c.sizes.size() == 4);
    }
    const tsr_cudnn_double_counters k = tsr_cudnn_double_get_counters();
    if (kDouble) {
      EXPECT_EQ(k.pooling_calls[0] - before.pooling_calls[0], 1);
      EXPECT_EQ(k.pooling_calls[1] - before.pooling_calls[1], 1);
    }
  }
}

// Windows cuDNN's pooling cannot make: TSR_ERR_UNSUPPORTED naming why,
// nothing queued, out untouched (the CPU computes them).
TEST_F(CudaEmulatedConv, PoolingWindowsCudnnLacksAreUnsupported) {
  const PoolCase cases[] = {
      {"ceil_adds_a_window", {1, 2, 5, 5}, false, {2, 2}, {2, 2}, {0, 0}, true, true, false, TSR_FLOAT32},
      {"adaptive_not_dividing", {1, 2, 5, 5}, true, {2, 2}, {}, {}, false, true, false, TSR_FLOAT32},
  };
  const char* why[] = {"ceil_mode windows", "must divide input size"};
  for (size_t i = 0; i < 2; ++i) {
    const PoolCase& c = cases[i];
    SCOPED_TRACE(c.name);
    T x, xd, y_cpu;
    ASSERT_NO_FATAL_FAILURE(make(c.sizes, c.dtype, 1, false, &x));
    ASSERT_OK(tsr_to_device(x.h, TSR_DEVICE_CUDA, 0, 0, &xd.h));
    ASSERT_OK(pool(c, x.h, &y_cpu.h));
    tsr_tensor* out = nullptr;
    EXPECT_EQ(pool(c, xd.h, &out), TSR_ERR_UNSUPPORTED);
    EXPECT_NE(std::string(tsr_last_error_message()).find(why[i]), std::string::npos) << tsr_last_error_message();
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(tsr_cudnn_double_get_counters().pooling_calls[0], 0);
  }
}

// ---- max pooling (tessera's own kernel: cuDNN's gives no indices) ------------

struct MaxPoolCase {
  const char* name;
  std::vector<int64_t> sizes;  // 4-D, or unbatched 3-D
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  bool ceil_mode, channels_last;
  tsr_dtype dtype;
  bool with_nan;  // a NaN at element 5 (the maximum of its windows, as torch)
};

struct MaxPoolResult {
  std::vector<double> y, indices, gx;
  bool y_channels_last = false, indices_channels_last = false, gx_channels_last = false;
};

void run_max_pool(const MaxPoolCase& c, tsr_device_type device, MaxPoolResult* r) {
  T x, xd;
  ASSERT_NO_FATAL_FAILURE(make(c.sizes, c.dtype, 21, c.channels_last, &x));
  if (c.with_nan) {
    T flat, nan_value, row;
    const int64_t at[1] = {5};
    ASSERT_OK(tsr_full(0, nullptr, std::nan(""), c.dtype, TSR_DEVICE_CPU, 0, &nan_value.h));
    ASSERT_OK(tsr_flatten(x.h, 0, -1, &flat.h));
    ASSERT_OK(tsr_narrow(flat.h, 0, at[0], 1, &row.h));
    ASSERT_OK(tsr_copy_(row.h, nan_value.h));
  }
  ASSERT_OK(tsr_to_device(x.h, device, 0, 0, &xd.h));
  ASSERT_OK(tsr_set_requires_grad(xd.h, true));
  T y, indices;
  ASSERT_OK(tsr_max_pool2d(xd.h, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode, &y.h, &indices.h));
  EXPECT_EQ(tsr_tensor_device_type(y.h), device);
  EXPECT_EQ(tsr_tensor_device_type(indices.h), device);
  r->y = read(y.h);
  r->indices = read(indices.h);
  const bool batched = tsr_tensor_ndim(y.h) == 4;
  r->y_channels_last = batched && is_channels_last(y.h);
  r->indices_channels_last = batched && is_channels_last(indices.h);
  std::vector<int64_t> ys(tsr_tensor_sizes(y.h), tsr_tensor_sizes(y.h) + tsr_tensor_ndim(y.h));
  T g, gd;
  ASSERT_NO_FATAL_FAILURE(make(ys, c.dtype, 22, false, &g));
  ASSERT_OK(tsr_to_device(g.h, device, 0, 0, &gd.h));
  ASSERT_OK(tsr_backward(y.h, gd.h, false));
  T gx;
  ASSERT_OK(tsr_grad(xd.h, &gx.h));
  r->gx = read(gx.h);
  r->gx_channels_last = batched && is_channels_last(gx.h);
}

void expect_same(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    } else {
      ASSERT_EQ(got[i], want[i]) << what << " element " << i;
    }
  }
}

// Values, indices and the input gradient equal the CPU's bit for bit: the
// same comparisons in the same order, and each input element's gradient
// summed in the same order and rounded once (overlapping windows make the
// 16-bit sums' rounding visible).
TEST_F(CudaEmulatedConv, MaxPoolingMatchesTheCpuExactly) {
  const MaxPoolCase cases[] = {
      {"nchw_3x3_s2_p1", {2, 3, 7, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, false, TSR_FLOAT32, false},
      {"nhwc_2x2_fashion", {3, 8, 6, 6}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true, TSR_FLOAT32, false},
      {"overlapping_dilated_ceil", {2, 3, 9, 7}, {3, 2}, {1, 2}, {1, 1}, {2, 1}, true, true, TSR_FLOAT32, false},
      {"unbatched_float64", {3, 5, 6}, {2, 3}, {1, 2}, {1, 1}, {1, 1}, false, false, TSR_FLOAT64, false},
      {"float16_overlapping", {2, 4, 7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false, true, TSR_FLOAT16, false},
      {"bfloat16_overlapping", {2, 4, 7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false, false, TSR_BFLOAT16, false},
      {"nan_wins", {1, 2, 5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, false, false, TSR_FLOAT32, true},
  };
  for (const MaxPoolCase& c : cases) {
    SCOPED_TRACE(c.name);
    const tsr_cudnn_double_counters before = tsr_cudnn_double_get_counters();
    MaxPoolResult cpu, cuda;
    ASSERT_NO_FATAL_FAILURE(run_max_pool(c, TSR_DEVICE_CPU, &cpu));
    ASSERT_NO_FATAL_FAILURE(run_max_pool(c, TSR_DEVICE_CUDA, &cuda));
    expect_same(cuda.y, cpu.y, "output");
    expect_same(cuda.indices, cpu.indices, "indices");
    expect_same(cuda.gx, cpu.gx, "input gradient");
    EXPECT_EQ(cuda.y_channels_last, cpu.y_channels_last);
    EXPECT_EQ(cuda.indices_channels_last, cpu.indices_channels_last);
    EXPECT_EQ(cuda.gx_channels_last, cpu.gx_channels_last);
    EXPECT_EQ(cuda.y_channels_last, c.channels_last && c.sizes.size() == 4);
    if (kDouble) {  // not cuDNN's pooling
      EXPECT_EQ(tsr_cudnn_double_get_counters().pooling_calls[0], before.pooling_calls[0]);
    }
  }
}

// A strided (transposed) input is read in place, and bad arguments fail on
// the device as on the CPU, with nothing returned.
TEST_F(CudaEmulatedConv, MaxPoolingOfAViewAndBadArguments) {
  T x, xd, xt_cpu, xt;
  ASSERT_NO_FATAL_FAILURE(make({2, 3, 5, 6}, TSR_FLOAT32, 23, false, &x));
  ASSERT_OK(tsr_to_device(x.h, TSR_DEVICE_CUDA, 0, 0, &xd.h));
  ASSERT_OK(tsr_transpose(x.h, 2, 3, &xt_cpu.h));
  ASSERT_OK(tsr_transpose(xd.h, 2, 3, &xt.h));
  const int64_t k[2] = {2, 2}, s[2] = {2, 1}, p[2] = {1, 0}, d[2] = {1, 1};
  T y_cpu, i_cpu, y, i;
  ASSERT_OK(tsr_max_pool2d(xt_cpu.h, k, s, p, d, false, &y_cpu.h, &i_cpu.h));
  ASSERT_OK(tsr_max_pool2d(xt.h, k, s, p, d, false, &y.h, &i.h));
  expect_same(read(y.h), read(y_cpu.h), "output of a transposed input");
  expect_same(read(i.h), read(i_cpu.h), "indices of a transposed input");

  const int64_t big_pad[2] = {2, 0}, zero_stride[2] = {0, 1};
  for (const int64_t* bad : {big_pad, zero_stride}) {
    const bool pad = bad == big_pad;
    tsr_tensor *out_cpu = nullptr, *out = nullptr, *ind = nullptr;
    const tsr_status s_cpu = tsr_max_pool2d(x.h, k, pad ? s : bad, pad ? bad : p, d, false, &out_cpu, nullptr);
    const std::string m_cpu = tsr_last_error_message();
    EXPECT_EQ(tsr_max_pool2d(xd.h, k, pad ? s : bad, pad ? bad : p, d, false, &out, &ind), s_cpu);
    EXPECT_EQ(tsr_last_error_message(), m_cpu);
    EXPECT_NE(s_cpu, TSR_OK);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(ind, nullptr);
  }
}

}  // namespace

#ifndef TSR_CUDNN_DOUBLE
// On a machine without a usable GPU: why, and 77 (CTest's skip).
int main(int argc, char** argv) {
  if (tsr_cuda_init() != TSR_OK) {
    std::printf("no CUDA device: %s\n", tsr_last_error_message());
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
#endif
