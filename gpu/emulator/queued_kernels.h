// EmulatedKernels run as work queued on a stream, the way a CUDA launch
// runs: each DeviceKernels call copies its arguments (plain data: pointers,
// sizes, strides) into a work item and hands it to `queue(stream, item)`,
// which runs it after the work queued on that stream before it, with the
// device's memory readable. Two users: the simulated device of the
// device-layer tests (tests/cpp/test_device_training.cpp) and the emulated
// CUDA plugin built on the CUDA runtime's test double (tests/cuda_double).
#pragma once

#include <functional>
#include <mutex>
#include <string_view>
#include <utility>

#include "emulator/emulated_kernels.h"

namespace tsr::gpu {

class QueuedEmulatedKernels : public DeviceKernels {
 public:
  using Queue = std::function<void(Stream, std::function<void()>)>;
  // Called on the host with every elementwise launch's output before it is
  // queued (launch_writes.h checks, which the emulator cannot show itself).
  using OutputCheck = std::function<void(const KernelShape&, const KernelOperand&)>;
  explicit QueuedEmulatedKernels(Queue queue, OutputCheck check = {})
      : queue_(std::move(queue)), check_(std::move(check)) {}

  void copy(const KernelShape& sh, const KernelOperand& d, const KernelOperand& src, Stream s) override {
    check(sh, d);
    run(s, [=, this] { emu_.copy(sh, d, src, s); });
  }
  void fill(const KernelShape& sh, const KernelOperand& d, double v, Stream s) override {
    check(sh, d);
    run(s, [=, this] { emu_.fill(sh, d, v, s); });
  }
  void unary(UnaryKernel op, const KernelShape& sh, const KernelOperand& o, const KernelOperand& i,
             double alpha, tsr_dtype compute, Stream s) override {
    check(sh, o);
    run(s, [=, this] { emu_.unary(op, sh, o, i, alpha, compute, s); });
  }
  void binary(BinaryKernel op, const KernelShape& sh, const KernelOperand& o, const KernelOperand& a,
              const KernelOperand& b, double alpha, tsr_dtype compute, Stream s) override {
    check(sh, o);
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
  void non_finite_check_and_unscale(const UnscaleArgs& args, Stream s) override {
    run(s, [=, this] { emu_.non_finite_check_and_unscale(args, s); });
  }
  void sdpa_forward(const SdpaDeviceArgs& args, Stream s) override {
    run(s, [=, this] { emu_.sdpa_forward(args, s); });
  }
  void sdpa_backward(const SdpaDeviceArgs& args, Stream s) override {
    run(s, [=, this] { emu_.sdpa_backward(args, s); });
  }
  void where(const KernelShape& sh, const KernelOperand& o, const KernelOperand& c, const KernelOperand& a,
             const KernelOperand& b, Stream s) override {
    check(sh, o);
    run(s, [=, this] { emu_.where(sh, o, c, a, b, s); });
  }
  void gather(const KernelShape& sh, const KernelOperand& o, const KernelOperand& in, const KernelOperand& index,
              int64_t in_dim_stride, Stream s) override {
    check(sh, o);
    run(s, [=, this] { emu_.gather(sh, o, in, index, in_dim_stride, s); });
  }
  // Each column is one thread's: columns must not share an output element
  // (the indexed dim's offsets come from the index, in order, on that thread).
  void scatter_add(const ScatterAddArgs& args, Stream s) override {
    check(args.columns, args.out);
    run(s, [=, this] { emu_.scatter_add(args, s); });
  }
  void index_bounds(const KernelShape& sh, const KernelOperand& index, int64_t limit, int64_t* first_bad,
                    Stream s) override {
    run(s, [=, this] { emu_.index_bounds(sh, index, limit, first_bad, s); });
  }
  void layer_norm(void* out, const void* x, const void* w, const void* b, tsr_dtype dt, int64_t rows,
                  int64_t cols, double eps, Stream s) override {
    run(s, [=, this] { emu_.layer_norm(out, x, w, b, dt, rows, cols, eps, s); });
  }
  void max_pool2d(const MaxPool2dArgs& args, Stream s) override {
    run(s, [=, this] { emu_.max_pool2d(args, s); });
  }
  void max_pool2d_backward(const MaxPool2dArgs& args, Stream s) override {
    run(s, [=, this] { emu_.max_pool2d_backward(args, s); });
  }
  // ---- scans and products (issue 32, cuda-reduce) ----
  void scan(const ScanArgs& args, Stream s) override {
    run(s, [=, this] { emu_.scan(args, s); });
  }
  // Softplus and the elementwise losses (cuda-sort-loss).
  void loss_map(LossKernel op, const LossMapArgs& args, Stream s) override {
    check(args.shape, args.out);
    run(s, [=, this] { emu_.loss_map(op, args, s); });
  }
  // sort, topk, kthvalue (cuda-sort-loss): each slice is one thread's.
  void sort_slices(const SortSlicesArgs& args, Stream s) override {
    run(s, [=, this] { emu_.sort_slices(args, s); });
  }
  // The scatter / index family. scatter_reduce's columns, like
  // scatter_add's, never share an output element.
  void scatter_reduce(const ScatterReduceArgs& args, Stream s) override {
    check(args.base.columns, args.base.out);
    run(s, [=, this] { emu_.scatter_reduce(args, s); });
  }
  void nonzero_blocks(const NonzeroArgs& args, Stream s) override {
    run(s, [=, this] { emu_.nonzero_blocks(args, s); });
  }

  // Launches run so far (the caller waits for its streams first).
  size_t launches() {
    std::lock_guard<std::mutex> g(mu_);
    return emu_.launches().size();
  }
  // Launches of kernel `name` run so far.
  size_t launches_of(std::string_view name) {
    std::lock_guard<std::mutex> g(mu_);
    size_t n = 0;
    for (const char* l : emu_.launches()) n += name == l;
    return n;
  }

 private:
  template <typename Fn>
  void run(Stream s, Fn fn) {
    // Streams' workers run items at once; the emulator keeps a launch list,
    // so one item at a time (a CPU emulation has nothing to gain from more).
    queue_(s, [this, fn = std::move(fn)] {
      std::lock_guard<std::mutex> g(mu_);
      fn();
    });
  }

  void check(const KernelShape& sh, const KernelOperand& out) {
    if (check_) check_(sh, out);
  }

  Queue queue_;
  OutputCheck check_;
  std::mutex mu_;  // guards emu_
  EmulatedKernels emu_;
};

}  // namespace tsr::gpu
