// Selection and indexing kernels on CPU tensors (no autograd): where,
// index_select / index_add, gather / scatter_add, embedding. Any strides;
// index tensors are int64 (int32 where torch accepts it); an index outside
// its dim is TSR_ERR_INDEX_OUT_OF_RANGE, raised before anything is written.
#pragma once

#include "core/tensor.h"

namespace tsr::kernels {

// torch.where(cond, a, b): broadcast over all three, dtype
// torch.result_type(a, b); cond bool (or uint8, which torch 1.13 still
// takes), else TSR_ERR_DTYPE_MISMATCH with torch's message.
tsr_dtype where_result_dtype(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace tsr::kernels
