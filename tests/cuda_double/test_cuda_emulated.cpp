// The C API on a CUDA device without a GPU: libtessera.so loads the
// emulated plugin (libtessera_cuda_emulated.so: the plugin's real host code
// over the CUDA runtime's test double, kernels run by the CPU grid
// emulator) through $TSR_CUDA_PLUGIN, exactly as it loads the real one.
// Only public headers are used, plus the double's controls
// (tsr_cuda_double.h) to hold a stream and so check what waits for what.
// Covered: element reads and writes, 0-dim CPU tensors as operands of
// elementwise ops on the device, save of CUDA tensors, DLPack exchange
// of CUDA and pinned tensors with the exchange protocol's stream argument,
// and stream-to-stream ordering (wait_event, wait_stream).
#include <gtest/gtest.h>

#include <tessera/dlpack.h>
#include <tessera/tessera.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tsr_cuda_double.h"

namespace {

// Owns one handle of each kind.
struct T {
  tsr_tensor* h = nullptr;
  ~T() { tsr_tensor_release(h); }
};
struct S {
  tsr_stream* h = nullptr;
  ~S() { tsr_stream_release(h); }
};
struct E {
  tsr_event* h = nullptr;
  ~E() { tsr_event_release(h); }
};

#define ASSERT_OK(call) ASSERT_EQ((call), TSR_OK) << #call << ": " << tsr_last_error_message()

// A CPU float32 tensor of sizes holding values.
void cpu_tensor(const std::vector<float>& values, std::vector<int64_t> sizes, T* out) {
  ASSERT_OK(tsr_from_data(values.data(), values.size() * sizeof(float), int64_t(sizes.size()),
                          sizes.data(), TSR_FLOAT32, &out->h));
}

std::vector<float> values_of(const tsr_tensor* t) {
  std::vector<float> v(size_t(tsr_tensor_numel(t)));
  EXPECT_EQ(tsr_copy_to_buffer(t, v.data(), v.size() * sizeof(float), nullptr), TSR_OK)
      << tsr_last_error_message();
  return v;
}

std::vector<float> iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float(i) - 3.0f;
  return v;
}

void to_cuda(const tsr_tensor* t, T* out, int32_t index = 0) {
  ASSERT_OK(tsr_to_device(t, TSR_DEVICE_CUDA, index, 0, &out->h));
}

void expect_last_error(const std::string& part) {
  EXPECT_NE(std::string(tsr_last_error_message()).find(part), std::string::npos)
      << "message: " << tsr_last_error_message() << "\nexpected to contain: " << part;
}

class CudaEmulated : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(tsr_cuda_init()); }
};

TEST_F(CudaEmulated, PluginLoadedThroughTheLoader) {
  EXPECT_EQ(tsr_cuda_is_available(), 1);
  EXPECT_EQ(tsr_cuda_device_count(), 2);  // the double's default
}

// ---- elements -------------------------------------------------------------------

TEST_F(CudaEmulated, SetAndGetElementsOfADeviceView) {
  T host, dev, tr;
  cpu_tensor(iota(6, 1.0f), {2, 3}, &host);
  to_cuda(host.h, &dev);
  ASSERT_OK(tsr_transpose(dev.h, 0, 1, &tr.h));  // [3, 2], strides (1, 3)
  const int64_t v0 = tsr_version(dev.h);
  const int64_t at[2] = {2, 1};  // tr[2, 1] is dev[1, 2], element 5
  ASSERT_OK(tsr_set_double(tr.h, 2, at, 42.5));
  EXPECT_EQ(tsr_version(dev.h), v0 + 1);  // shared by base and views
  double got = 0;
  ASSERT_OK(tsr_get_double(tr.h, 2, at, &got));
  EXPECT_EQ(got, 42.5);
  std::vector<float> want = iota(6, 1.0f);
  want[5] = 42.5f;
  EXPECT_EQ(values_of(dev.h), want);
}

TEST_F(CudaEmulated, SetInt64IsExactBeyondDoublePrecision) {
  T t;
  const int64_t n = 3;
  ASSERT_OK(tsr_zeros(1, &n, TSR_INT64, TSR_DEVICE_CUDA, 0, &t.h));
  const int64_t big = (int64_t{1} << 60) + 1;  // not a double
  const int64_t at = 1;
  ASSERT_OK(tsr_set_int64(t.h, 1, &at, big));
  int64_t got = 0;
  ASSERT_OK(tsr_get_int64(t.h, 1, &at, &got));
  EXPECT_EQ(got, big);
}

