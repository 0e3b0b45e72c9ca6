// Differentiable views: core/views.h geometry plus autograd history. The
// C API calls these, never core/views.h directly.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

Tensor view(const Tensor& t, const Shape& sizes);
Tensor reshape(const Tensor& t, const Shape& sizes);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& x);
Tensor permute(const Tensor& t, const Shape& dims);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor expand(const Tensor& t, const Shape& sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze_dim(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);
Tensor unflatten(const Tensor& t, int64_t dim, const Shape& sizes);
Tensor movedim(const Tensor& t, const Shape& source, const Shape& destination);
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset);
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
// torch.split with explicit piece sizes along dim (they must add up to
// its size; split_pieces/chunk_pieces in core/views.h compute them): views,
// all outputs of one SplitBackward0 node.
std::vector<Tensor> split(const Tensor& t, const Shape& pieces, int64_t dim);
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);

}  // namespace tsr::ops
