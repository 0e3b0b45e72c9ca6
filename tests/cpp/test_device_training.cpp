// The whole device path without a GPU: the CUDA kernels' functors (run by
// the CPU grid emulator, gpu/emulator) queued on the simulated device's
// streams with its PROT_NONE memory opened only while they run, driven by
// the same primitives, src/device/ argument building, transfers and
// autograd a CUDA device uses. A digits-sized MLP training step (linear,
// relu, gelu, dropout, cross-entropy, backward, SGD update) runs on the CPU
// and on the simulated device from the same parameters and the same
// generator seed; every loss, gradient and updated parameter must agree.
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "capi_test_util.h"
#include "device_test_util.h"
#include "emulated_device.h"

namespace tsr::devtest {
namespace {

constexpr tsr_device_type kSim = simdev::kSimDeviceType;

// One model's parameters on one device, and its training step.
struct Mlp {
  static constexpr int64_t kIn = 20, kHidden = 16, kOut = 10, kBatch = 24;
  T w1, b1, w2, b2;
  tsr_device_type device;

  Mlp(tsr_device_type d, const std::vector<std::vector<float>>& init) : device(d) {
    T* params[] = {&w1, &b1, &w2, &b2};
    const std::vector<int64_t> sizes[] = {{kHidden, kIn}, {kHidden}, {kOut, kHidden}, {kOut}};
    for (int i = 0; i < 4; ++i) {
      *params[i] = on(from(init[size_t(i)], sizes[i]), d);
      EXPECT_EQ(tsr_set_requires_grad(params[i]->h, true), TSR_OK);
    }
  }

