/**
 * @file tessera/indexing.h
 * @brief Indexing by tensors and masks: masked_fill, masked_select, nonzero,
 * scatter family, index_put_, index_add_, index_copy_, take_along_dim.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_INDEXING_H
#define TESSERA_INDEXING_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- advanced indexing --------------------------------------------------- */
/**
 * @brief self[indices]: torch's advanced indexing (aten::index).
 *
 * indices[i] indexes self's dim i, after the dims earlier masks took; a
 * NULL entry is a full slice (":"). An index is int64 (negative values
 * count from the end) or a bool/uint8 mask, which stands for its nonzero()
 * coordinates over as many dims as it has, its shape matching self's
 * there. The index tensors broadcast together to a shape B. When the
 * indexed dims are adjacent the result has B in their place, else first
 * (torch's rule). The result is a copy. grad_fn IndexBackward0; its
 * gradient puts grad back with accumulation (tsr_index_put()).
 * @param[in]  self    the tensor indexed, any strides
 * @param[in]  n       number of entries in indices, at most self's ndim
 * @param[in]  indices n handles or NULLs, borrowed for the call; on self's
 *                     device, or on the CPU (moved to self's device, as
 *                     torch's cuda_x[cpu_index])
 * @param[out] out     new C-contiguous tensor (one reference)
 * @return TSR_OK; an index neither int64 nor bool/uint8:
 * TSR_ERR_DTYPE_MISMATCH ("tensors used as indices must be long, byte or
 * bool tensors"); TSR_ERR_INDEX_OUT_OF_RANGE (torch's messages): an index
 * value outside its dim ("index 5 is out of bounds for dimension 0 with
 * size 3"), more indexed dims than self has ("too many indices for tensor
 * of dimension 2 (got 3)"), a mask whose shape is not self's there ("The
 * shape of the mask [3, 5] at index 1 does not match the shape of the
 * indexed tensor [3, 4] at index 1"), index tensors that do not broadcast
 * ("shape mismatch: indexing tensors could not be broadcast together with
 * shapes [2], [3]"); n < 0, or n > 0 with indices NULL, self or out NULL:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_index(const tsr_tensor* self, int64_t n, const tsr_tensor* const* indices, tsr_tensor** out);
/**
 * @brief self.index_put(indices, values, accumulate): a copy of self with
 * values written at self[indices].
 *
 * indices as tsr_index(); values has self's dtype and broadcasts to the
 * shape tsr_index() would return. Without accumulate, a position listed
 * twice gets the later value; with it, every value adds (in order, so the
 * result is the same on every run). grad_fn IndexPutBackward0.
 * @param[in]  self       the tensor written (not changed: a copy is)
 * @param[in]  n          number of entries in indices
 * @param[in]  indices    n handles or NULLs, borrowed for the call; on
 *                        self's device or on the CPU (moved there)
 * @param[in]  values     the values, self's dtype
 * @param[in]  accumulate add instead of assigning
 * @param[out] out        new tensor of self's sizes and layout (one
 *                        reference)
 * @return TSR_OK; the statuses of tsr_index(); values of another dtype:
 * TSR_ERR_DTYPE_MISMATCH ("Index put requires the source and destination
 * dtypes match, got Float for the destination and Double for the
 * source."); values that do not broadcast: TSR_ERR_SHAPE_MISMATCH ("shape
 * mismatch: value tensor of shape [3] cannot be broadcast to indexing
 * result of shape [2, 4]").
 */
TSR_API tsr_status tsr_index_put(const tsr_tensor* self, int64_t n, const tsr_tensor* const* indices,
                                 const tsr_tensor* values, bool accumulate, tsr_tensor** out);
