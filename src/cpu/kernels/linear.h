// torch.nn.functional.linear on CPU (no autograd): y = x @ weight^T + bias
// through OpenBLAS (kernels::matmul on a transposed view of weight, so
// weight is never copied); bfloat16 through oneDNN (dnnl_matmul.h).
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// Checks linear's arguments and gives the output sizes: x [*, K] (at least
// 1-D), weight [N, K], bias undefined or expanding to [*, N]; one dtype,
// bfloat16 or float16 (float32 sums of the products and the bias,
// rounded once), float32 or float64. Throws torch's
// messages.
Shape linear_sizes(const Tensor& x, const Tensor& weight, const Tensor& bias);
// The result, contiguous. bias may be undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
// x [*, K] seen as the matrix [prod(*), K] without a copy: a view when the
// strides allow (torch's reshape(-1, K) as a view), else undefined. Any device.
Tensor rows_view(const Tensor& x);
// x [*, K] seen as the matrix [prod(*), K]: a view when the strides allow,
// else a contiguous copy (torch's reshape(-1, K)).
Tensor as_rows(const Tensor& x);

}  // namespace tsr::kernels
