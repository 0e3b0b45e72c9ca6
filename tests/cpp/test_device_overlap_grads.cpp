// Gradients of views that reach one element several times (expand, unfold
// with step < size, as_strided with small strides or over an expanded
// input) on the simulated device running the CUDA kernels' functors (CPU
// grid emulator), against the CPU for the same inputs. The backward
// accumulates into an overlapping destination; a GPU would lose updates if
// one launch did that, so besides the values every elementwise launch is
// checked to write each element once (emulated_device.h).
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include <functional>
#include <vector>

#include "capi_test_util.h"
#include "device_test_util.h"
#include "emulated_device.h"

namespace tsr::devtest {
namespace {

constexpr tsr_device_type kSim = simdev::kSimDeviceType;

class DeviceOverlapGrads : public DeviceFixture {
 protected:
  DeviceOverlapGrads() : DeviceFixture(&emulated()) {}
  void SetUp() override {
    DeviceFixture::SetUp();
    racy_before_ = emulated().racy_launches();
  }
  void TearDown() override {
    EXPECT_EQ(emulated().racy_launches(), racy_before_) << "a launch wrote one element twice";
    DeviceFixture::TearDown();
  }
  size_t racy_before_ = 0;
};

// A view of x made through the C API.
using MakeView = std::function<tsr_status(const tsr_tensor* x, tsr_tensor** out)>;

// x.grad after backward(view(x), grad) run `times` times (the later runs
// add into the existing .grad), with x and grad made on `device` from the
// same host values.
std::vector<float> grad_of(tsr_device_type device, const std::vector<float>& x_values,
                           std::vector<int64_t> x_sizes, const MakeView& view,
                           const std::vector<float>& grad_values, int times = 1) {
  T x = on(from(x_values, std::move(x_sizes)), device);
  EXPECT_EQ(tsr_set_requires_grad(x.h, true), TSR_OK);
  for (int i = 0; i < times; ++i) {
    tsr_tensor* y = nullptr;
    const tsr_status made = view(x.h, &y);
    EXPECT_EQ(made, TSR_OK) << tsr_last_error_message();
    if (made != TSR_OK) return {};
    T y_(y);
    const int64_t ndim = tsr_tensor_ndim(y);
    std::vector<int64_t> sizes(tsr_tensor_sizes(y), tsr_tensor_sizes(y) + ndim);
    EXPECT_EQ(size_t(tsr_tensor_numel(y)), grad_values.size());
    T g = on(from(grad_values, sizes), device);
    EXPECT_EQ(tsr_backward(y, g.h, false), TSR_OK) << tsr_last_error_message();
  }
  tsr_tensor* grad = nullptr;
  EXPECT_EQ(tsr_grad(x.h, &grad), TSR_OK) << tsr_last_error_message();
  T grad_(grad);
  EXPECT_EQ(tsr_tensor_device_type(grad), device);
  return host_values(grad_);
}

// Multiples of 1/8 in [-2, 2]: every sum these tests make is exact in
// float, so the device must give the CPU's values bit for bit whatever
// order it adds them in.
std::vector<float> eighths(size_t n, uint32_t salt) {
  std::vector<float> v = pattern(n, 16.0f, salt);
  for (float& f : v) f = float(int(f)) / 8.0f;
  return v;
}

void expect_same_grad(const std::vector<float>& x, std::vector<int64_t> sizes, const MakeView& view,
                      size_t view_numel, int times = 1) {
  const std::vector<float> g = eighths(view_numel, 7);
  const std::vector<float> cpu = grad_of(TSR_DEVICE_CPU, x, sizes, view, g, times);
  const std::vector<float> dev = grad_of(kSim, x, sizes, view, g, times);
  EXPECT_EQ(dev, cpu);
}

TEST_F(DeviceOverlapGrads, ExpandSumsOverBroadcastDims) {
  const std::vector<int64_t> to = {2, 3, 5, 4};
  expect_same_grad(pattern(12, 1.0f, 1), {3, 1, 4},
                   [&](const tsr_tensor* x, tsr_tensor** out) { return tsr_expand(x, 4, to.data(), out); },
                   2 * 3 * 5 * 4, /*times=*/2);
}

TEST_F(DeviceOverlapGrads, UnfoldWithOverlappingWindows) {
  // Windows of 4 every 1 (each element in up to 4 windows) and of 3 every 2.
  expect_same_grad(pattern(20, 1.0f, 2), {2, 10},
                   [](const tsr_tensor* x, tsr_tensor** out) { return tsr_unfold(x, 1, 4, 1, out); },
                   2 * 7 * 4, /*times=*/2);
  expect_same_grad(pattern(20, 1.0f, 3), {2, 10},
                   [](const tsr_tensor* x, tsr_tensor** out) { return tsr_unfold(x, 1, 3, 2, out); },
                   2 * 4 * 3);
}

TEST_F(DeviceOverlapGrads, UnfoldOfExpandedInput) {
  // A stride-0 dim and overlapping windows in one destination.
  const std::vector<int64_t> to = {3, 8};
  expect_same_grad(pattern(8, 1.0f, 4), {8},
                   [&](const tsr_tensor* x, tsr_tensor** out) {
                     tsr_tensor* e = nullptr;
                     tsr_status st = tsr_expand(x, 2, to.data(), &e);
                     if (st != TSR_OK) return st;
                     st = tsr_unfold(e, 1, 5, 1, out);
                     tsr_tensor_release(e);
                     return st;
                   },
                   3 * 4 * 5);
}

TEST_F(DeviceOverlapGrads, AsStridedWithOverlappingOutput) {
  // Rows of 4 starting every 2 elements from element 1 (of 14), and a 3-D
  // one starting every 1.
  const std::vector<int64_t> sizes = {5, 4}, strides = {2, 1};
  expect_same_grad(pattern(14, 1.0f, 5), {14},
                   [&](const tsr_tensor* x, tsr_tensor** out) {
                     return tsr_as_strided(x, 2, sizes.data(), strides.data(), 1, out);
                   },
                   20);
  const std::vector<int64_t> sizes3 = {3, 4, 2}, strides3 = {1, 2, 1};
  expect_same_grad(pattern(12, 1.0f, 6), {12},
                   [&](const tsr_tensor* x, tsr_tensor** out) {
                     return tsr_as_strided(x, 3, sizes3.data(), strides3.data(), 0, out);
                   },
                   24);
}

TEST_F(DeviceOverlapGrads, AsStridedOfAnOverlappingInput) {
  // The input itself reaches its elements several times (an expand): its
  // gradient is divided by the count of reaches, which is accumulated
  // through the input's geometry as well.
  const std::vector<int64_t> to = {3, 4}, sizes = {2, 3}, strides = {1, 1};
  expect_same_grad(pattern(4, 1.0f, 7), {4},
                   [&](const tsr_tensor* x, tsr_tensor** out) {
                     tsr_tensor* e = nullptr;
                     tsr_status st = tsr_expand(x, 2, to.data(), &e);
                     if (st != TSR_OK) return st;
                     st = tsr_as_strided(e, 2, sizes.data(), strides.data(), 0, out);
                     tsr_tensor_release(e);
                     return st;
                   },
                   6);
}

TEST_F(DeviceOverlapGrads, UnfoldGradientOfGeneralValuesWithinSumTolerance) {
  // Values whose sums round: the device adds a window's contributions in
  // its own (fixed) order, so agreement is a sum's, a few ULPs.
  const std::vector<float> x = pattern(64, 1.0f, 8), g = pattern(58 * 7, 1.0f, 9);
  const MakeView view = [](const tsr_tensor* t, tsr_tensor** out) { return tsr_unfold(t, 0, 7, 1, out); };
  const std::vector<float> cpu = grad_of(TSR_DEVICE_CPU, x, {64}, view, g);
  const std::vector<float> dev = grad_of(kSim, x, {64}, view, g);
  expect_close(dev, cpu, 1e-6f, 1e-6f, "unfold grad");
  // The same inputs give the same bits every time (no race, fixed order).
  EXPECT_EQ(grad_of(kSim, x, {64}, view, g), dev);
}

}  // namespace
}  // namespace tsr::devtest