/**
 * @brief self.index_put_(indices, values, accumulate): tsr_index_put()
 * writing self (the Python form of `self[indices] = values`).
 *
 * Every check, every index included, runs before anything is written: on
 * failure self is unchanged. values may share memory with self (it is read
 * before the write). With grad mode on, self must not be a leaf that
 * requires grad (or a view of one).
 * @param[in,out] self       the tensor written
 * @param[in]     n          number of entries in indices
 * @param[in]     indices    n handles or NULLs, borrowed for the call; on
 *                           self's device or on the CPU (moved there)
 * @param[in]     values     the values, self's dtype
 * @param[in]     accumulate add instead of assigning
 * @return as tsr_index_put(); a leaf that requires grad: TSR_ERR_AUTOGRAD;
 * a read-only or self-overlapping self: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_index_put_(tsr_tensor* self, int64_t n, const tsr_tensor* const* indices,
                                  const tsr_tensor* values, bool accumulate);
/**
 * @brief torch.nonzero(x): the coordinates of x's non-zero elements.
 *
 * Not differentiable. A 0-dim x gives [1, 0] or [0, 0]. On CUDA the
 * output's size is read back from the device (the call waits for the
 * work queued before it, as torch's nonzero synchronizes).
 * @param[in]  x   any dtype, any strides
 * @param[out] out new int64 tensor [count, ndim], rows in C order (one
 *                 reference)
 * @return TSR_OK; x or out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_nonzero(const tsr_tensor* x, tsr_tensor** out);

/* ---- masks ----------------------------------------------------------------- */
/**
 * @brief self.masked_fill(mask, value): value where mask is true.
 *
 * mask is bool (uint8 accepted, as torch 1.13) and broadcasts to self's
 * sizes; value is converted to self's dtype (truncated for integers).
 * grad_fn MaskedFillBackward0; the gradient is zero where mask is true.
 * @param[in]  self  the input, any dtype and strides
 * @param[in]  mask  bool, broadcasting to self
 * @param[in]  value the value written
 * @param[out] out   new tensor of self's sizes and layout (one reference)
 * @return TSR_OK; a mask of another dtype: TSR_ERR_DTYPE_MISMATCH
 * ("masked_fill_ only supports boolean masks, but got mask with dtype
 * int64"); a mask that does not broadcast to self: TSR_ERR_SHAPE_MISMATCH
 * ("output with shape [4] doesn't match the broadcast shape [3, 4]"); a
 * NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_masked_fill(const tsr_tensor* self, const tsr_tensor* mask, double value, tsr_tensor** out);
/**
 * @brief self.masked_fill_(mask, value): tsr_masked_fill() writing self.
 * @param[in,out] self  the tensor written
 * @param[in]     mask  bool, broadcasting to self
 * @param[in]     value the value written
 * @return as tsr_masked_fill(); a leaf that requires grad:
 * TSR_ERR_AUTOGRAD; a read-only or self-overlapping self:
 * TSR_ERR_INVALID_ARGUMENT. Nothing is written on failure.
 */
TSR_API tsr_status tsr_masked_fill_(tsr_tensor* self, const tsr_tensor* mask, double value);
/**
 * @brief self.masked_fill(mask, value) with a 0-dim tensor value.
 *
 * grad_fn MaskedFillBackward1: value's gradient is the sum of the output
 * gradient where mask is true.
 * @param[in]  self  the input
 * @param[in]  mask  bool, broadcasting to self
 * @param[in]  value a 0-dim tensor, converted to self's dtype; on self's
 *                   device or on the CPU (read as torch's value.item(); its
 *                   gradient stays on the CPU)
 * @param[out] out   new tensor of self's sizes and layout (one reference)
 * @return as tsr_masked_fill(); a value with dims: TSR_ERR_INVALID_ARGUMENT
 * ("masked_fill_ only supports a 0-dimensional value tensor, but got
 * tensor with 1 dimension(s).").
 */
TSR_API tsr_status tsr_masked_fill_tensor(const tsr_tensor* self, const tsr_tensor* mask, const tsr_tensor* value,
                                          tsr_tensor** out);
/**
 * @brief self.masked_fill_(mask, value) with a 0-dim tensor value.
 * @param[in,out] self  the tensor written
 * @param[in]     mask  bool, broadcasting to self
 * @param[in]     value a 0-dim tensor, on self's device or on the CPU
 * @return as tsr_masked_fill_tensor() and tsr_masked_fill_().
 */
