// The plugin's cuDNN average pooling (cudnn_pooling.cpp): DnnKernels'
// avg_pool2d_* (src/core/dnn_kernels.h) for CudnnKernels.
#pragma once

#include "core/dnn_kernels.h"

namespace tsr::cuda {

void cudnn_avg_pool2d_forward(const DnnTensor& y, const DnnTensor& x, const DnnPoolParams& p, Stream s);
void cudnn_avg_pool2d_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnPoolParams& p, Stream s);

}  // namespace tsr::cuda
