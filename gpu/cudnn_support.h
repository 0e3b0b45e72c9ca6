// cuDNN for the plugin's host code: status checks as tsr::Error, one handle
// per device, and RAII descriptors of the legacy API (tensor, filter,
// convolution) built from src/core/dnn_kernels.h's plain operands. Linked
// against libcudnn.so.9, or its test double (tests/cudnn_double) in the
// emulated plugin.
#pragma once

#include <cudnn.h>

#include <mutex>

#include "core/dnn_kernels.h"
#include "core/error.h"
#include "cuda_check.h"

namespace tsr::cuda {

// Throws unless st is CUDNN_STATUS_SUCCESS: TSR_ERR_UNSUPPORTED for
// CUDNN_STATUS_NOT_SUPPORTED (a configuration cuDNN has no kernel for),
// TSR_ERR_INTERNAL otherwise, naming the call and cuDNN's error string.
inline void check_cudnn(cudnnStatus_t st, const char* call) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  const tsr_status status = st == CUDNN_STATUS_NOT_SUPPORTED ? TSR_ERR_UNSUPPORTED : TSR_ERR_INTERNAL;
  throw Error(status, str(call, ": ", cudnnGetErrorString(st)));
}

// The cuDNN data type of a tessera dtype (float32, float64, float16,
// bfloat16: the dtypes conv2d's checks let through).
cudnnDataType_t cudnn_data_type(tsr_dtype d);

// A device's handle, used under its lock (a handle is not to be shared by
// threads at once): the session makes the device current, sets the
// handle's stream and holds the lock until it ends.
class CudnnSession {
 public:
  explicit CudnnSession(Stream s);
  CudnnSession(const CudnnSession&) = delete;
  CudnnSession& operator=(const CudnnSession&) = delete;
  cudnnHandle_t handle() const { return handle_; }

 private:
  std::unique_lock<std::mutex> lock_;
  DeviceGuard guard_;  // restores the previous device, also when the constructor throws
  cudnnHandle_t handle_ = nullptr;
};

class TensorDesc {
 public:
  explicit TensorDesc(const DnnTensor& t);
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d_); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class FilterDesc {
 public:
  explicit FilterDesc(const DnnTensor& w);
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d_); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

// Cross-correlation with p's padding, stride, dilation and groups, computed
// in float for float32/float16/bfloat16 and double for float64; math type
// as torch's: tensor cores for the 16-bit types, CUDNN_FMA_MATH for float32
// unless TF32 is allowed.
class ConvDesc {
 public:
  ConvDesc(const DnnConvParams& p, tsr_dtype dtype);
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d_); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

}  // namespace tsr::cuda
