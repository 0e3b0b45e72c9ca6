// Indexing by tensors and masks (issue 33 item 1): advanced indexing
// (aten::index / index_put_), nonzero, masked_fill / masked_select, the
// scatter family, index_add / index_copy / index_fill, take_along_dim.
// Each has torch 1.13's semantics, grad_fn and backward; the in-place forms
// (trailing underscore) write self, bump its version and return it.
#pragma once

#include <optional>
#include <vector>

#include "core/tensor.h"
#include "cpu/kernels/scatter.h"

namespace tsr::ops {

// self[indices]: indices[i] indexes dim i (undefined: a full slice);
// int64 tensors or bool/uint8 masks. IndexBackward0.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
// self.index_put(indices, values, accumulate) / index_put_: values of
// self's dtype broadcast to the indexing result. IndexPutBackward0.
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate);
void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate);
// torch.nonzero(x): [n, ndim] int64 (not differentiable).
Tensor nonzero(const Tensor& x);

// masked_fill with a number (MaskedFillBackward0) or a 0-dim tensor
// (MaskedFillBackward1, which also gives value a gradient).
Tensor masked_fill(const Tensor& self, const Tensor& mask, double value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
void masked_fill_(const Tensor& self, const Tensor& mask, double value);
void masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value);
// torch.masked_select(x, mask): 1-D. MaskedSelectBackward0.
Tensor masked_select(const Tensor& x, const Tensor& mask);

using kernels::ScatterReduce;
// scatter(dim, index, src) (ScatterBackward0) and with a value
// (ScatterBackward1); reduce Sum / Prod are the legacy reduce="add" /
// "multiply" (not differentiable, as torch).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce);
Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, double value, ScatterReduce reduce);
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce);
void scatter_value_(const Tensor& self, int64_t dim, const Tensor& index, double value, ScatterReduce reduce);
// scatter_add (ScatterAddBackward0) and scatter_reduce (sum, prod, mean,
// amax, amin; ScatterReduceBackward0).
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                      bool include_self);
void scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                     bool include_self);

// index_add (alpha * source; IndexAddBackward0), index_copy
// (IndexCopyBackward0), index_fill with a number (IndexFillBackward0).
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha);
void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
void index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, double value);
void index_fill_(const Tensor& self, int64_t dim, const Tensor& index, double value);

// torch.take_along_dim(x, indices, dim): x and indices broadcast outside
// dim, then gather (GatherBackward0); without dim both are flattened.
Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim);

}  // namespace tsr::ops
