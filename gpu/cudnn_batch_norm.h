// The plugin's cuDNN batch norm (cudnn_batch_norm.cpp): DnnKernels'
// batch_norm_* (src/core/dnn_kernels.h) for CudnnKernels.
#pragma once

#include "core/dnn_kernels.h"

namespace tsr::cuda {

void cudnn_batch_norm_training(const DnnTensor& y, const DnnTensor& x, const void* weight, const void* bias,
                               tsr_dtype param_dtype, double eps, void* mean, void* unbiased_var, Stream s);
void cudnn_batch_norm_inference(const DnnTensor& y, const DnnTensor& x, const void* weight, const void* bias,
                                tsr_dtype param_dtype, const void* mean, const void* var, double eps, Stream s);
void cudnn_batch_norm_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnTensor& x, const void* weight,
                               void* dweight, void* dbias, tsr_dtype param_dtype, double eps, Stream s);

}  // namespace tsr::cuda
