// Convolutional-network layers as differentiable ops, each one primitive
// through autograd::run (src/ops/conv.cpp, pooling.cpp, batch_norm.cpp);
// the C API's cnn.h entry points call these. The forward runs in the memory
// format PyTorch gives the output (decided once here, kept by the primitive
// for its backward); backward runs a second primitive (torch's
// *BackwardBackward0 names), itself differentiable for conv2d and pooling
// (torch's double-backward formulas, in these same ops); batch norm's
// backward under create_graph is written in differentiable ops instead.
#pragma once

#include "cpu/kernels/cnn.h"

namespace tsr::ops {

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, const kernels::Conv2dArgs& a);
// Values and indices (indices are not differentiable).
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const kernels::Pool2dArgs& a);
Tensor avg_pool2d(const Tensor& x, const kernels::Pool2dArgs& a);
Tensor adaptive_avg_pool2d(const Tensor& x, const kernels::Pair& output_size);
// Updates running_mean / running_var in place when training and given.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps);

}  // namespace tsr::ops
