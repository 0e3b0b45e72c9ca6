#include "cudnn_support.h"

#include <memory>
#include <vector>

#include "core/dtype_info.h"
#include "cuda_check.h"
#include "cuda_streams.h"

namespace tsr::cuda {

cudnnDataType_t cudnn_data_type(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT32: return CUDNN_DATA_FLOAT;
    case TSR_FLOAT64: return CUDNN_DATA_DOUBLE;
    case TSR_FLOAT16: return CUDNN_DATA_HALF;
    case TSR_BFLOAT16: return CUDNN_DATA_BFLOAT16;
    default: break;
  }
  throw Error(TSR_ERR_UNSUPPORTED, str("cuDNN has no kernel for dtype ", dtype_name(d)));
}

namespace {

struct DeviceHandle {
  std::mutex mu;
  cudnnHandle_t handle = nullptr;  // made on first use, kept for the process (as torch's pool)
};

DeviceHandle& device_handle(int index) {
  static std::mutex mu;
  static auto* handles = new std::vector<std::unique_ptr<DeviceHandle>>();
  std::lock_guard<std::mutex> g(mu);
  if (size_t(index) >= handles->size()) handles->resize(size_t(index) + 1);
  auto& h = (*handles)[size_t(index)];
  if (!h) h = std::make_unique<DeviceHandle>();
  return *h;
}

std::mutex& handle_mutex(int index) { return device_handle(index).mu; }

}  // namespace

CudnnSession::CudnnSession(Stream s) : lock_(handle_mutex(s.device.index)), guard_(s.device.index) {
  DeviceHandle& dh = device_handle(s.device.index);
  if (!dh.handle) check_cudnn(cudnnCreate(&dh.handle), "cudnnCreate");
  handle_ = dh.handle;
  check_cudnn(cudnnSetStream(handle_, native_stream(s)), "cudnnSetStream");
}

TensorDesc::TensorDesc(const DnnTensor& t) {
  check_cudnn(cudnnCreateTensorDescriptor(&d_), "cudnnCreateTensorDescriptor");
  const int dims[4] = {int(t.sizes[0]), int(t.sizes[1]), int(t.sizes[2]), int(t.sizes[3])};
  const int strides[4] = {int(t.strides[0]), int(t.strides[1]), int(t.strides[2]), int(t.strides[3])};
  const cudnnStatus_t st = cudnnSetTensorNdDescriptor(d_, cudnn_data_type(t.dtype), 4, dims, strides);
  if (st != CUDNN_STATUS_SUCCESS) cudnnDestroyTensorDescriptor(d_);
  check_cudnn(st, "cudnnSetTensorNdDescriptor");
}

FilterDesc::FilterDesc(const DnnTensor& w) {
  check_cudnn(cudnnCreateFilterDescriptor(&d_), "cudnnCreateFilterDescriptor");
  const cudnnStatus_t st =
      cudnnSetFilter4dDescriptor(d_, cudnn_data_type(w.dtype), w.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                 int(w.sizes[0]), int(w.sizes[1]), int(w.sizes[2]), int(w.sizes[3]));
  if (st != CUDNN_STATUS_SUCCESS) cudnnDestroyFilterDescriptor(d_);
  check_cudnn(st, "cudnnSetFilter4dDescriptor");
}

ConvDesc::ConvDesc(const DnnConvParams& p, tsr_dtype dtype) {
  check_cudnn(cudnnCreateConvolutionDescriptor(&d_), "cudnnCreateConvolutionDescriptor");
  const cudnnDataType_t compute = dtype == TSR_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  if (dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16) math = CUDNN_TENSOR_OP_MATH;
  if (dtype == TSR_FLOAT32 && !p.policy.allow_tf32) math = CUDNN_FMA_MATH;
  cudnnStatus_t st = cudnnSetConvolution2dDescriptor(d_, int(p.padding[0]), int(p.padding[1]), int(p.stride[0]),
                                                     int(p.stride[1]), int(p.dilation[0]), int(p.dilation[1]),
                                                     CUDNN_CROSS_CORRELATION, compute);
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnSetConvolutionGroupCount(d_, int(p.groups));
  if (st == CUDNN_STATUS_SUCCESS) st = cudnnSetConvolutionMathType(d_, math);
  if (st != CUDNN_STATUS_SUCCESS) cudnnDestroyConvolutionDescriptor(d_);
  check_cudnn(st, "cudnnSetConvolution2dDescriptor");
}

}  // namespace tsr::cuda
