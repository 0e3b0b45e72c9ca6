// Transfers on the simulated device with real bytes (copy and fill kernels
// that run on the device's pages), non_blocking copies from pinned memory,
// and the C API's error paths.
#include <gtest/gtest.h>

#include <tessera/dlpack.h>
#include <tessera/tessera.h>

#include <numeric>

#include "alloc/caching_allocator.h"
#include "capi/handles.h"
#include "core/factory.h"
#include "core/pinned_stream.h"
#include "core/layout.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "device/transfer.h"
#include "device_test_util.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/math.h"
#include "ops/to_device.h"
#include "autograd/node.h"

namespace tsr::devtest {
namespace {

class TransferTest : public DeviceFixture {
 protected:
  TransferTest() : DeviceFixture(&kernels) {}
  CopyOnlyKernels kernels;

  // 0, 1, 2, ... as float32 on the CPU.
  static Tensor iota(const Shape& sizes, tsr_memory_format fmt = TSR_CONTIGUOUS_FORMAT) {
    Tensor t = empty(sizes, TSR_FLOAT32, fmt, kCpu);
    Tensor c = empty(sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
    std::iota(c.data<float>(), c.data<float>() + c.numel(), 0.0f);
    kernels::copy_strided(t, c);
    return t;
  }
  static std::vector<double> values(const Tensor& t) {
    Tensor c = kernels::contiguous_copy(t, TSR_FLOAT64);
    return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
  }
};

TEST_F(TransferTest, RoundTripKeepsValuesAndLayouts) {
  std::vector<Tensor> cases = {
      iota({3, 4}),                                      // contiguous
      views::t(iota({3, 4})),                            // transposed
      iota({2, 3, 4, 5}, TSR_CHANNELS_LAST),             // channels_last
      views::slice(iota({6, 5}), 1, 1, 5, 2),            // sliced (not dense)
  };
  for (const Tensor& h : cases) {
    Tensor d = device::to_device(h, sim_device(), false);
    EXPECT_EQ(d.device(), sim_device());
    EXPECT_EQ(d.sizes(), h.sizes());
    if (is_non_overlapping_and_dense(h.sizes(), h.strides())) EXPECT_EQ(d.strides(), h.strides());
    else EXPECT_TRUE(is_contiguous_strides(d.sizes(), d.strides()));
    Tensor back = device::to_device(d, kCpu, false);
    EXPECT_EQ(values(back), values(h)) << "case with " << h.ndim() << " dims";
  }
}

TEST_F(TransferTest, CopyConvertsDtypeAndLayoutOnTheDevice) {
  Tensor h = iota({4, 6});
  // float32 host -> float64 transposed device tensor: staged, then the
  // device's copy kernel converts and lays out.
  Tensor d = views::t(empty({6, 4}, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, sim_device()));
  ops::copy_(d, h);
  EXPECT_EQ(d.version(), 1);
  Tensor back = empty({4, 6}, TSR_INT32, TSR_CONTIGUOUS_FORMAT, kCpu);
  ops::copy_(back, d);
  EXPECT_EQ(values(back), values(h));
}

TEST_F(TransferTest, CopyBroadcastsAcrossDevices) {
  Tensor row = iota({3});
  Tensor d = empty({2, 3}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, sim_device());
  ops::copy_(d, row);
  EXPECT_EQ(values(device::readable_on_host(d)), std::vector<double>({0, 1, 2, 0, 1, 2}));
}

TEST_F(TransferTest, ToSameDeviceIsTheSameTensor) {
  Tensor d = device::to_device(iota({5}), sim_device(), false);
  Tensor same = ops::to_device(d, sim_device(), false);
  EXPECT_TRUE(same.is_same(d));
  tsr_tensor* h = nullptr;
  tsr_tensor in(d);
  ASSERT_EQ(tsr_to_device(&in, TSR_DEVICE_EXT, 0, 0, &h), TSR_OK);
  EXPECT_EQ(tsr_shares_storage(&in, h, nullptr), TSR_ERR_INVALID_ARGUMENT);
  bool shares = false;
  ASSERT_EQ(tsr_shares_storage(&in, h, &shares), TSR_OK);
  EXPECT_TRUE(shares);
  tsr_tensor_release(h);
}

// The state of the pinned block at p in its caching allocator's snapshot.
alloc::BlockSnapshot::State pinned_block_state(const void* p) {
  for (const alloc::SegmentSnapshot& seg : alloc::caching_allocator(kPinnedHost).snapshot().segments)
    for (const alloc::BlockSnapshot& b : seg.blocks)
      if (b.address == uintptr_t(p)) return b.state;
  ADD_FAILURE() << "no pinned block at " << p;
  return alloc::BlockSnapshot::INACTIVE;
}

TEST_F(TransferTest, NonBlockingFromPinnedKeepsSourceUntilCopied) {
  const Stream s = current_stream(sim_device());
  Tensor pinned = device::pin_memory(iota({1024}));
  ASSERT_EQ(pinned.device().type, TSR_DEVICE_CUDA_HOST);
  EXPECT_TRUE(device::is_pinned(pinned));
  void* first = pinned.data_ptr();
  sim().hold(s);
  Tensor d = device::to_device(pinned, sim_device(), true);  // queued, not run
  EXPECT_EQ(sim().pending(s), 1u);
  pinned = Tensor();  // the caller lets go of the source
  EXPECT_EQ(pinned_block_state(first), alloc::BlockSnapshot::ACTIVE_PENDING_FREE);
  Tensor other = device::pin_memory(iota({1024}));
  EXPECT_NE(other.data_ptr(), first) << "pinned source reused while its copy is queued";
  sim().release(s);
  sim().synchronize_stream(s);
  // The next allocation polls the events: the block is free to reuse (or
  // already reused by that allocation).
  Tensor third = device::pin_memory(iota({4}));
  EXPECT_NE(pinned_block_state(first), alloc::BlockSnapshot::ACTIVE_PENDING_FREE);
  EXPECT_EQ(values(device::readable_on_host(d)), values(iota({1024})));
}

TEST_F(TransferTest, NonBlockingFromPageableIsSynchronous) {
  const Stream s = current_stream(sim_device());
  Tensor d = device::to_device(iota({16}), sim_device(), true);
  EXPECT_EQ(sim().pending(s), 0u);
  EXPECT_EQ(values(device::readable_on_host(d)), values(iota({16})));
}

TEST_F(TransferTest, GradientGoesBackToTheSourceDevice) {
  Tensor x = iota({3});
  autograd::set_requires_grad(x, true);
  Tensor d = ops::to_device(x, sim_device(), false);
  EXPECT_STREQ(autograd::grad_fn(d)->name(), "ToCopyBackward0");
}

TEST_F(TransferTest, ItemAndBufferReadsCopyThroughTheBackend) {
  Tensor d = device::to_device(iota({2, 3}), sim_device(), false);
  tsr_tensor h(d);
  std::vector<float> buf(6);
  ASSERT_EQ(tsr_copy_to_buffer(&h, buf.data(), buf.size() * 4, nullptr), TSR_OK);
  EXPECT_EQ(buf, std::vector<float>({0, 1, 2, 3, 4, 5}));
  double v = 0;
  int64_t idx[2] = {1, 2};
  ASSERT_EQ(tsr_get_double(&h, 2, idx, &v), TSR_OK);
  EXPECT_EQ(v, 5.0);
  // t[1, 2] = -1.5 on the device: the element converted on the host and
  // copied over, never written through the device address.
  const int64_t version = d.version();
  ASSERT_EQ(tsr_set_double(&h, 2, idx, -1.5), TSR_OK) << tsr_last_error_message();
  EXPECT_EQ(d.version(), version + 1);
  ASSERT_EQ(tsr_copy_to_buffer(&h, buf.data(), buf.size() * 4, nullptr), TSR_OK);
  EXPECT_EQ(buf, std::vector<float>({0, 1, 2, 3, 4, -1.5f}));
}

TEST_F(TransferTest, FactoriesOnTheDevice) {
  int64_t sizes[2] = {2, 2};
  tsr_tensor* t = nullptr;
  ASSERT_EQ(tsr_full(2, sizes, 7.0, TSR_FLOAT32, TSR_DEVICE_EXT, 0, &t), TSR_OK);
  double v = 0;
  ASSERT_EQ(tsr_item_double(t, &v), TSR_ERR_SHAPE_MISMATCH);
  int64_t idx[2] = {1, 1};
  ASSERT_EQ(tsr_get_double(t, 2, idx, &v), TSR_OK);
  EXPECT_EQ(v, 7.0);
  tsr_tensor_release(t);
  ASSERT_EQ(tsr_arange(0, 4, 1, TSR_INT64, TSR_DEVICE_EXT, 0, &t), TSR_OK);
  int64_t i3 = 3;
  ASSERT_EQ(tsr_get_double(t, 1, &i3, &v), TSR_OK);
  EXPECT_EQ(v, 3.0);
  tsr_tensor_release(t);
}

// ---- C API errors: status, message, nothing changed ----------------------

TEST_F(TransferTest, BadDeviceTypeAndIndex) {
  tsr_tensor h(iota({2}));
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_to_device(&h, static_cast<tsr_device_type>(99), 0, 0, &out), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(tsr_to_device(&h, TSR_DEVICE_EXT, 5, 0, &out), TSR_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsr_last_error_message()).find("ext"), std::string::npos) << tsr_last_error_message();
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(tsr_to_device(nullptr, TSR_DEVICE_EXT, 0, 0, &out), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_to_device(&h, TSR_DEVICE_EXT, 0, 0, nullptr), TSR_ERR_INVALID_ARGUMENT);
  int pinned = -1;
  EXPECT_EQ(tsr_is_pinned(&h, &pinned), TSR_OK);
  EXPECT_EQ(pinned, 0);
  EXPECT_EQ(tsr_is_pinned(&h, nullptr), TSR_ERR_INVALID_ARGUMENT);
}

TEST_F(TransferTest, PinningADeviceTensorIsRefused) {
  tsr_tensor h(device::to_device(iota({2}), sim_device(), false));
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_pin_memory(&h, &out), TSR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tsr_last_error_message()).find("cannot pin"), std::string::npos);
  EXPECT_EQ(out, nullptr);
}

