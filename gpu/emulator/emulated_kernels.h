// DeviceKernels run by the CPU grid emulator: the functors of gpu/kernels/
// on host memory, launched as the CUDA plugin launches them, synchronously
// (the Stream argument is ignored). The emulation of the GPU code path, for
// tests here and for the simulated device; it never calls libtessera's CPU
// kernels, which are what it is checked against.
#pragma once

#include <algorithm>
#include <vector>

#include "core/device_kernels.h"
#include "emulator/grid_emulator.h"
#include "kernels/row_path.h"

namespace tsr::gpu {

class EmulatedKernels final : public DeviceKernels {
 public:
  explicit EmulatedKernels(LaunchShape shape = {}) : shape_(shape) {}

  // Every launch made so far, by kernel name (tests check which ran).
  const std::vector<const char*>& launches() const { return launches_; }

  void copy(const KernelShape& shape, const KernelOperand& dst, const KernelOperand& src,
            Stream s) override;
  void fill(const KernelShape& shape, const KernelOperand& dst, double value, Stream s) override;
  void unary(UnaryKernel op, const KernelShape& shape, const KernelOperand& out, const KernelOperand& in,
             double alpha, tsr_dtype compute, Stream s) override;
  void binary(BinaryKernel op, const KernelShape& shape, const KernelOperand& out, const KernelOperand& a,
              const KernelOperand& b, double alpha, tsr_dtype compute, Stream s) override;
  void reduce(ReduceKernel op, const ReduceArgs& args, Stream s) override;
  void softmax(bool log, void* out, const void* in, tsr_dtype dtype, int64_t outer, int64_t dim,
               int64_t inner, Stream s) override;
  void log_softmax_backward(void* grad_in, const void* grad, const void* output, tsr_dtype dtype,
                            int64_t outer, int64_t dim, int64_t inner, Stream s) override;
  void nll_loss(void* out, const void* logp, const int64_t* target, tsr_dtype dtype, int64_t n, int64_t c,
                Stream s) override;
  void nll_loss_backward(void* grad_logp, const void* grad, const int64_t* target, tsr_dtype dtype,
                         int64_t n, int64_t c, Stream s) override;
  void bernoulli_noise(void* out, tsr_dtype dtype, int64_t numel, uint64_t seed, uint64_t start,
                       uint32_t threshold, double scale, Stream s) override;
  void non_finite_check_and_unscale(const UnscaleArgs& args, Stream s) override;
  void sdpa_forward(const SdpaDeviceArgs& args, Stream s) override;
  void sdpa_backward(const SdpaDeviceArgs& args, Stream s) override;
  // Row-major gemm through the same column-major mapping the CUDA plugin
  // gives cuBLAS (gemm_mapping.h), computed by a plain loop.
  void gemm(const GemmArgs& args, Stream s) override;
  void where(const KernelShape& shape, const KernelOperand& out, const KernelOperand& cond, const KernelOperand& a,
             const KernelOperand& b, Stream s) override;
  void gather(const KernelShape& shape, const KernelOperand& out, const KernelOperand& in, const KernelOperand& index,
              int64_t in_dim_stride, Stream s) override;
  void scatter_add(const ScatterAddArgs& args, Stream s) override;
  void index_bounds(const KernelShape& shape, const KernelOperand& index, int64_t limit, int64_t* first_bad,
                    Stream s) override;
  void layer_norm(void* out, const void* x, const void* weight, const void* bias, tsr_dtype dtype, int64_t rows,
                  int64_t cols, double eps, Stream s) override;
  void max_pool2d(const MaxPool2dArgs& args, Stream s) override;
  void max_pool2d_backward(const MaxPool2dArgs& args, Stream s) override;
  // ---- scans and products (issue 32, cuda-reduce) ----
  void scan(const ScanArgs& args, Stream s) override;
  // Softplus and the elementwise losses (cuda-sort-loss).
  void loss_map(LossKernel op, const LossMapArgs& args, Stream s) override;
  // sort, topk, kthvalue (cuda-sort-loss).
  void sort_slices(const SortSlicesArgs& args, Stream s) override;
  // The scatter / index family.
  void scatter_reduce(const ScatterReduceArgs& args, Stream s) override;
  void nonzero_blocks(const NonzeroArgs& args, Stream s) override;

  // The launcher kernel_dispatch.h drives.
  struct Launcher {
    EmulatedKernels* self;
    template <typename F>
    void launch(const char* name, int64_t n, const F& f) {
      self->launches_.push_back(name);
      emulate_grid_stride(n, self->shape_, f);
    }
    // Blocks of width rows x depth threads (row_path.h's launch_rows), with
    // shape_'s block_dim and column_block_dim as the limits on the two
    // kinds of block and its max_grid on the grid.
    uint32_t max_block() const { return self->shape_.block_dim; }
    uint32_t max_column_block() const { return self->shape_.column_block_dim; }
    template <typename F>
    void launch_rows(const char* name, int64_t rows, uint32_t width, uint32_t depth, const F& f) {
      self->launches_.push_back(name);
      emulate_block_rows(rows, block_row_grid(rows, width, self->shape_.max_grid), width * depth, width, f);
    }
    // A block-tiled kernel: F::kRows threads per block, at most shape_'s
    // max_grid blocks, `shared` bytes of poisoned shared memory each.
    template <typename F>
    void launch_block_tiles(const char* name, const F& f, size_t shared) {
      self->launches_.push_back(name);
      emulate_block_tiles(uint32_t(std::min<int64_t>(std::max<int64_t>(f.blocks(), 1), self->shape_.max_grid)), f,
                          shared);
    }
    // A tiled copy's tiles: kTileThreads threads per block (fixed, as the
    // CUDA launcher's), at most shape_'s max_grid blocks.
    template <typename F>
    void launch_tiles(const char* name, int64_t tiles, const F& f) {
      self->launches_.push_back(name);
      emulate_tiles(tiles, uint32_t(std::min<int64_t>(tiles, self->shape_.max_grid)), f);
    }
  };

 private:
  LaunchShape shape_;
  std::vector<const char*> launches_;
};

}  // namespace tsr::gpu
