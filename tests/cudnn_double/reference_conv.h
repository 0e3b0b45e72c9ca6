// The cuDNN double's arithmetic: one convolution pass on host memory (the
// simulated device's), through tessera's CPU convolution (oneDNN where it
// applies, as the CPU path: fast enough to train the Fashion CNN on the
// emulated device; else the reference loops).
#pragma once

#include <cstdint>

#include <tessera/types.h>

namespace tsr::cudnn_double {

// A 4-D operand in the forward's terms (x: N C H W, w: K C/g kH kW, y: N K
// oH oW), element strides as the descriptor gives them.
struct Operand {
  void* data;
  tsr_dtype dtype;
  int64_t sizes[4];
  int64_t strides[4];
};

struct ConvSpec {
  int64_t padding[2], stride[2], dilation[2], groups;
};

enum class Pass { Forward = 0, BackwardData = 1, BackwardFilter = 2 };

// out = alpha * pass(...) + beta * out, where out is y (Forward: from x,
// w), x (BackwardData: from y = dy, w) or w (BackwardFilter: from x, y =
// dy). Throws tsr::Error on what the reference loops refuse.
void compute(Pass pass, const Operand& x, const Operand& w, const Operand& y, const ConvSpec& spec,
             double alpha, double beta);

// Average pooling (no dilation, floor windows): y = avg_pool2d(x) and its
// gradient dx from dy, through kernels::ref::avg_pool2d(_backward).
struct PoolSpec {
  int64_t kernel[2], stride[2], padding[2];
  bool count_include_pad;
};
void avg_pool_forward(const Operand& x, const Operand& y, const PoolSpec& spec);
void avg_pool_backward(const Operand& dy, const Operand& dx, const PoolSpec& spec);

}  // namespace tsr::cudnn_double