  // loss = cross_entropy(linear(dropout(gelu(relu(linear(x))))), target);
  // backward; p -= lr * p.grad. Returns the loss.
  float step(const T& x_host, const T& target_host, uint64_t seed, float lr) {
    T x = on(x_host, device), target = on(target_host, device);
    tsr_generator* g = nullptr;
    EXPECT_EQ(tsr_generator_create(seed, &g), TSR_OK);
    tsr_tensor *h1, *r, *a, *d, *logits, *loss;
    EXPECT_EQ(tsr_linear(x.h, w1.h, b1.h, &h1), TSR_OK) << tsr_last_error_message();
    T h1_(h1);
    EXPECT_EQ(tsr_relu(h1, &r), TSR_OK) << tsr_last_error_message();
    T r_(r);
    EXPECT_EQ(tsr_gelu(r, TSR_GELU_NONE, &a), TSR_OK) << tsr_last_error_message();
    T a_(a);
    EXPECT_EQ(tsr_dropout(a, 0.25, true, g, &d), TSR_OK) << tsr_last_error_message();
    T d_(d);
    tsr_generator_release(g);
    EXPECT_EQ(tsr_linear(d, w2.h, b2.h, &logits), TSR_OK) << tsr_last_error_message();
    T logits_(logits);
    EXPECT_EQ(tsr_cross_entropy(logits, target.h, &loss), TSR_OK) << tsr_last_error_message();
    T loss_(loss);
    EXPECT_EQ(tsr_backward(loss, nullptr, false), TSR_OK) << tsr_last_error_message();
    double value = NAN;
    EXPECT_EQ(tsr_item_double(loss, &value), TSR_OK) << tsr_last_error_message();
    // The SGD update without history, as torch.optim.SGD does under no_grad.
    const bool grad_was_enabled = tsr_set_grad_enabled(false);
    for (T* p : {&w1, &b1, &w2, &b2}) {
      tsr_tensor* grad = nullptr;
      EXPECT_EQ(tsr_grad(p->h, &grad), TSR_OK);
      T grad_(grad);
      EXPECT_EQ(tsr_add_(p->h, grad, -lr), TSR_OK) << tsr_last_error_message();
      EXPECT_EQ(tsr_zero_grad(p->h), TSR_OK) << tsr_last_error_message();
    }
    tsr_set_grad_enabled(grad_was_enabled);
    return float(value);
  }
};

class DeviceTraining : public DeviceFixture {
 protected:
  DeviceTraining() : DeviceFixture(&emulated()) {}
};

TEST_F(DeviceTraining, MlpStepsMatchTheCpu) {
  const std::vector<std::vector<float>> init = {
      pattern(Mlp::kHidden * Mlp::kIn, 0.3f, 1), pattern(Mlp::kHidden, 0.1f, 2),
      pattern(Mlp::kOut * Mlp::kHidden, 0.3f, 3), pattern(Mlp::kOut, 0.1f, 4)};
  Mlp cpu(TSR_DEVICE_CPU, init), dev(kSim, init);
  const size_t launches_before = emulated().launches();

  for (int step = 0; step < 3; ++step) {
    T x = from(pattern(Mlp::kBatch * Mlp::kIn, 1.0f, 10 + step), {Mlp::kBatch, Mlp::kIn});
    std::vector<int64_t> labels(Mlp::kBatch);
    for (int64_t i = 0; i < Mlp::kBatch; ++i) labels[size_t(i)] = (i * 7 + step) % Mlp::kOut;
    tsr_tensor* target = nullptr;
    const int64_t n = Mlp::kBatch;
    ASSERT_EQ(tsr_from_data(labels.data(), labels.size() * 8, 1, &n, TSR_INT64, &target), TSR_OK);
    T target_(target);

    const float loss_cpu = cpu.step(x, target_, 1234 + step, 0.5f);
    const float loss_dev = dev.step(x, target_, 1234 + step, 0.5f);
    ASSERT_TRUE(std::isfinite(loss_cpu));
    EXPECT_NEAR(loss_dev, loss_cpu, 1e-5f * std::fabs(loss_cpu)) << "step " << step;
  }
  // Parameters after three updates: same dropout masks, same math up to the
  // order of sums (gemm, bias gradients).
  expect_close(host_values(dev.w1), host_values(cpu.w1), 1e-4f, 1e-6f, "w1");
  expect_close(host_values(dev.b1), host_values(cpu.b1), 1e-4f, 1e-6f, "b1");
  expect_close(host_values(dev.w2), host_values(cpu.w2), 1e-4f, 1e-6f, "w2");
  expect_close(host_values(dev.b2), host_values(cpu.b2), 1e-4f, 1e-6f, "b2");
  // The parameters stayed on the device and were updated by its kernels.
  EXPECT_EQ(tsr_tensor_device_type(dev.w1.h), kSim);
  EXPECT_GT(emulated().launches(), launches_before + 30);
}

// GradScaler on device gradients: the dense ones go through the fused
// check-and-unscale kernel, one launch per 32 gradients; a transposed
// gradient through the ops path; the step equals the CPU's, and an inf in
// any gradient skips it and backs the scale off.
TEST_F(DeviceTraining, GradScalerUnscalesDenseGradientsInOneLaunchPer32) {
  for (const bool poison : {false, true}) {
    std::vector<T> params_dev, params_cpu;
    for (int i = 0; i < 34; ++i) {
      const T host = from(pattern(6, 0.5f, uint32_t(i + 1)), {2, 3});
      for (auto [list, device] : {std::pair{&params_dev, kSim}, std::pair{&params_cpu, TSR_DEVICE_CPU}}) {
        list->push_back(on(host, device));
        // A gradient of its own: 1024 * pattern, the last one transposed.
        T grad = on(from(pattern(6, 1024.0f, uint32_t(100 + i)), {i == 33 ? 3 : 2, i == 33 ? 2 : 3}), device);
        if (i == 33) {
          tsr_tensor* t = nullptr;
          ASSERT_EQ(tsr_transpose(grad.h, 0, 1, &t), TSR_OK);
          grad = T(t);
        }
        if (poison && i == 20) {
          ASSERT_EQ(tsr_fill_(grad.h, INFINITY), TSR_OK);
        }
        ASSERT_EQ(tsr_set_grad(list->back().h, grad.h), TSR_OK) << tsr_last_error_message();
      }
    }
    double scale_after[2] = {0, 0};
    size_t fused_launches = 0;
    for (int which = 0; which < 2; ++which) {
      std::vector<T>& params = which == 0 ? params_dev : params_cpu;
      std::vector<tsr_tensor*> handles;
      for (T& p : params) handles.push_back(p.h);
      tsr_sgd_options so;
      tsr_sgd_options_init(&so);
      so.lr = 0.5;
      tsr_optimizer* opt = nullptr;
      ASSERT_EQ(tsr_optimizer_sgd(handles.data(), handles.size(), &so, &opt), TSR_OK) << tsr_last_error_message();
      tsr_grad_scaler_options go = TSR_GRAD_SCALER_OPTIONS_INIT;
      go.init_scale = 1024.0;
      tsr_grad_scaler* scaler = nullptr;
      ASSERT_EQ(tsr_grad_scaler_create(&go, &scaler), TSR_OK);
      T loss = on(from({1.0f}, {}), which == 0 ? kSim : TSR_DEVICE_CPU);
      tsr_tensor* scaled = nullptr;  // makes the scale: torch's first scale()
      ASSERT_EQ(tsr_grad_scaler_scale(scaler, loss.h, &scaled), TSR_OK) << tsr_last_error_message();
      tsr_tensor_release(scaled);
      const size_t before = emulated().launches_of("non_finite_check_and_unscale");
      bool stepped = false;
      ASSERT_EQ(tsr_grad_scaler_step(scaler, opt, &stepped), TSR_OK) << tsr_last_error_message();
      EXPECT_EQ(stepped, !poison);
      if (which == 0) fused_launches = emulated().launches_of("non_finite_check_and_unscale") - before;
      ASSERT_EQ(tsr_grad_scaler_update(scaler), TSR_OK);
      ASSERT_EQ(tsr_grad_scaler_get_scale(scaler, &scale_after[which]), TSR_OK);
      tsr_grad_scaler_release(scaler);
      tsr_optimizer_release(opt);
    }
    EXPECT_EQ(fused_launches, 2u) << "33 dense gradients: 32 + 1";
    EXPECT_EQ(scale_after[0], scale_after[1]);
    EXPECT_EQ(scale_after[0], poison ? 512.0 : 1024.0);
    for (size_t i = 0; i < params_dev.size(); ++i)
      expect_close(host_values(params_dev[i]), host_values(params_cpu[i]), 1e-6f, 1e-7f, "param");
  }
}

TEST_F(DeviceTraining, ChannelsLastAndReductionsMatchTheCpuBitForBit) {
  const std::vector<float> v = pattern(2 * 3 * 5 * 4, 2.0f, 99);
  T x = from(v, {2, 3, 5, 4});
  T xd = on(x, kSim);
  tsr_tensor *cl_cpu, *cl_dev;
  ASSERT_EQ(tsr_contiguous(x.h, TSR_CHANNELS_LAST, &cl_cpu), TSR_OK);
  ASSERT_EQ(tsr_contiguous(xd.h, TSR_CHANNELS_LAST, &cl_dev), TSR_OK) << tsr_last_error_message();
  T a(cl_cpu), b(cl_dev);
  bool cl = false;
  ASSERT_EQ(tsr_is_contiguous(b.h, TSR_CHANNELS_LAST, &cl), TSR_OK);
  EXPECT_TRUE(cl);
  T back = on(b, TSR_DEVICE_CPU);
  // Same strides, same bytes.
  for (int d = 0; d < 4; ++d)
    EXPECT_EQ(tsr_tensor_strides(back.h)[d], tsr_tensor_strides(a.h)[d]) << "dim " << d;
  std::vector<float> raw_cpu(v.size()), raw_dev(v.size());
  std::memcpy(raw_cpu.data(), tsr_tensor_data_ptr(a.h), v.size() * 4);
  std::memcpy(raw_dev.data(), tsr_tensor_data_ptr(back.h), v.size() * 4);
  EXPECT_EQ(raw_dev, raw_cpu);

  // argmax along the channels of the channels_last tensor.
  tsr_tensor *am_cpu, *am_dev;
  ASSERT_EQ(tsr_argmax(a.h, 1, false, &am_cpu), TSR_OK);
  ASSERT_EQ(tsr_argmax(b.h, 1, false, &am_dev), TSR_OK) << tsr_last_error_message();
  T amc(am_cpu), amd(am_dev);
  std::vector<int64_t> ic(size_t(tsr_tensor_numel(amc.h))), id(ic.size());
  size_t needed = 0;
  ASSERT_EQ(tsr_copy_to_buffer(amc.h, ic.data(), ic.size() * 8, &needed), TSR_OK);
  ASSERT_EQ(tsr_copy_to_buffer(amd.h, id.data(), id.size() * 8, &needed), TSR_OK);
  EXPECT_EQ(id, ic);
}

// softmax on the device (the row kernel of log_softmax without the log) and
// its backward (there the formula y * (g - sum(g * y)) in device ops),
// against the CPU's fused kernels.
TEST_F(DeviceTraining, SoftmaxAndItsGradientMatchTheCpu) {
  const std::vector<float> v = pattern(5 * 9, 3.0f, 7), c = pattern(5 * 9, 1.0f, 11);
  std::vector<float> y_host[2], grad_host[2];
  for (int on_device = 0; on_device < 2; ++on_device) {
    const tsr_device_type d = on_device ? kSim : TSR_DEVICE_CPU;
    T x = on(from(v, {5, 9}), d), w = on(from(c, {5, 9}), d);
    ASSERT_EQ(tsr_set_requires_grad(x.h, true), TSR_OK);
    tsr_tensor *y, *yw, *loss;
    ASSERT_EQ(tsr_softmax(x.h, 1, &y), TSR_OK) << tsr_last_error_message();
    T y_(y);
    EXPECT_EQ(tsr_tensor_device_type(y), d);
    ASSERT_EQ(tsr_mul(y, w.h, &yw), TSR_OK) << tsr_last_error_message();
    T yw_(yw);
    ASSERT_EQ(tsr_sum(yw, 0, nullptr, false, &loss), TSR_OK) << tsr_last_error_message();
    T loss_(loss);
    ASSERT_EQ(tsr_backward(loss, nullptr, false), TSR_OK) << tsr_last_error_message();
    tsr_tensor* g = nullptr;
    ASSERT_EQ(tsr_grad(x.h, &g), TSR_OK);
    T g_(g);
    y_host[on_device] = host_values(y_);
    grad_host[on_device] = host_values(g_);
  }
  expect_close(y_host[1], y_host[0], 1e-6f, 1e-7f, "softmax");
  expect_close(grad_host[1], grad_host[0], 1e-5f, 1e-6f, "softmax gradient");
  double row_sum = 0;
  for (int j = 0; j < 9; ++j) row_sum += y_host[1][size_t(j)];
  EXPECT_NEAR(row_sum, 1.0, 1e-6);
}

}  // namespace
}  // namespace tsr::devtest
