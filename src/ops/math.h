// Differentiable math: each function runs one primitive (or a few) through
// autograd::run. The C API's ops.h entry points call these. Backward
// formulas are PyTorch's (tools/autograd/derivatives.yaml) and nodes carry
// PyTorch's names.
#pragma once

#include <utility>

#include "core/tensor.h"

namespace tsr::ops {

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor mul_scalar(const Tensor& a, double s);
Tensor add_scalar(const Tensor& a, double s);
Tensor neg(const Tensor& a);
Tensor relu(const Tensor& a);
// grad where result > 0, else 0 (relu's backward; differentiable in grad).
Tensor threshold_backward(const Tensor& grad, const Tensor& result);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);

Tensor matmul(const Tensor& a, const Tensor& b);

Tensor sum(const Tensor& a, const Shape& dims, bool keepdim);
// Sums a broadcast tensor down to sizes (the adjoint of expanding to g's
// sizes); g itself when the sizes already agree.
Tensor sum_to_size(const Tensor& g, const Shape& sizes);
Tensor mean(const Tensor& a, const Shape& dims, bool keepdim);
std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim);
Tensor max(const Tensor& a);
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim);
// The backwards of max/min(dim) and max/min(), shared by both: grad
// [reduced sizes] put at each selected index of a zero [input_sizes] tensor
// (dim already wrapped; ValueSelectingReductionBackward0), and grad split
// evenly among the input's elements equal to result
// (EvenlyDistributeBackward0). Neither is differentiable again, as in torch.
Tensor value_selecting_reduction_backward(const Tensor& grad, const Tensor& indices, const Shape& input_sizes,
                                          int64_t dim, bool keepdim);
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& result);

Tensor log_softmax(const Tensor& a, int64_t dim);
Tensor nll_loss(const Tensor& logp, const Tensor& target);
Tensor cross_entropy(const Tensor& logits, const Tensor& target);

}  // namespace tsr::ops