TEST_F(CudaEmulated, BadElementWritesChangeNothing) {
  T host, dev;
  cpu_tensor(iota(4, 1.0f), {4}, &host);
  to_cuda(host.h, &dev);
  const int64_t v0 = tsr_version(dev.h);
  const int64_t past = 4;
  EXPECT_EQ(tsr_set_double(dev.h, 1, &past, 1.0), TSR_ERR_INDEX_OUT_OF_RANGE);
  expect_last_error("index 4 is out of bounds for dimension 0 with size 4");
  const int64_t ok = 0;
  EXPECT_EQ(tsr_set_double(dev.h, 1, &ok, 1e300), TSR_ERR_INVALID_ARGUMENT);  // overflows float
  ASSERT_OK(tsr_set_requires_grad(dev.h, true));
  EXPECT_EQ(tsr_set_double(dev.h, 1, &ok, 1.0), TSR_ERR_AUTOGRAD);
  EXPECT_EQ(tsr_version(dev.h), v0);
  EXPECT_EQ(values_of(dev.h), iota(4, 1.0f));
}

// ---- ops ------------------------------------------------------------------------

// y = sum(x ** e) on the device and on the CPU: values and x's gradient
// (e * x^(e-1); zeros for e == 0) agree.
void pow_and_grad(const tsr_tensor* x_cpu, double e, tsr_device_type device, std::vector<float>* y,
                  std::vector<float>* grad) {
  T moved, x, p, s, g;
  ASSERT_OK(tsr_to_device(x_cpu, device, 0, 0, &moved.h));
  ASSERT_OK(tsr_detach(moved.h, &x.h));  // a leaf of its own, also on the CPU
  ASSERT_OK(tsr_set_requires_grad(x.h, true));
  ASSERT_OK(tsr_pow_scalar(x.h, e, &p.h));
  ASSERT_OK(tsr_sum(p.h, 0, nullptr, false, &s.h));
  ASSERT_OK(tsr_backward(s.h, nullptr, false));
  ASSERT_OK(tsr_grad(x.h, &g.h));
  EXPECT_EQ(tsr_tensor_device_type(g.h), device);
  *y = values_of(p.h);
  *grad = values_of(g.h);
}

// Within a few float ULPs; NaN where the other is NaN, the same infinity
// where the other is infinite (x ** -1 at 0).
void expect_close(float got, float want, const std::string& what) {
  if (std::isnan(want) || std::isinf(want)) {
    EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : got == want) << what << ": " << got << " vs " << want;
    return;
  }
  EXPECT_NEAR(got, want, 4e-7f * std::fabs(want)) << what;
}

TEST_F(CudaEmulated, PowScalarAndItsGradientMatchTheCpu) {
  T host;
  cpu_tensor(iota(7, 0.75f), {7}, &host);
  for (double e : {3.0, 0.5, -1.0, 2.5, 0.0}) {
    std::vector<float> y_cpu, g_cpu, y_dev, g_dev;
    pow_and_grad(host.h, e, TSR_DEVICE_CPU, &y_cpu, &g_cpu);
    pow_and_grad(host.h, e, TSR_DEVICE_CUDA, &y_dev, &g_dev);
    ASSERT_EQ(y_dev.size(), y_cpu.size());
    ASSERT_EQ(g_dev.size(), g_cpu.size());
    for (size_t i = 0; i < y_cpu.size(); ++i) {
      expect_close(y_dev[i], y_cpu[i], "e " + std::to_string(e) + " y[" + std::to_string(i) + "]");
      expect_close(g_dev[i], g_cpu[i], "e " + std::to_string(e) + " grad[" + std::to_string(i) + "]");
    }
  }
  // The 16-bit exponent check holds on the device too.
  T half, out;
  ASSERT_OK(tsr_to_device(host.h, TSR_DEVICE_CUDA, 0, 0, &half.h));
  T half16;
  ASSERT_OK(tsr_to_dtype(half.h, TSR_FLOAT16, &half16.h));
  out.h = reinterpret_cast<tsr_tensor*>(0x1);
  EXPECT_EQ(tsr_pow_scalar(half16.h, 1e6, &out.h), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out.h, reinterpret_cast<tsr_tensor*>(0x1));
  out.h = nullptr;
}

