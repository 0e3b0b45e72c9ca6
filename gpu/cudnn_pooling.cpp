// Average pooling through cuDNN's legacy pooling API
// (cudnnPoolingForward / cudnnPoolingBackward with
// CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING or _EXCLUDE_PADDING).
#include "cudnn_pooling.h"

#include "cudnn_support.h"

namespace tsr::cuda {
namespace {

class PoolDesc {
 public:
  explicit PoolDesc(const DnnPoolParams& p) {
    check_cudnn(cudnnCreatePoolingDescriptor(&d_), "cudnnCreatePoolingDescriptor");
    const cudnnPoolingMode_t mode =
        p.count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    const cudnnStatus_t st =
        cudnnSetPooling2dDescriptor(d_, mode, CUDNN_PROPAGATE_NAN, int(p.kernel[0]), int(p.kernel[1]),
                                    int(p.padding[0]), int(p.padding[1]), int(p.stride[0]), int(p.stride[1]));
    if (st != CUDNN_STATUS_SUCCESS) cudnnDestroyPoolingDescriptor(d_);
    check_cudnn(st, "cudnnSetPooling2dDescriptor");
  }
  ~PoolDesc() { cudnnDestroyPoolingDescriptor(d_); }
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  cudnnPoolingDescriptor_t get() const { return d_; }

 private:
  cudnnPoolingDescriptor_t d_ = nullptr;
};

}  // namespace

void cudnn_avg_pool2d_forward(const DnnTensor& y, const DnnTensor& x, const DnnPoolParams& p, Stream s) {
  CudnnSession session(s);
  const PoolDesc pd(p);
  const TensorDesc xd(x), yd(y);
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool dbl = x.dtype == TSR_FLOAT64;
  check_cudnn(cudnnPoolingForward(session.handle(), pd.get(), dbl ? static_cast<const void*>(&one_d) : &one_f,
                                  xd.get(), x.data, dbl ? static_cast<const void*>(&zero_d) : &zero_f, yd.get(),
                                  y.data),
              "cudnnPoolingForward");
}

void cudnn_avg_pool2d_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnPoolParams& p, Stream s) {
  CudnnSession session(s);
  const PoolDesc pd(p);
  const TensorDesc dxd(dx), dyd(dy);
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const bool dbl = dx.dtype == TSR_FLOAT64;
  // Average pooling's gradient reads neither y nor x: the same descriptors
  // stand in for them (dy for y, dx for x), as the op keeps neither.
  check_cudnn(cudnnPoolingBackward(session.handle(), pd.get(), dbl ? static_cast<const void*>(&one_d) : &one_f,
                                   dyd.get(), dy.data, dyd.get(), dy.data, dxd.get(), dx.data,
                                   dbl ? static_cast<const void*>(&zero_d) : &zero_f, dxd.get(), dx.data),
              "cudnnPoolingBackward");
}

}  // namespace tsr::cuda