TSR_API tsr_status tsr_masked_fill_tensor_(tsr_tensor* self, const tsr_tensor* mask, const tsr_tensor* value);
/**
 * @brief torch.masked_select(x, mask): the elements where mask is true.
 *
 * x and mask broadcast together; elements are taken in C order of the
 * broadcast shape. grad_fn MaskedSelectBackward0. On CUDA the output's
 * length is read back from the device (a synchronization, as torch's); so
 * is the count of a bool mask used as an index (tsr_index(),
 * tsr_index_put()).
 * @param[in]  x    the input, any dtype and strides
 * @param[in]  mask bool (or uint8)
 * @param[out] out  new 1-D tensor of x's dtype (one reference)
 * @return TSR_OK; a mask of another dtype: TSR_ERR_DTYPE_MISMATCH; shapes
 * that do not broadcast: TSR_ERR_SHAPE_MISMATCH; a NULL handle:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_masked_select(const tsr_tensor* x, const tsr_tensor* mask, tsr_tensor** out);

/* ---- scatter ----------------------------------------------------------------- */
/** @brief How tsr_scatter_reduce() combines the values at one position
 * (torch's reduce strings). */
typedef enum tsr_scatter_reduction {
  TSR_SCATTER_SUM = 0,  /**< "sum": added (integers wrap) */
  TSR_SCATTER_PROD = 1, /**< "prod": multiplied */
  TSR_SCATTER_MEAN = 2, /**< "mean": averaged (integers round down) */
  TSR_SCATTER_AMAX = 3, /**< "amax": the largest (NaN wins) */
  TSR_SCATTER_AMIN = 4  /**< "amin": the smallest (NaN wins) */
} tsr_scatter_reduction;
/**
 * @brief self.scatter(dim, index, src): a copy of self with
 * out[..., index[i, j, ...], ...] = src[i, j, ...] along dim.
 *
 * index is int64 with self's ndim, no larger than src anywhere and than
 * self outside dim; only index's positions of src are read. A position
 * written twice gets the later value. grad_fn ScatterBackward0.
 * @param[in]  self  the input
 * @param[in]  dim   the dim, in [-ndim, ndim)
 * @param[in]  index int64 positions along dim, each in [0, size(dim))
 * @param[in]  src   values of self's dtype
 * @param[out] out   new tensor of self's sizes and layout (one reference)
 * @return TSR_OK; TSR_ERR_DTYPE_MISMATCH: index not int64
 * ("scatter(): Expected dtype int64 for index"), src of another dtype
 * ("scatter(): Expected self.dtype to be equal to src.dtype");
 * TSR_ERR_SHAPE_MISMATCH: another ndim ("Index tensor must have the same
 * number of dimensions as self tensor"), index too large ("Expected index
 * [2, 2] to be smaller than self [3, 4] apart from dimension 0 and to be
 * smaller size than src [1, 2]"); an index outside its dim:
 * TSR_ERR_INDEX_OUT_OF_RANGE ("index 5 is out of bounds for dimension 0
 * with size 3"); dim out of range or a NULL handle:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_scatter(const tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src,
                               tsr_tensor** out);
/**
 * @brief self.scatter_(dim, index, src): tsr_scatter() writing self.
 * @param[in,out] self  the tensor written
 * @param[in]     dim   the dim
 * @param[in]     index int64 positions along dim
 * @param[in]     src   values of self's dtype
 * @return as tsr_scatter(); a leaf that requires grad: TSR_ERR_AUTOGRAD.
 * Nothing is written on failure.
 */
TSR_API tsr_status tsr_scatter_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src);
/**
 * @brief self.scatter(dim, index, value): value at index's positions.
 *
 * grad_fn ScatterBackward1.
 * @param[in]  self  the input
 * @param[in]  dim   the dim
 * @param[in]  index int64 positions along dim
 * @param[in]  value the value, converted to self's dtype
 * @param[out] out   new tensor of self's sizes and layout (one reference)
 * @return as tsr_scatter().
 */
TSR_API tsr_status tsr_scatter_value(const tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value,
                                     tsr_tensor** out);
/**
 * @brief self.scatter_(dim, index, value): tsr_scatter_value() writing self.
 * @param[in,out] self  the tensor written
 * @param[in]     dim   the dim
 * @param[in]     index int64 positions along dim
 * @param[in]     value the value
 * @return as tsr_scatter_().
 */