// cat and stack of a float32 [2, 3] and an int64 [4, 3] (promoted to
// float32) along dim 0, then stack of two [2, 3]; the sum of the results
// backpropagates to each input. Device and CPU agree exactly (copies).
void join_and_grad(tsr_device_type device, std::vector<float>* cat_values,
                   std::vector<float>* stack_values, std::vector<float>* grad) {
  T a_cpu, b_cpu, a, b, b_moved, c, st, c_sum, st_sum, total, g;
  cpu_tensor(iota(6, 1.5f), {2, 3}, &a_cpu);
  std::vector<int64_t> ints = {4, -2, 7, 0, 1, 9, 3, 3, -5, 8, 6, 2};
  const int64_t b_sizes[2] = {4, 3};
  ASSERT_OK(tsr_from_data(ints.data(), ints.size() * 8, 2, b_sizes, TSR_INT64, &b_cpu.h));
  T a_moved;
  ASSERT_OK(tsr_to_device(a_cpu.h, device, 0, 0, &a_moved.h));
  ASSERT_OK(tsr_detach(a_moved.h, &a.h));
  ASSERT_OK(tsr_set_requires_grad(a.h, true));
  ASSERT_OK(tsr_to_device(b_cpu.h, device, 0, 0, &b.h));
  const tsr_tensor* pair[2] = {a.h, b.h};
  ASSERT_OK(tsr_cat(2, pair, 0, &c.h));
  EXPECT_EQ(tsr_tensor_device_type(c.h), device);
  EXPECT_EQ(tsr_tensor_dtype(c.h), TSR_FLOAT32);
  const tsr_tensor* same[2] = {a.h, a.h};
  ASSERT_OK(tsr_stack(2, same, 1, &st.h));
  ASSERT_OK(tsr_sum(c.h, 0, nullptr, false, &c_sum.h));
  ASSERT_OK(tsr_sum(st.h, 0, nullptr, false, &st_sum.h));
  ASSERT_OK(tsr_add(c_sum.h, st_sum.h, &total.h));
  ASSERT_OK(tsr_backward(total.h, nullptr, false));
  ASSERT_OK(tsr_grad(a.h, &g.h));
  *cat_values = values_of(c.h);
  *stack_values = values_of(st.h);
  *grad = values_of(g.h);
}

TEST_F(CudaEmulated, CatAndStackMatchTheCpu) {
  std::vector<float> c_cpu, s_cpu, g_cpu, c_dev, s_dev, g_dev;
  join_and_grad(TSR_DEVICE_CPU, &c_cpu, &s_cpu, &g_cpu);
  join_and_grad(TSR_DEVICE_CUDA, &c_dev, &s_dev, &g_dev);
  EXPECT_EQ(c_dev, c_cpu);
  EXPECT_EQ(s_dev, s_cpu);
  EXPECT_EQ(g_dev, g_cpu);
  EXPECT_EQ(g_cpu, std::vector<float>(6, 3.0f));  // once in cat, twice in stack
  // Inputs on two devices: torch's message, nothing made.
  T host, dev, out;
  cpu_tensor(iota(3, 1.0f), {3}, &host);
  to_cuda(host.h, &dev);
  const tsr_tensor* mixed[2] = {dev.h, host.h};
  EXPECT_EQ(tsr_cat(2, mixed, 0, &out.h), TSR_ERR_DEVICE_MISMATCH);
  expect_last_error("Expected all tensors to be on the same device");
  EXPECT_EQ(out.h, nullptr);
}

// ---- files ----------------------------------------------------------------------

