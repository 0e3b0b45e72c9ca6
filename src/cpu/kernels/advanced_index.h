// torch's advanced indexing on CPU tensors (no autograd): aten::index,
// index_put_, nonzero, masked_select, masked_fill_. Index tensors are
// int64 (negative values count from the end) or bool / uint8 masks, which
// stand for their nonzero() coordinates. Every index is checked before
// anything is written: TSR_ERR_INDEX_OUT_OF_RANGE naming the index, the
// dim and its size.
#pragma once

#include <functional>
#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// Where an advanced index reads or writes. torch's rules: the index
// tensors broadcast together to index_shape; when the indexed dims are
// adjacent the result has index_shape in their place, else first (src is
// self with the indexed dims moved to the front, torch's transposeToFront).
struct IndexPlan {
  Tensor src;                    // self, or a permuted view of it
  int64_t first = 0;             // src's first indexed dim
  int64_t count = 0;             // how many dims are indexed
  Shape index_shape;             // the broadcast shape of the index tensors
  std::vector<int64_t> offsets;  // per index position (C order): src element offset
  Shape result_sizes;            // src.sizes[:first] + index_shape + src.sizes[first+count:]
};

// The shape side of an advanced index, the same on every device: idx[d]
// indexes self's dim d (int64, masks already replaced by their coordinates;
// undefined: a full slice), dims lists the indexed ones, and src, first,
// count, index_shape and result_sizes are IndexPlan's.
struct IndexGeometry {
  std::vector<Tensor> idx;
  std::vector<int64_t> dims;
  Tensor src;
  int64_t first = 0, count = 0;
  Shape index_shape, result_sizes;
};
// plan_index's checks, in its order and with its statuses and messages
// (below), except the index values': every mask's coordinates come from
// `coordinates` (nonzero on the mask's device, [count, ndim] int64).
IndexGeometry index_geometry(const Tensor& self, const std::vector<Tensor>& indices,
                             const std::function<Tensor(const Tensor&)>& coordinates);

// indices[i] indexes self's dim i (after the dims earlier masks took); an
// undefined Tensor is a full slice (torch's List[Optional[Tensor]]).
// Statuses: TSR_ERR_DTYPE_MISMATCH (an index neither int64 nor bool/uint8),
// TSR_ERR_INDEX_OUT_OF_RANGE (too many indices; a mask whose shape is not
// self's there; an index out of range), TSR_ERR_SHAPE_MISMATCH (indices
// that do not broadcast); torch's messages.
IndexPlan plan_index(const Tensor& self, const std::vector<Tensor>& indices);
// Checks the index tensors' dtypes and count only (what an op's shape rule
// needs without reading values).
void check_index_tensors(const Tensor& self, const std::vector<Tensor>& indices);

// self[indices]: a new contiguous tensor of plan.result_sizes.
Tensor index(const IndexPlan& plan);
// self[indices] = values (or += with accumulate, repeated positions
// adding up in order). values has self's dtype and broadcasts to
// plan.result_sizes (checked: TSR_ERR_SHAPE_MISMATCH, torch's message).
void index_put_into(const IndexPlan& plan, const Tensor& values, bool accumulate);

// torch.nonzero(x): [n, x.ndim] int64, the coordinates of x's non-zero
// elements in C order.
Tensor nonzero(const Tensor& x);
// torch.masked_select(x, mask): x and mask broadcast; the elements where
// mask is true, in C order, 1-D.
Tensor masked_select(const Tensor& x, const Tensor& mask);
// How many elements of mask, expanded to shape, are true (masked_select's
// output length).
int64_t count_true(const Tensor& mask, const Shape& shape);
// The value of a one-element tensor, as a double (masked_fill's value).
double scalar_value(const Tensor& t);
// self.masked_fill_(mask, value): mask broadcasts to self.
void masked_fill_into(const Tensor& self, const Tensor& mask, double value);

}  // namespace tsr::kernels