TSR_API tsr_status tsr_scatter_value_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value);
/**
 * @brief self.scatter_add(dim, index, src): src added at index's
 * positions (repeated positions add up, in order).
 *
 * Rules and statuses as tsr_scatter(), the messages naming scatter_add.
 * grad_fn ScatterAddBackward0.
 * @param[in]  self  the input
 * @param[in]  dim   the dim
 * @param[in]  index int64 positions along dim
 * @param[in]  src   values of self's dtype
 * @param[out] out   new tensor of self's sizes and layout (one reference)
 * @return as tsr_scatter().
 */
TSR_API tsr_status tsr_scatter_add(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                   const tsr_tensor* src, tsr_tensor** out);
/**
 * @brief self.scatter_add_(dim, index, src): tsr_scatter_add() writing self.
 * @param[in,out] self  the tensor written
 * @param[in]     dim   the dim
 * @param[in]     index int64 positions along dim
 * @param[in]     src   values of self's dtype
 * @return as tsr_scatter_().
 */
TSR_API tsr_status tsr_scatter_add_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src);
/**
 * @brief self.scatter_reduce(dim, index, src, reduce, include_self).
 *
 * Each position index names combines src's values there, and self's own
 * value when include_self; positions no index names keep self's value.
 * Rules and statuses as tsr_scatter(). grad_fn ScatterReduceBackward0
 * (torch's formulas: mean divides by the count, amax/amin share the
 * gradient evenly among ties, prod handles zeros).
 * @param[in]  self         the input
 * @param[in]  dim          the dim
 * @param[in]  index        int64 positions along dim
 * @param[in]  src          values of self's dtype
 * @param[in]  reduce       the reduction
 * @param[in]  include_self whether self's values take part
 * @param[out] out          new tensor of self's sizes and layout (one
 *                          reference)
 * @return as tsr_scatter(); reduce not a tsr_scatter_reduction:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_scatter_reduce(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                      const tsr_tensor* src, tsr_scatter_reduction reduce, bool include_self,
                                      tsr_tensor** out);
/**
 * @brief self.scatter_reduce_(...): tsr_scatter_reduce() writing self.
 * @param[in,out] self         the tensor written
 * @param[in]     dim          the dim
 * @param[in]     index        int64 positions along dim
 * @param[in]     src          values of self's dtype
 * @param[in]     reduce       the reduction
 * @param[in]     include_self whether self's values take part
 * @return as tsr_scatter_reduce() and tsr_scatter_().
 */
TSR_API tsr_status tsr_scatter_reduce_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* src,
                                       tsr_scatter_reduction reduce, bool include_self);

/* ---- updates along one dim --------------------------------------------------- */
/**
 * @brief self.index_add(dim, index, source, alpha=alpha): alpha * source's
 * slices added to self's slices index names along dim.
 *
 * index is int32 or int64, 0-/1-D, each value in [0, size(dim)); source
 * has index's numel along dim and self's sizes elsewhere (a 0-dim self or
 * source counts as one slice). Repeated indices add up. grad_fn
 * IndexAddBackward0.
 * @param[in]  self   the input
 * @param[in]  dim    the dim
 * @param[in]  index  positions along dim
 * @param[in]  source values of self's dtype
 * @param[in]  alpha  the scale of source
 * @param[out] out    new tensor of self's sizes and layout (one reference)
 * @return TSR_OK; TSR_ERR_DTYPE_MISMATCH: index not int32/int64
 * ("index_add_(): Expected dtype int32/int64 for index but got: Float"),
 * source of another dtype ("index_add_(): self (Float) and source
 * (Double) must have the same scalar type"); TSR_ERR_INDEX_OUT_OF_RANGE:
 * an index with dims ("index_add_(): Index is supposed to be a vector"),
 * a count that is not source's size along dim ("Number of indices (1)
 * should be equal to source.size(dim) (2)"), an index outside the dim
 * ("index out of range in self: ... index 3 is out of bounds for
 * dimension 0 with size 3"); TSR_ERR_SHAPE_MISMATCH: other sizes outside
 * dim; dim out of range or a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_index_add(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                 const tsr_tensor* source, double alpha, tsr_tensor** out);
/**
 * @brief self.index_add_(dim, index, source, alpha=alpha): tsr_index_add()
 * writing self.
 * @param[in,out] self   the tensor written
 * @param[in]     dim    the dim
 * @param[in]     index  positions along dim
 * @param[in]     source values of self's dtype
 * @param[in]     alpha  the scale of source
 * @return as tsr_index_add(); a leaf that requires grad: TSR_ERR_AUTOGRAD.
 * Nothing is written on failure.
 */