// A 0-dim CPU tensor joins elementwise ops on CUDA tensors (torch's
// TensorIterator is_cpu_scalar rule): the result is on the device, and the
// scalar's gradient comes back on the CPU. x = [-3, -1.5, 0, 1.5], s = 2.5.
TEST_F(CudaEmulated, ZeroDimCpuTensorsJoinElementwiseOpsOnTheDevice) {
  T host, x, s, grad_x, grad_s;
  cpu_tensor(iota(4, 1.5f), {4}, &host);
  T moved;
  to_cuda(host.h, &moved);
  ASSERT_OK(tsr_detach(moved.h, &x.h));
  ASSERT_OK(tsr_set_requires_grad(x.h, true));
  const float two_and_half = 2.5f;
  ASSERT_OK(tsr_from_data(&two_and_half, sizeof two_and_half, 0, nullptr, TSR_FLOAT32, &s.h));
  ASSERT_OK(tsr_set_requires_grad(s.h, true));
  // y = x * s + s - x / s, summed: dy/dx = s - 1/s, dy/ds = sum(x) + 4 + sum(x) / s^2.
  T prod, plus, quot, y, total;
  ASSERT_OK(tsr_mul(x.h, s.h, &prod.h));
  ASSERT_OK(tsr_add(prod.h, s.h, &plus.h));
  ASSERT_OK(tsr_div(x.h, s.h, &quot.h));
  ASSERT_OK(tsr_sub(plus.h, quot.h, &y.h));
  EXPECT_EQ(tsr_tensor_device_type(y.h), TSR_DEVICE_CUDA);
  const std::vector<float> yv = values_of(y.h);
  const std::vector<float> xv = iota(4, 1.5f);
  for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(yv[i], xv[i] * 2.5f + 2.5f - xv[i] / 2.5f) << i;
  ASSERT_OK(tsr_sum(y.h, 0, nullptr, false, &total.h));
  ASSERT_OK(tsr_backward(total.h, nullptr, false));
  ASSERT_OK(tsr_grad(x.h, &grad_x.h));
  ASSERT_OK(tsr_grad(s.h, &grad_s.h));
  EXPECT_EQ(tsr_tensor_device_type(grad_x.h), TSR_DEVICE_CUDA);
  EXPECT_EQ(tsr_tensor_device_type(grad_s.h), TSR_DEVICE_CPU);
  for (float g : values_of(grad_x.h)) EXPECT_FLOAT_EQ(g, 2.5f - 1.0f / 2.5f);
  const float sum_x = -3.0f - 1.5f + 0.0f + 1.5f;
  EXPECT_NEAR(values_of(grad_s.h)[0], sum_x + 4.0f + sum_x / (2.5f * 2.5f), 1e-5);

  // Comparisons, pow, where and clamp take it too; add_ in place.
  T gt, pw, cond, wh, lo_clamped, inplace;
  ASSERT_OK(tsr_gt(x.h, s.h, &gt.h));
  ASSERT_OK(tsr_pow(x.h, s.h, &pw.h));
  ASSERT_OK(tsr_lt(x.h, s.h, &cond.h));
  ASSERT_OK(tsr_where(cond.h, x.h, s.h, &wh.h));
  ASSERT_OK(tsr_clamp_tensor(x.h, s.h, nullptr, &lo_clamped.h));
  for (const T* r : {&gt, &pw, &wh, &lo_clamped}) EXPECT_EQ(tsr_tensor_device_type(r->h), TSR_DEVICE_CUDA);
  const std::vector<float> whv = values_of(wh.h), lov = values_of(lo_clamped.h);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(whv[i], xv[i] < 2.5f ? xv[i] : 2.5f) << i;
    EXPECT_FLOAT_EQ(lov[i], std::max(xv[i], 2.5f)) << i;
  }
  ASSERT_OK(tsr_clone(moved.h, TSR_CONTIGUOUS_FORMAT, &inplace.h));
  ASSERT_OK(tsr_add_(inplace.h, s.h, 1.0));
  const std::vector<float> iv = values_of(inplace.h);
  for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(iv[i], xv[i] + 2.5f) << i;

  // Only 0-dim CPU tensors: a [1] CPU tensor, or a CUDA scalar with a CPU
  // tensor, is two devices (torch's message).
  T one_elem, cuda_scalar, out;
  const int64_t one = 1;
  ASSERT_OK(tsr_from_data(&two_and_half, sizeof two_and_half, 1, &one, TSR_FLOAT32, &one_elem.h));
  EXPECT_EQ(tsr_mul(x.h, one_elem.h, &out.h), TSR_ERR_DEVICE_MISMATCH);
  expect_last_error("Expected all tensors to be on the same device, but found at least two devices");
  EXPECT_EQ(out.h, nullptr);
  to_cuda(s.h, &cuda_scalar);
  EXPECT_EQ(tsr_mul(host.h, cuda_scalar.h, &out.h), TSR_ERR_DEVICE_MISMATCH);
  EXPECT_EQ(out.h, nullptr);
}

