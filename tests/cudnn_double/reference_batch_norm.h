// The cuDNN double's batch norm: cuDNN's spatial batch norm on host memory
// (the simulated device's), through tessera's CPU reference loops
// (kernels::ref::batch_norm, batch_norm_backward) in float32 (float64 for
// float64 data), the 16-bit data widened first and rounded once.
#pragma once

#include "reference_conv.h"

namespace tsr::cudnn_double {

// A [C] parameter vector of dtype (float32 or float64) at data.
struct Params {
  void* data;
  tsr_dtype dtype;
  int64_t channels;
};

// Training: y = the batch-normalised x; running_* = (1 - factor) * running_*
// + factor * (batch mean, unbiased batch variance); save_mean and
// save_invstd (either may be null) the batch mean and 1 / sqrt(var + eps).
void batch_norm_training(const Operand& x, const Operand& y, const Params& scale, const Params& bias,
                         double factor, const Params& running_mean, const Params& running_var, double eps,
                         const Params& save_mean, const Params& save_invstd);
void batch_norm_inference(const Operand& x, const Operand& y, const Params& scale, const Params& bias,
                          const Params& mean, const Params& var, double eps);
// The training gradients (statistics recomputed from x).
void batch_norm_backward(const Operand& x, const Operand& dy, const Operand& dx, const Params& scale,
                         const Params& dscale, const Params& dbias, double eps);

}  // namespace tsr::cudnn_double
