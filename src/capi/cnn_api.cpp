// C API: convolution, pooling and batch norm (cnn.h). Argument checks, then
// the differentiable op; out values are written last, so a failing call
// leaves them untouched.
#include <tessera/cnn.h>

#include <memory>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/cnn.h"

using namespace tsr;
using namespace tsr::capi;
using kernels::Pair;

namespace {
Tensor optional_tensor(const tsr_tensor* h) { return h ? h->tensor : Tensor(); }
Pair pair_arg(const int64_t* p, const char* what) {
  require(p, what);
  return {p[0], p[1]};
}
}  // namespace

TSR_EXTERN tsr_status tsr_conv2d(const tsr_tensor* input, const tsr_tensor* weight, const tsr_tensor* bias,
                                 const int64_t stride[2], const int64_t padding[2], const int64_t dilation[2],
                                 int64_t groups, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(input, "input");
    const Tensor& w = tensor_of(weight, "weight");
    kernels::Conv2dArgs a{pair_arg(stride, "stride"), pair_arg(padding, "padding"),
                          pair_arg(dilation, "dilation"), groups};
    require(out, "out");
    emit(out, ops::conv2d(x, w, optional_tensor(bias), a));
  });
}

TSR_EXTERN tsr_status tsr_max_pool2d(const tsr_tensor* input, const int64_t kernel_size[2],
                                     const int64_t stride[2], const int64_t padding[2], const int64_t dilation[2],
                                     bool ceil_mode, tsr_tensor** out, tsr_tensor** indices) {
  return guarded([&] {
    const Tensor& x = tensor_of(input, "input");
    const Pair k = pair_arg(kernel_size, "kernel_size");
    kernels::Pool2dArgs a{k, stride ? pair_arg(stride, "stride") : k, pair_arg(padding, "padding"),
                          pair_arg(dilation, "dilation"), ceil_mode, false};
    require(out, "out");
    auto [y, i] = ops::max_pool2d(x, a);
    // Both handles made before either is written.
    auto yh = std::make_unique<tsr_tensor>(std::move(y));
    std::unique_ptr<tsr_tensor> ih = indices ? std::make_unique<tsr_tensor>(std::move(i)) : nullptr;
    *out = yh.release();
    if (indices) *indices = ih.release();
  });
}

TSR_EXTERN tsr_status tsr_avg_pool2d(const tsr_tensor* input, const int64_t kernel_size[2],
                                     const int64_t stride[2], const int64_t padding[2], bool ceil_mode,
                                     bool count_include_pad, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(input, "input");
    const Pair k = pair_arg(kernel_size, "kernel_size");
    kernels::Pool2dArgs a{k, stride ? pair_arg(stride, "stride") : k, pair_arg(padding, "padding"), Pair{1, 1},
                          ceil_mode, count_include_pad};
    require(out, "out");
    emit(out, ops::avg_pool2d(x, a));
  });
}

TSR_EXTERN tsr_status tsr_adaptive_avg_pool2d(const tsr_tensor* input, const int64_t output_size[2],
                                              tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(input, "input");
    const Pair o = pair_arg(output_size, "output_size");
    require(out, "out");
    emit(out, ops::adaptive_avg_pool2d(x, o));
  });
}

TSR_EXTERN tsr_status tsr_batch_norm(const tsr_tensor* input, tsr_tensor* running_mean, tsr_tensor* running_var,
                                     const tsr_tensor* weight, const tsr_tensor* bias, bool training,
                                     double momentum, double eps, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(input, "input");
    require(out, "out");
    emit(out, ops::batch_norm(x, optional_tensor(running_mean), optional_tensor(running_var),
                              optional_tensor(weight), optional_tensor(bias), training, momentum, eps));
  });
}