TEST_F(CudaEmulated, SaveWritesDeviceTensorsAndLoadGivesThemBackOnTheCpu) {
  T host, dev, tr;
  cpu_tensor(iota(12, 0.5f), {3, 4}, &host);
  to_cuda(host.h, &dev);
  ASSERT_OK(tsr_transpose(dev.h, 0, 1, &tr.h));  // not contiguous: copied on the host side
  T host_tr;
  ASSERT_OK(tsr_transpose(host.h, 0, 1, &host_tr.h));
  for (tsr_compression mode : {TSR_COMPRESSION_NONE, TSR_COMPRESSION_ZSTD}) {
    const std::string path = "cuda_emulated_save_" + std::to_string(int(mode)) + ".safetensors";
    const char* names[2] = {"w", "w_t"};
    tsr_tensor* tensors[2] = {dev.h, tr.h};
    tsr_save_options opts = TSR_SAVE_OPTIONS_INIT;
    opts.compression = mode;
    ASSERT_OK(tsr_save(path.c_str(), 2, names, tensors, &opts));
    tsr_tensor_map* map = nullptr;
    ASSERT_OK(tsr_load(path.c_str(), nullptr, &map));
    T w, w_t;
    ASSERT_OK(tsr_tensor_map_get_by_name(map, "w", &w.h));
    ASSERT_OK(tsr_tensor_map_get_by_name(map, "w_t", &w_t.h));
    tsr_tensor_map_release(map);
    EXPECT_EQ(tsr_tensor_device_type(w.h), TSR_DEVICE_CPU);
    EXPECT_EQ(values_of(w.h), iota(12, 0.5f));
    EXPECT_EQ(values_of(w_t.h), values_of(host_tr.h));
    std::remove(path.c_str());
  }
}

// ---- DLPack ---------------------------------------------------------------------

TEST_F(CudaEmulated, DlpackExportDescribesDeviceMemory) {
  T host, dev, tr;
  cpu_tensor(iota(6, 1.0f), {2, 3}, &host);
  to_cuda(host.h, &dev, 1);
  ASSERT_OK(tsr_transpose(dev.h, 0, 1, &tr.h));
  DLManagedTensor* m = nullptr;
  ASSERT_OK(tsr_to_dlpack(tr.h, &m));
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(m->dl_tensor.device.device_id, 1);
  EXPECT_EQ(m->dl_tensor.data, tsr_tensor_data_ptr(tr.h));
  ASSERT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[0], 3);
  EXPECT_EQ(m->dl_tensor.shape[1], 2);
  EXPECT_EQ(m->dl_tensor.strides[0], 1);
  EXPECT_EQ(m->dl_tensor.strides[1], 3);

  // Back into tessera: the same device memory, no copy.
  T back;
  ASSERT_OK(tsr_from_dlpack(m, &back.h));
  EXPECT_EQ(tsr_tensor_device_type(back.h), TSR_DEVICE_CUDA);
  EXPECT_EQ(tsr_tensor_device_index(back.h), 1);
  EXPECT_EQ(tsr_tensor_data_ptr(back.h), tsr_tensor_data_ptr(tr.h));
  EXPECT_EQ(values_of(back.h), values_of(tr.h));
  // A write through the import is seen through the original.
  const int64_t at[2] = {0, 1};
  ASSERT_OK(tsr_set_double(back.h, 2, at, -8.0));
  double got = 0;
  ASSERT_OK(tsr_get_double(tr.h, 2, at, &got));
  EXPECT_EQ(got, -8.0);
}

TEST_F(CudaEmulated, DlpackPinnedMemoryIsCudaHost) {
  T host, pinned;
  cpu_tensor(iota(5, 2.0f), {5}, &host);
  ASSERT_OK(tsr_pin_memory(host.h, &pinned.h));
  DLManagedTensor* m = nullptr;
  ASSERT_OK(tsr_to_dlpack(pinned.h, &m));
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCUDAHost);
  EXPECT_EQ(m->dl_tensor.device.device_id, 0);
  T back;
  ASSERT_OK(tsr_from_dlpack(m, &back.h));
  EXPECT_EQ(tsr_tensor_device_type(back.h), TSR_DEVICE_CUDA_HOST);
  EXPECT_EQ(values_of(back.h), iota(5, 2.0f));
}