TEST_F(TransferTest, DlpackExportOfADeviceTensorIsRefused) {
  tsr_tensor h(device::to_device(iota({2}), sim_device(), false));
  DLManagedTensor* out = nullptr;
  EXPECT_EQ(tsr_to_dlpack(&h, &out), TSR_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsr_last_error_message()).find("DLPack export of a tensor on ext:0"),
            std::string::npos);
  EXPECT_EQ(out, nullptr);
}

TEST_F(TransferTest, OpWithoutDeviceKernelSaysWhich) {
  tsr_tensor h(device::to_device(iota({2}), sim_device(), false));
  tsr_tensor* out = nullptr;
  // (clamp, then cumsum gained a device path in issue 32)
  EXPECT_EQ(tsr_relu_(&h), TSR_ERR_UNSUPPORTED);
  EXPECT_STREQ(tsr_last_error_message(), "relu_: no kernel for device ext:0 in this build");
  // A kernel the device lacks: its own message, nothing returned.
  EXPECT_EQ(tsr_neg(&h, &out), TSR_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(tsr_last_error_message()).find("no unary kernel"), std::string::npos);
  EXPECT_EQ(out, nullptr);
  // A DeviceKernels method added after the device was written (issue 32's
  // scan): the interface's default refuses it by name.
  EXPECT_EQ(tsr_cumsum(&h, 0, nullptr, &out), TSR_ERR_UNSUPPORTED);
  EXPECT_STREQ(tsr_last_error_message(), "scan: this device has no kernel for it");
  EXPECT_EQ(out, nullptr);
}

TEST_F(TransferTest, MixedDeviceOpAndCopyWithGrad) {
  tsr_tensor d(device::to_device(iota({3}), sim_device(), false));
  tsr_tensor c(iota({3}));
  tsr_tensor* out = nullptr;
  EXPECT_EQ(tsr_add(&d, &c, &out), TSR_ERR_DEVICE_MISMATCH);
  EXPECT_STREQ(tsr_last_error_message(), "Expected all tensors to be on the same device, but found "
                                         "at least two devices, ext:0 and cpu!");
  Tensor x = iota({3});
  autograd::set_requires_grad(x, true);
  tsr_tensor xs(x);
  EXPECT_EQ(tsr_copy_(&d, &xs), TSR_ERR_AUTOGRAD);
  EXPECT_EQ(d.tensor.version(), 0);
}

}  // namespace
}  // namespace tsr::devtest
