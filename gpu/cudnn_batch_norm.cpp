// Batch norm through cuDNN's legacy API (CUDNN_BATCHNORM_SPATIAL: one
// statistic per channel over N, H, W), as PyTorch's cudnn_batch_norm:
// training with cudnnBatchNormalizationForwardTraining, evaluation with
// ...ForwardInference, the training backward with ...Backward. The
// parameters' descriptor is cuDNN's derived one ([1, C, 1, 1], float, or
// double for double data).
#include "cudnn_batch_norm.h"

#include "core/dtype_info.h"
#include "cudnn_support.h"

namespace tsr::cuda {
namespace {

class BnDesc {
 public:
  BnDesc(const TensorDesc& x, tsr_dtype x_dtype, tsr_dtype param_dtype) {
    const tsr_dtype want = x_dtype == TSR_FLOAT64 ? TSR_FLOAT64 : TSR_FLOAT32;
    TSR_CHECK(param_dtype == want, TSR_ERR_UNSUPPORTED, "native_batch_norm: cuDNN takes ", dtype_name(want),
              " weight, bias and statistics for ", dtype_name(x_dtype), " input, got ", dtype_name(param_dtype));
    check_cudnn(cudnnCreateTensorDescriptor(&d_), "cudnnCreateTensorDescriptor");
    const cudnnStatus_t st = cudnnDeriveBNTensorDescriptor(d_, x.get(), CUDNN_BATCHNORM_SPATIAL);
    if (st != CUDNN_STATUS_SUCCESS) cudnnDestroyTensorDescriptor(d_);
    check_cudnn(st, "cudnnDeriveBNTensorDescriptor");
  }
  ~BnDesc() { cudnnDestroyTensorDescriptor(d_); }
  BnDesc(const BnDesc&) = delete;
  BnDesc& operator=(const BnDesc&) = delete;
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

// alpha 1, beta 0 in the type cuDNN reads them as (double for double data).
struct Blend {
  explicit Blend(tsr_dtype d) : dbl(d == TSR_FLOAT64) {}
  const void* one() const { return dbl ? static_cast<const void*>(&one_d) : &one_f; }
  const void* zero() const { return dbl ? static_cast<const void*>(&zero_d) : &zero_f; }
  bool dbl;
  double one_d = 1.0, zero_d = 0.0;
  float one_f = 1.0f, zero_f = 0.0f;
};

// cuDNN's smallest epsilon (CUDNN_BN_MIN_EPSILON); torch refuses less too.
void check_eps(double eps) {
  TSR_CHECK(eps >= CUDNN_BN_MIN_EPSILON, TSR_ERR_UNSUPPORTED, "native_batch_norm: cuDNN needs eps >= ",
            CUDNN_BN_MIN_EPSILON, ", got ", eps);
}

}  // namespace

void cudnn_batch_norm_training(const DnnTensor& y, const DnnTensor& x, const void* weight, const void* bias,
                               tsr_dtype param_dtype, double eps, void* mean, void* unbiased_var, Stream s) {
  check_eps(eps);
  CudnnSession session(s);
  const TensorDesc xd(x), yd(y);
  const BnDesc bd(xd, x.dtype, param_dtype);
  const Blend b(x.dtype);
  // Factor 1: the "running" statistics become the batch's (mean, unbiased
  // variance); the op layer blends them into the real running stats.
  check_cudnn(cudnnBatchNormalizationForwardTraining(session.handle(), CUDNN_BATCHNORM_SPATIAL, b.one(), b.zero(),
                                                     xd.get(), x.data, yd.get(), y.data, bd.get(), weight, bias, 1.0,
                                                     mean, unbiased_var, eps, nullptr, nullptr),
              "cudnnBatchNormalizationForwardTraining");
}

void cudnn_batch_norm_inference(const DnnTensor& y, const DnnTensor& x, const void* weight, const void* bias,
                                tsr_dtype param_dtype, const void* mean, const void* var, double eps, Stream s) {
  check_eps(eps);
  CudnnSession session(s);
  const TensorDesc xd(x), yd(y);
  const BnDesc bd(xd, x.dtype, param_dtype);
  const Blend b(x.dtype);
  check_cudnn(cudnnBatchNormalizationForwardInference(session.handle(), CUDNN_BATCHNORM_SPATIAL, b.one(), b.zero(),
                                                      xd.get(), x.data, yd.get(), y.data, bd.get(), weight, bias,
                                                      mean, var, eps),
              "cudnnBatchNormalizationForwardInference");
}

void cudnn_batch_norm_backward(const DnnTensor& dx, const DnnTensor& dy, const DnnTensor& x, const void* weight,
                               void* dweight, void* dbias, tsr_dtype param_dtype, double eps, Stream s) {
  check_eps(eps);
  CudnnSession session(s);
  const TensorDesc xd(x), dyd(dy), dxd(dx);
  const BnDesc bd(xd, x.dtype, param_dtype);
  const Blend b(x.dtype);
  // No saved statistics: cuDNN recomputes them from x.
  check_cudnn(cudnnBatchNormalizationBackward(session.handle(), CUDNN_BATCHNORM_SPATIAL, b.one(), b.zero(), b.one(),
                                              b.zero(), xd.get(), x.data, dyd.get(), dy.data, dxd.get(), dx.data,
                                              bd.get(), weight, dweight, dbias, eps, nullptr, nullptr),
              "cudnnBatchNormalizationBackward");
}

}  // namespace tsr::cuda