int deleter_calls = 0;
void count_deleter(DLManagedTensor*) { ++deleter_calls; }

TEST_F(CudaEmulated, DlpackImportOfAMissingCudaDeviceFailsAndReturnsTheTensor) {
  float dummy[4] = {};
  int64_t shape[1] = {4};
  DLManagedTensor m{};
  m.dl_tensor.data = dummy;
  m.dl_tensor.device = {kDLCUDA, 7};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = {kDLFloat, 32, 1};
  m.dl_tensor.shape = shape;
  m.deleter = &count_deleter;
  deleter_calls = 0;
  tsr_tensor* out = reinterpret_cast<tsr_tensor*>(0x1);
  EXPECT_EQ(tsr_from_dlpack(&m, &out), TSR_ERR_UNSUPPORTED);
  expect_last_error("DLPack device type 2 (CUDA) index 7");
  EXPECT_EQ(deleter_calls, 1);
  EXPECT_EQ(out, reinterpret_cast<tsr_tensor*>(0x1));
  m.dl_tensor.device = {kDLCUDAHost, 1};
  EXPECT_EQ(tsr_from_dlpack(&m, &out), TSR_ERR_UNSUPPORTED);
  expect_last_error("CUDA host device id must be 0, got 1");
  EXPECT_EQ(deleter_calls, 2);
}

