// Selection and indexing kernels on CPU tensors (no autograd): where,
// index_select / index_add, gather / scatter_add, embedding. Any strides;
// index tensors are int64 (int32 where torch accepts it); an index outside
// its dim is TSR_ERR_INDEX_OUT_OF_RANGE, raised before anything is written.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// torch.where(cond, a, b): broadcast over all three, dtype
// torch.result_type(a, b); cond bool (or uint8, which torch 1.13 still
// takes), else TSR_ERR_DTYPE_MISMATCH with torch's message.
tsr_dtype where_result_dtype(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// torch.index_select(x, dim, index): index 0-/1-D, int32 or int64; output
// x's sizes with dim's replaced by index's numel (a 0-dim x stays 0-dim),
// contiguous. index_select_sizes checks everything but the index values.
Shape index_select_sizes(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// index_select's checks of the index (dim wrapped), shared with the device
// path: a non-empty index into an empty dim, then every value against n
// (x's size along dim, 1 for a 0-dim x); TSR_ERR_INDEX_OUT_OF_RANGE.
void check_index_select_axis(const Tensor& x, int64_t dim, int64_t index_numel);
void check_index_select_values(const std::vector<int64_t>& idx, int64_t dim, int64_t n);
// zeros(sizes).index_add_(dim, index, src): index_select's adjoint.
// Repeated indices accumulate, in index order, in src's dtype.
Tensor index_add_zeros(const Shape& sizes, int64_t dim, const Tensor& index, const Tensor& src);

// torch.gather(x, dim, index): index int64 of x's ndim, no larger than x
// outside dim; output index's sizes, x's dtype, contiguous.
void check_gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// zeros(sizes).scatter_add_(dim, index, src): gather's adjoint.
Tensor scatter_add_zeros(const Shape& sizes, int64_t dim, const Tensor& index, const Tensor& src);

// torch.nn.functional.embedding(indices, weight): weight 2-D [V, D],
// indices int32/int64 of any shape; output indices' sizes + [D].
Shape embedding_sizes(const Tensor& weight, const Tensor& indices);
Tensor embedding(const Tensor& weight, const Tensor& indices);

}  // namespace tsr::kernels
