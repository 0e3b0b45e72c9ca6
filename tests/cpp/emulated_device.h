// The CUDA kernels' functors (gpu/emulator's EmulatedKernels, run by the
// CPU grid emulator) queued on the simulated device's streams, with a check
// the emulator cannot make itself: whether a launch's threads would write
// one element twice (a race on a GPU).
#pragma once

#include <atomic>
#include <functional>

#include "device_test_util.h"
#include "emulator/emulated_kernels.h"
#include "kernel_writes.h"

namespace tsr::devtest {

// EmulatedKernels queued on the simulated device: each call runs on stream
// s's worker with the device's pages open, as a CUDA launch runs on its
// stream. Arguments are plain data, copied into the work item.
class EmulatedOnSimulatedDevice final : public DeviceKernels {
 public:
  void copy(const KernelShape& sh, const KernelOperand& d, const KernelOperand& src, Stream s) override {
    check_writes(sh, d);
    run(s, [=, this] { emu_.copy(sh, d, src, s); });
  }
  void fill(const KernelShape& sh, const KernelOperand& d, double v, Stream s) override {
    check_writes(sh, d);
    run(s, [=, this] { emu_.fill(sh, d, v, s); });
  }
  void unary(UnaryKernel op, const KernelShape& sh, const KernelOperand& o, const KernelOperand& i,
             double alpha, tsr_dtype compute, Stream s) override {
    check_writes(sh, o);
    run(s, [=, this] { emu_.unary(op, sh, o, i, alpha, compute, s); });
  }
  void binary(BinaryKernel op, const KernelShape& sh, const KernelOperand& o, const KernelOperand& a,
              const KernelOperand& b, double alpha, tsr_dtype compute, Stream s) override {
    check_writes(sh, o);
    run(s, [=, this] { emu_.binary(op, sh, o, a, b, alpha, compute, s); });
  }
  void reduce(ReduceKernel op, const ReduceArgs& args, Stream s) override {
    run(s, [=, this] { emu_.reduce(op, args, s); });
  }
  void softmax(bool log, void* out, const void* in, tsr_dtype dt, int64_t outer, int64_t dim,
               int64_t inner, Stream s) override {
    run(s, [=, this] { emu_.softmax(log, out, in, dt, outer, dim, inner, s); });
  }
  void log_softmax_backward(void* gi, const void* g, const void* out, tsr_dtype dt, int64_t outer,
                            int64_t dim, int64_t inner, Stream s) override {
    run(s, [=, this] { emu_.log_softmax_backward(gi, g, out, dt, outer, dim, inner, s); });
  }
  void nll_loss(void* out, const void* logp, const int64_t* target, tsr_dtype dt, int64_t n,
                int64_t c, Stream s) override {
    run(s, [=, this] { emu_.nll_loss(out, logp, target, dt, n, c, s); });
  }
  void nll_loss_backward(void* gl, const void* g, const int64_t* target, tsr_dtype dt, int64_t n,
                         int64_t c, Stream s) override {
    run(s, [=, this] { emu_.nll_loss_backward(gl, g, target, dt, n, c, s); });
  }
  void bernoulli_noise(void* out, tsr_dtype dt, int64_t numel, uint64_t seed, uint64_t start,
                       uint32_t threshold, double scale, Stream s) override {
    run(s, [=, this] { emu_.bernoulli_noise(out, dt, numel, seed, start, threshold, scale, s); });
  }
  void gemm(const GemmArgs& g, Stream s) override {
    run(s, [=, this] { emu_.gemm(g, s); });
  }
  size_t launches() {
    sim().synchronize_device(0);
    return emu_.launches().size();
  }
  // Elementwise launches so far whose output reached one element from two
  // threads: a race on a GPU, which the emulator (one thread after
  // another) would not show by itself.
  size_t racy_launches() const { return racy_; }

 private:
  template <typename Fn>
  void run(Stream s, Fn fn) {
    sim().launch_with_device_access(s, std::function<void()>(fn));
  }
  static void check_writes(const KernelShape& sh, const KernelOperand& out) {
    if (writes_an_element_twice(sh, out)) ++racy_;
  }
  gpu::EmulatedKernels emu_;
  static inline std::atomic<size_t> racy_{0};
};

inline EmulatedOnSimulatedDevice& emulated() {
  static EmulatedOnSimulatedDevice k;
  return k;
}

}  // namespace tsr::devtest