TEST_F(CudaEmulated, DlpackStreamArgumentErrors) {
  T host, dev;
  cpu_tensor(iota(3, 1.0f), {3}, &host);
  to_cuda(host.h, &dev);
  DLManagedTensor* m = reinterpret_cast<DLManagedTensor*>(0x1);
  EXPECT_EQ(tsr_to_dlpack_for_stream(dev.h, 0, &m), TSR_ERR_INVALID_ARGUMENT);
  expect_last_error("stream 0 is ambiguous");
  EXPECT_EQ(tsr_to_dlpack_for_stream(dev.h, -7, &m), TSR_ERR_INVALID_ARGUMENT);
  expect_last_error("got -7");
  EXPECT_EQ(tsr_to_dlpack_for_stream(host.h, 1, &m), TSR_ERR_INVALID_ARGUMENT);
  expect_last_error("pass -1");
  EXPECT_EQ(tsr_to_dlpack_for_stream(nullptr, 1, &m), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_to_dlpack_for_stream(dev.h, 1, nullptr), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(m, reinterpret_cast<DLManagedTensor*>(0x1));
  // No synchronization, and a CPU tensor with -1: plain exports.
  ASSERT_OK(tsr_to_dlpack_for_stream(dev.h, -1, &m));
  m->deleter(m);
  ASSERT_OK(tsr_to_dlpack_for_stream(host.h, -1, &m));
  m->deleter(m);
}

// ---- stream order -----------------------------------------------------------------
// Device 0's default stream (tessera's current stream here) is held, so
// work queued on it stays queued; work on another stream that must wait
// for it must not finish until the hold is released.

struct HeldDefaultStream {
  HeldDefaultStream() { tsr_double_hold(0, 0); }
  ~HeldDefaultStream() { release(); }
  void release() {
    if (held) tsr_double_release(0, 0);
    held = false;
  }
  bool held = true;
};

bool stream_done(const tsr_stream* s) {
  bool done = false;
  EXPECT_EQ(tsr_stream_query(s, &done), TSR_OK) << tsr_last_error_message();
  return done;
}

TEST_F(CudaEmulated, NativeHandles) {
  S def, made, cpu;
  ASSERT_OK(tsr_stream_default(TSR_DEVICE_CUDA, 0, &def.h));
  ASSERT_OK(tsr_stream_create(TSR_DEVICE_CUDA, 0, &made.h));
  ASSERT_OK(tsr_stream_default(TSR_DEVICE_CPU, 0, &cpu.h));
  uintptr_t h = 99;
  ASSERT_OK(tsr_stream_native_handle(def.h, &h));
  EXPECT_EQ(h, 0u);  // the legacy default stream, as torch's cuda_stream
  ASSERT_OK(tsr_stream_native_handle(made.h, &h));
  EXPECT_NE(h, 0u);
  ASSERT_OK(tsr_stream_native_handle(cpu.h, &h));
  EXPECT_EQ(h, 0u);
  EXPECT_EQ(tsr_stream_native_handle(nullptr, &h), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_stream_native_handle(made.h, nullptr), TSR_ERR_INVALID_ARGUMENT);
}

TEST_F(CudaEmulated, DlpackConsumerStreamWaitsForTheProducersWork) {
  T host, x;
  cpu_tensor(iota(8, 1.0f), {8}, &host);
  to_cuda(host.h, &x);
  ASSERT_OK(tsr_cuda_synchronize(0));
  S consumer, previous;
  ASSERT_OK(tsr_stream_create(TSR_DEVICE_CUDA, 0, &consumer.h));
  uintptr_t consumer_handle = 0;
  ASSERT_OK(tsr_stream_native_handle(consumer.h, &consumer_handle));
  ASSERT_OK(tsr_stream_current(TSR_DEVICE_CUDA, 0, &previous.h));

  HeldDefaultStream hold;
  T y;
  ASSERT_OK(tsr_mul_scalar(x.h, 2.0, &y.h));  // queued on the held stream
  DLManagedTensor* m = nullptr;
  ASSERT_OK(tsr_to_dlpack_for_stream(y.h, int64_t(consumer_handle), &m));
  // The consumer (here tessera itself, on its own stream) reads y.
  T imported, z;
  ASSERT_OK(tsr_from_dlpack(m, &imported.h));
  ASSERT_OK(tsr_stream_set_current(consumer.h));
  ASSERT_OK(tsr_add_scalar(imported.h, 1.0, &z.h));
  EXPECT_FALSE(stream_done(consumer.h)) << "the consumer's stream did not wait for the producer";
  hold.release();
  ASSERT_OK(tsr_stream_synchronize(consumer.h));
  ASSERT_OK(tsr_stream_set_current(previous.h));
  std::vector<float> want = iota(8, 1.0f);
  for (float& v : want) v = v * 2.0f + 1.0f;
  EXPECT_EQ(values_of(z.h), want);
}

TEST_F(CudaEmulated, StreamWaitsForAnEventAndForAStream) {
  S def, other;
  ASSERT_OK(tsr_stream_default(TSR_DEVICE_CUDA, 0, &def.h));
  ASSERT_OK(tsr_stream_create(TSR_DEVICE_CUDA, 0, &other.h));
  {
    HeldDefaultStream hold;
    E e;
    ASSERT_OK(tsr_event_create(false, &e.h));
    ASSERT_OK(tsr_event_record(e.h, def.h));
    ASSERT_OK(tsr_stream_wait_event(other.h, e.h));
    EXPECT_FALSE(stream_done(other.h));
    hold.release();
    ASSERT_OK(tsr_stream_synchronize(other.h));
  }
  {
    HeldDefaultStream hold;
    ASSERT_OK(tsr_stream_wait_stream(other.h, def.h));
    EXPECT_FALSE(stream_done(other.h));
    hold.release();
    ASSERT_OK(tsr_stream_synchronize(other.h));
  }
  // An event never recorded imposes no wait; a stream waiting for itself
  // neither.
  E fresh;
  ASSERT_OK(tsr_event_create(false, &fresh.h));
  ASSERT_OK(tsr_stream_wait_event(other.h, fresh.h));
  ASSERT_OK(tsr_stream_wait_stream(other.h, other.h));
  EXPECT_TRUE(stream_done(other.h));
  // A CPU event for a CUDA stream: waited for on the host (already done).
  S cpu;
  E cpu_event;
  ASSERT_OK(tsr_stream_default(TSR_DEVICE_CPU, 0, &cpu.h));
  ASSERT_OK(tsr_event_create(false, &cpu_event.h));
  ASSERT_OK(tsr_event_record(cpu_event.h, cpu.h));
  ASSERT_OK(tsr_stream_wait_event(other.h, cpu_event.h));
  ASSERT_OK(tsr_stream_wait_stream(other.h, cpu.h));
  EXPECT_EQ(tsr_stream_wait_event(nullptr, fresh.h), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_stream_wait_event(other.h, nullptr), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_stream_wait_stream(other.h, nullptr), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_double_violations(), 0u);
}

}  // namespace