TSR_API tsr_status tsr_index_add_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* source,
                                  double alpha);
/**
 * @brief self.index_copy(dim, index, source): source's slices copied to
 * the slices index names (the later of repeated indices wins).
 *
 * index is int64 (torch 1.13 takes no int32 here). Shapes and statuses as
 * tsr_index_add(), the messages naming index_copy_. grad_fn
 * IndexCopyBackward0.
 * @param[in]  self   the input
 * @param[in]  dim    the dim
 * @param[in]  index  int64 positions along dim
 * @param[in]  source values of self's dtype
 * @param[out] out    new tensor of self's sizes and layout (one reference)
 * @return as tsr_index_add().
 */
TSR_API tsr_status tsr_index_copy(const tsr_tensor* self, int64_t dim, const tsr_tensor* index,
                                  const tsr_tensor* source, tsr_tensor** out);
/**
 * @brief self.index_copy_(dim, index, source): tsr_index_copy() writing self.
 * @param[in,out] self   the tensor written
 * @param[in]     dim    the dim
 * @param[in]     index  int64 positions along dim
 * @param[in]     source values of self's dtype
 * @return as tsr_index_add_().
 */
TSR_API tsr_status tsr_index_copy_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, const tsr_tensor* source);
/**
 * @brief self.index_fill(dim, index, value): value in the slices index
 * names (negative indices count from the end).
 *
 * grad_fn IndexFillBackward0.
 * @param[in]  self  the input
 * @param[in]  dim   the dim
 * @param[in]  index int64, 0-/1-D
 * @param[in]  value the value, converted to self's dtype
 * @param[out] out   new tensor of self's sizes and layout (one reference)
 * @return TSR_OK; index not int64: TSR_ERR_DTYPE_MISMATCH; an index with
 * dims or outside the dim: TSR_ERR_INDEX_OUT_OF_RANGE; dim out of range
 * or a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_index_fill(const tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value,
                                  tsr_tensor** out);
/**
 * @brief self.index_fill_(dim, index, value): tsr_index_fill() writing self.
 * @param[in,out] self  the tensor written
 * @param[in]     dim   the dim
 * @param[in]     index int64, 0-/1-D
 * @param[in]     value the value
 * @return as tsr_index_fill(); a leaf that requires grad: TSR_ERR_AUTOGRAD.
 */
TSR_API tsr_status tsr_index_fill_(tsr_tensor* self, int64_t dim, const tsr_tensor* index, double value);
/**
 * @brief torch.take_along_dim(x, indices, dim): x's values at indices along
 * dim, x and indices broadcasting outside dim.
 *
 * Without dim (NULL) both are flattened. grad_fn GatherBackward0.
 * @param[in]  x       the input
 * @param[in]  indices int64 of x's ndim (any ndim when dim is NULL)
 * @param[in]  dim     the dim, or NULL
 * @param[out] out     new tensor (one reference)
 * @return TSR_OK; TSR_ERR_DTYPE_MISMATCH: indices not int64
 * ("torch.take_along_dim(): dtype of indices should be Long but got
 * Int"); TSR_ERR_SHAPE_MISMATCH: another ndim ("input and indices should
 * have the same number of dimensions"), sizes that do not broadcast;
 * TSR_ERR_INDEX_OUT_OF_RANGE: an index outside the dim; dim out of range
 * or a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_take_along_dim(const tsr_tensor* x, const tsr_tensor* indices, const int64_t* dim,
                                      tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif
