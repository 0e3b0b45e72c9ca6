// Shared by the device-layer tests: one simulated device registered with
// the caching allocator for the whole process (a fixture takes the
// DeviceKernels it should run, so a later test can plug in the CPU grid
// emulator and run a training step end to end), a pinned-memory backend
// (TSR_DEVICE_CUDA_HOST over ordinary host memory), a DeviceKernels that
// records every call without running it, and one that runs copy and fill
// for real on the device's pages.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/pinned_stream.h"
#include "simdev/simulated_device.h"

namespace tsr::devtest {

inline simdev::SimulatedDevice& sim() {
  static simdev::SimulatedDevice* s = [] {
    auto* d = new simdev::SimulatedDevice(2, size_t(512) << 20);
    alloc::register_caching_backend(d);
    return d;
  }();
  return *s;
}
inline Device sim_device(int32_t index = 0) { return sim().device(index); }

// Pinned host memory for the tests, behaving as the CUDA plugin's pinned
// backend: page-aligned host allocations, one device, and streams that
// stand for streams of the simulated device (core/pinned_stream.h), so the
// event the caching allocator records for a pinned block used by a copy
// completes when that simulated stream gets there.
class PinnedHostBackend final : public DeviceBackend {
 public:
  tsr_device_type type() const override { return TSR_DEVICE_CUDA_HOST; }
  int32_t device_count() const override { return 1; }
  void* allocate_segment(int32_t, size_t bytes, std::string*) noexcept override {
    return std::aligned_alloc(4096, bytes);
  }
  void release_segment(int32_t, void* p, size_t) noexcept override { std::free(p); }
  DeviceMemoryInfo memory_info(int32_t) override { return {size_t(1) << 30, size_t(1) << 30}; }
  int64_t create_stream(int32_t) override {
    return pinned_stream(sim().stream(0, sim().create_stream(0))).id;
  }
  void destroy_stream(Stream s) noexcept override { sim().destroy_stream(sim_stream(s)); }
  void synchronize_stream(Stream s) override { sim().synchronize_stream(sim_stream(s)); }
  bool query_stream(Stream s) override { return sim().query_stream(sim_stream(s)); }
  void synchronize_device(int32_t) override { sim().synchronize_device(0); }
  EventHandle create_event(int32_t, bool timing) override { return sim().create_event(0, timing); }
  void destroy_event(EventHandle e) noexcept override { sim().destroy_event(e); }
  void record_event(EventHandle e, Stream s) override { sim().record_event(e, sim_stream(s)); }
  bool query_event(EventHandle e) override { return sim().query_event(e); }
  void synchronize_event(EventHandle e) override { sim().synchronize_event(e); }
  double elapsed_ms(EventHandle a, EventHandle b) override { return sim().elapsed_ms(a, b); }
  void copy_bytes(void* dst, const void* src, size_t n, CopyKind, Stream) override {
    std::memcpy(dst, src, n);
  }

 private:
  static Stream sim_stream(Stream s) { return device_stream_of(s, simdev::kSimDeviceType); }
};
inline void register_pinned() {
  static bool done = [] {
    alloc::register_caching_backend(new PinnedHostBackend);
    return true;
  }();
  (void)done;
}

// One recorded kernel call.
struct KernelCall {
  std::string what;  // "copy", "fill", "unary", "binary", "reduce", "gemm", ...
  KernelShape shape{};
  std::vector<KernelOperand> operands;
  tsr_dtype compute = TSR_FLOAT32;
  double alpha = 0;
  ReduceArgs reduce{};
  GemmArgs gemm{};
  UnscaleArgs unscale{};
};

// Records every call and touches no memory.
class RecordingKernels final : public DeviceKernels {
 public:
  std::vector<KernelCall> calls;
  std::vector<KernelCall> of(const std::string& what) const {
    std::vector<KernelCall> r;
    for (const KernelCall& c : calls)
      if (c.what == what) r.push_back(c);
    return r;
  }
  void copy(const KernelShape& s, const KernelOperand& d, const KernelOperand& src, Stream) override {
    calls.push_back({"copy", s, {d, src}});
  }
  void fill(const KernelShape& s, const KernelOperand& d, double v, Stream) override {
    calls.push_back({"fill", s, {d}, TSR_FLOAT32, v});
  }
  void unary(UnaryKernel, const KernelShape& s, const KernelOperand& o, const KernelOperand& i,
             double alpha, tsr_dtype compute, Stream) override {
    calls.push_back({"unary", s, {o, i}, compute, alpha});
  }
  void binary(BinaryKernel, const KernelShape& s, const KernelOperand& o, const KernelOperand& a,
              const KernelOperand& b, double alpha, tsr_dtype compute, Stream) override {
    calls.push_back({"binary", s, {o, a, b}, compute, alpha});
  }
  void reduce(ReduceKernel, const ReduceArgs& args, Stream) override {
    KernelCall c{"reduce", {}, {}};
    c.reduce = args;
    calls.push_back(c);
  }
  void softmax(bool, void*, const void*, tsr_dtype, int64_t, int64_t, int64_t, Stream) override {
    calls.push_back({"softmax", {}, {}});
  }
  void log_softmax_backward(void*, const void*, const void*, tsr_dtype, int64_t, int64_t, int64_t,
                            Stream) override {
    calls.push_back({"log_softmax_backward", {}, {}});
  }
  void nll_loss(void*, const void*, const int64_t*, tsr_dtype, int64_t, int64_t, Stream) override {
    calls.push_back({"nll_loss", {}, {}});
  }
  void nll_loss_backward(void*, const void*, const int64_t*, tsr_dtype, int64_t, int64_t, Stream) override {
    calls.push_back({"nll_loss_backward", {}, {}});
  }
  void bernoulli_noise(void*, tsr_dtype, int64_t, uint64_t, uint64_t, uint32_t, double, Stream) override {
    calls.push_back({"bernoulli_noise", {}, {}});
  }
  void gemm(const GemmArgs& g, Stream) override {
    KernelCall c{"gemm", {}, {}};
    c.gemm = g;
    calls.push_back(c);
  }
  void non_finite_check_and_unscale(const UnscaleArgs& args, Stream) override {
    KernelCall c{"non_finite_check_and_unscale", {}, {}};
    c.unscale = args;
    calls.push_back(c);
  }
  void sdpa_forward(const SdpaDeviceArgs&, Stream) override { calls.push_back({"sdpa_forward", {}, {}}); }
  void sdpa_backward(const SdpaDeviceArgs&, Stream) override { calls.push_back({"sdpa_backward", {}, {}}); }
};

// copy and fill run for real on the simulated device (an element loop over
// the KernelShape with the device's pages opened); the rest is refused as
// a device without those kernels would.
class CopyOnlyKernels final : public DeviceKernels {
 public:
  void copy(const KernelShape& shape, const KernelOperand& dst, const KernelOperand& src, Stream s) override {
    sim().launch_with_device_access(s, [=] {
      for_each_index(shape, [&](const int64_t* idx) {
        double v = read(src, shape, idx);
        write(dst, shape, idx, v);
      });
    });
  }
  void fill(const KernelShape& shape, const KernelOperand& dst, double value, Stream s) override {
    sim().launch_with_device_access(s, [=] {
      for_each_index(shape, [&](const int64_t* idx) { write(dst, shape, idx, value); });
    });
  }
  [[noreturn]] static void refuse(const char* what) {
    fail(TSR_ERR_UNSUPPORTED, "CopyOnlyKernels: no ", what, " kernel");
  }
  void unary(UnaryKernel, const KernelShape&, const KernelOperand&, const KernelOperand&, double,
             tsr_dtype, Stream) override { refuse("unary"); }
  void binary(BinaryKernel, const KernelShape&, const KernelOperand&, const KernelOperand&,
              const KernelOperand&, double, tsr_dtype, Stream) override { refuse("binary"); }
  void reduce(ReduceKernel, const ReduceArgs&, Stream) override { refuse("reduce"); }
  void softmax(bool, void*, const void*, tsr_dtype, int64_t, int64_t, int64_t, Stream) override { refuse("softmax"); }
  void log_softmax_backward(void*, const void*, const void*, tsr_dtype, int64_t, int64_t, int64_t,
                            Stream) override { refuse("log_softmax_backward"); }
  void nll_loss(void*, const void*, const int64_t*, tsr_dtype, int64_t, int64_t, Stream) override { refuse("nll_loss"); }
  void nll_loss_backward(void*, const void*, const int64_t*, tsr_dtype, int64_t, int64_t, Stream) override {
    refuse("nll_loss_backward");
  }
  void bernoulli_noise(void*, tsr_dtype, int64_t, uint64_t, uint64_t, uint32_t, double, Stream) override {
    refuse("bernoulli_noise");
  }
  void gemm(const GemmArgs&, Stream) override { refuse("gemm"); }
  void non_finite_check_and_unscale(const UnscaleArgs&, Stream) override { refuse("non_finite_check_and_unscale"); }
  void sdpa_forward(const SdpaDeviceArgs&, Stream) override { refuse("sdpa_forward"); }
  void sdpa_backward(const SdpaDeviceArgs&, Stream) override { refuse("sdpa_backward"); }

 private:
  template <typename Fn>
  static void for_each_index(const KernelShape& shape, Fn fn) {
    if (shape.numel() == 0) return;
    int64_t idx[kMaxKernelDims] = {};
    while (true) {
      fn(idx);
      int32_t d = shape.ndim;
      while (d > 0 && ++idx[d - 1] == shape.sizes[d - 1]) idx[--d] = 0;
      if (d == 0) return;
    }
  }
  static char* address(const KernelOperand& op, const KernelShape& shape, const int64_t* idx) {
    int64_t off = 0;
    for (int32_t d = 0; d < shape.ndim; ++d) off += idx[d] * op.strides[d];
    return static_cast<char*>(op.data) + off * element_size(op.dtype);
  }
  // Through double: exact for every value these tests use.
  static double read(const KernelOperand& op, const KernelShape& shape, const int64_t* idx) {
    const char* p = address(op, shape, idx);
    return dispatch_all(op.dtype, [&]<typename T>() {
      T v;
      std::memcpy(&v, p, sizeof(T));
      return convert<double>(v);
    });
  }
  static void write(const KernelOperand& op, const KernelShape& shape, const int64_t* idx, double v) {
    char* p = address(op, shape, idx);
    dispatch_all(op.dtype, [&]<typename T>() {
      T x = convert<T>(v);
      std::memcpy(p, &x, sizeof(T));
    });
  }
};

// A test on the simulated device running `kernels` (nullptr: a device
// without kernels). Checks at the end that the device saw no violation.
class DeviceFixture : public ::testing::Test {
 protected:
  explicit DeviceFixture(DeviceKernels* kernels) : kernels_(kernels) {}
  void SetUp() override {
    sim().set_kernels(kernels_);
    register_pinned();
  }
  void TearDown() override {
    sim().synchronize_device(0);
    sim().set_kernels(nullptr);
    EXPECT_TRUE(sim().violations().empty());
  }
  DeviceKernels* kernels_;
};

}  // namespace tsr::devtest
