/**
 * @file tessera/views.h
 * @brief Views: new tensors over the same storage, no copy.
 *
 * Each function returns a new tensor handle in *out (one reference) that
 * shares t's storage and version counter; a write through one is seen
 * through the other. dims may be negative (count from the end, as in
 * PyTorch). If t requires grad and grad mode is on, the view gets a grad_fn
 * that routes gradients back to t. Semantics are torch.Tensor's method of the
 * same name.
 *
 * Common statuses, not repeated below:
 * - TSR_ERR_INVALID_ARGUMENT: NULL t/out, or a dim outside [-ndim, ndim);
 *   a storage offset or stride of the result that would leave int64 (only a
 *   t without elements, whose strides may be anything, gets there: select,
 *   narrow, slice, diagonal, unsqueeze, expand, unfold; PyTorch's int64
 *   arithmetic wraps there and it fails or answers garbage).
 * - TSR_ERR_SHAPE_MISMATCH: sizes that do not fit t (numel, expand rules).
 */
#ifndef TESSERA_VIEWS_H
#define TESSERA_VIEWS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.Tensor.view.
 * @param[in]  t     the tensor
 * @param[in]  ndim  number of new dims
 * @param[in]  sizes ndim sizes; one may be -1 (inferred)
 * @param[out] out   new view (one reference)
 * @return TSR_OK; TSR_ERR_NOT_VIEWABLE when the shape cannot be produced by
 * re-striding (PyTorch's computeStride rule): the message names sizes and
 * strides and suggests reshape; the common statuses of this header.
 */
TSR_API tsr_status tsr_view(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                            tsr_tensor** out);
/**
 * @brief torch.reshape: a view when view() would succeed, else a contiguous
 * copy (check with tsr_shares_storage()).
 * @param[in]  t     the tensor
 * @param[in]  ndim  number of new dims
 * @param[in]  sizes ndim sizes; one may be -1
 * @param[out] out   new view or copy (one reference)
 * @return TSR_OK; the common statuses of this header (and
 * TSR_ERR_OUT_OF_MEMORY when the copy cannot be allocated).
 */
TSR_API tsr_status tsr_reshape(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                               tsr_tensor** out);
/**
 * @brief Swaps dims dim0 and dim1 (torch.Tensor.transpose).
 * @param[in]  t    the tensor
 * @param[in]  dim0 first dim
 * @param[in]  dim1 second dim
 * @param[out] out  new view (one reference)
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_transpose(const tsr_tensor* t, int64_t dim0, int64_t dim1,
                                 tsr_tensor** out);
/**
 * @brief torch.Tensor.t: transpose of a <= 2-D tensor.
 * @param[in]  t   the tensor
 * @param[out] out new view (one reference)
 * @return TSR_OK; ndim > 2 is TSR_ERR_INVALID_ARGUMENT; the common statuses.
 */
TSR_API tsr_status tsr_t(const tsr_tensor* t, tsr_tensor** out);
/**
 * @brief Reorders dims: out dim i is t's dim dims[i] (torch.Tensor.permute).
 * @param[in]  t    the tensor
 * @param[in]  ndim number of entries in dims; must equal t's ndim
 * @param[in]  dims a permutation of t's dims
 * @param[out] out  new view (one reference)
 * @return TSR_OK; ndim != t's ndim or dims not a permutation:
 * TSR_ERR_INVALID_ARGUMENT; the common statuses.
 */
TSR_API tsr_status tsr_permute(const tsr_tensor* t, int64_t ndim, const int64_t* dims,
                               tsr_tensor** out);
/**
 * @brief Elements [start, start+length) of dim (torch.Tensor.narrow).
 * @param[in]  t      the tensor
 * @param[in]  dim    the dim
 * @param[in]  start  first element; may be negative
 * @param[in]  length number of elements
 * @param[out] out    new view (one reference)
 * @return TSR_OK; start+length beyond the size: TSR_ERR_INVALID_ARGUMENT;
 * the common statuses.
 */
TSR_API tsr_status tsr_narrow(const tsr_tensor* t, int64_t dim, int64_t start, int64_t length,
                              tsr_tensor** out);
/**
 * @brief Python slicing t[..., start:end:step, ...] on dim.
 *
 * start/end clamp to the size like Python (negative counts from the end),
 * step >= 1. Same sizes, strides and offset as torch.ops.aten.slice.
 * @param[in]  t     the tensor
 * @param[in]  dim   the dim
 * @param[in]  start first element (clamped)
 * @param[in]  end   end, not included (clamped); INT64_MAX for "to the end"
 * @param[in]  step  >= 1
 * @param[out] out   new view (one reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT: a 0-dim t, step <= 0 (as
 * PyTorch), and the steps for which ATen's int64 arithmetic overflows and
 * PyTorch 1.13 answers with wrapped-around values or fails:
 * end - start + step - 1 > INT64_MAX (a step within end - start of
 * INT64_MAX), or stride * step outside int64; also a start whose
 * start * stride moves the storage offset past INT64_MAX (only an empty t
 * can have such strides). The common statuses.
 */
TSR_API tsr_status tsr_slice(const tsr_tensor* t, int64_t dim, int64_t start, int64_t end,
                             int64_t step, tsr_tensor** out);
/**
 * @brief t[..., index, ...]: removes dim (torch.Tensor.select).
 * @param[in]  t     the tensor
 * @param[in]  dim   the dim
 * @param[in]  index position along dim; may be negative
 * @param[out] out   new view (one reference)
 * @return TSR_OK; index outside the size: TSR_ERR_INDEX_OUT_OF_RANGE; the
 * common statuses.
 */
TSR_API tsr_status tsr_select(const tsr_tensor* t, int64_t dim, int64_t index,
                              tsr_tensor** out);
/**
 * @brief torch.Tensor.expand: new size-1 dims get stride 0.
 * @param[in]  t     the tensor
 * @param[in]  ndim  number of dims; ndim >= t's ndim
 * @param[in]  sizes ndim sizes; -1 keeps a size
 * @param[out] out   new view (one reference)
 * @return TSR_OK; the common statuses (sizes that break the expand rules:
 * TSR_ERR_SHAPE_MISMATCH).
 */
TSR_API tsr_status tsr_expand(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                              tsr_tensor** out);
/**
 * @brief Removes every size-1 dim (torch.Tensor.squeeze).
 * @param[in]  t   the tensor
 * @param[out] out new view (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_squeeze(const tsr_tensor* t, tsr_tensor** out);
/**
 * @brief Removes dim if its size is 1, else returns a view with the same
 * shape (torch.Tensor.squeeze(dim)).
 * @param[in]  t   the tensor
 * @param[in]  dim the dim
 * @param[out] out new view (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_squeeze_dim(const tsr_tensor* t, int64_t dim, tsr_tensor** out);
/**
 * @brief Inserts a size-1 dim at dim (torch.Tensor.unsqueeze).
 * @param[in]  t   the tensor
 * @param[in]  dim in [-ndim-1, ndim]
 * @param[out] out new view (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_unsqueeze(const tsr_tensor* t, int64_t dim, tsr_tensor** out);
/**
 * @brief torch.flatten(start_dim, end_dim): a view when possible, else a copy
 * (as PyTorch, which goes through reshape).
 * @param[in]  t         the tensor
 * @param[in]  start_dim first dim to merge
 * @param[in]  end_dim   last dim to merge
 * @param[out] out       new view or copy (one reference)
 * @return TSR_OK; start_dim > end_dim: TSR_ERR_INVALID_ARGUMENT; the common
 * statuses.
 */
TSR_API tsr_status tsr_flatten(const tsr_tensor* t, int64_t start_dim, int64_t end_dim,
                               tsr_tensor** out);
/**
 * @brief torch.unflatten(dim, sizes): splits dim into sizes. Always a view.
 * @param[in]  t     the tensor
 * @param[in]  dim   the dim to split
 * @param[in]  ndim  number of entries in sizes
 * @param[in]  sizes the new sizes (one may be -1); their product must equal
 *                   the dim's size
 * @param[out] out   new view (one reference)
 * @return TSR_OK; the common statuses (a product that does not match:
 * TSR_ERR_SHAPE_MISMATCH).
 */
TSR_API tsr_status tsr_unflatten(const tsr_tensor* t, int64_t dim, int64_t ndim,
                                 const int64_t* sizes, tsr_tensor** out);
/**
 * @brief torch.movedim with lists: dims source[i] move to destination[i],
 * the rest keep their order.
 * @param[in]  t           the tensor
 * @param[in]  n           number of entries in source and destination
 * @param[in]  source      n dims to move
 * @param[in]  destination n positions they move to
 * @param[out] out         new view (one reference)
 * @return TSR_OK; repeated dims: TSR_ERR_INVALID_ARGUMENT; the common
 * statuses.
 */
TSR_API tsr_status tsr_movedim(const tsr_tensor* t, int64_t n, const int64_t* source,
                               const int64_t* destination, tsr_tensor** out);
/**
 * @brief torch.as_strided: any sizes/strides/storage_offset over t's storage.
 *
 * A result without elements may have any strides and offset, as PyTorch (see
 * tsr_tensor_data_ptr() for its address).
 * @param[in]  t              the tensor whose storage is used
 * @param[in]  ndim           number of dims
 * @param[in]  sizes          ndim sizes, in elements
 * @param[in]  strides        ndim strides, in elements
 * @param[in]  storage_offset offset in elements from the storage start
 * @param[out] out            new view (one reference)
 * @return TSR_OK; negative strides/offset, or elements outside the storage:
 * TSR_ERR_INVALID_ARGUMENT (message gives the storage size); the common
 * statuses.
 */
TSR_API tsr_status tsr_as_strided(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                                  const int64_t* strides, int64_t storage_offset,
                                  tsr_tensor** out);
/**
 * @brief torch.Tensor.unfold(dim, size, step): windows of size along dim
 * every step, as a new last dim.
 * @param[in]  t    the tensor
 * @param[in]  dim  the dim
 * @param[in]  size window length
 * @param[in]  step distance between window starts
 * @param[out] out  new view (one reference)
 * @return TSR_OK; size > dim's size or step <= 0: TSR_ERR_INVALID_ARGUMENT;
 * the common statuses.
 */
TSR_API tsr_status tsr_unfold(const tsr_tensor* t, int64_t dim, int64_t size, int64_t step,
                              tsr_tensor** out);
/**
 * @brief torch.diagonal(offset, dim1, dim2): the diagonal as the last dim.
 * @param[in]  t      the tensor
 * @param[in]  offset diagonal offset (> 0 above, < 0 below the main one)
 * @param[in]  dim1   first dim
 * @param[in]  dim2   second dim
 * @param[out] out    new view (one reference)
 * @return TSR_OK; dim1 == dim2: TSR_ERR_INVALID_ARGUMENT; the common
 * statuses.
 */
TSR_API tsr_status tsr_diagonal(const tsr_tensor* t, int64_t offset, int64_t dim1, int64_t dim2,
                                tsr_tensor** out);
/**
 * @brief torch.split(split_size, dim): views.
 *
 * Writes at most capacity handles to outs and the number of pieces to
 * *count (always, also when capacity is too small: then
 * TSR_ERR_INVALID_ARGUMENT and no handle is written, so a first call with
 * capacity 0 asks the count). Such a count query allocates nothing, whatever
 * the count. Each written handle is a new reference. Pieces along dim have
 * split_size elements (the last may be smaller); an empty dim gives one
 * piece. A huge split_size is fine: one piece, as PyTorch.
 * @param[in]  t          the tensor
 * @param[in]  split_size elements per piece along dim
 * @param[in]  dim        the dim
 * @param[out] outs       capacity slots for new references
 * @param[in]  capacity   number of slots in outs
 * @param[out] count      number of pieces
 * @return TSR_OK; capacity too small: TSR_ERR_INVALID_ARGUMENT (count
 * written). TSR_ERR_INVALID_ARGUMENT, *count and outs untouched:
 * split_size < 0, split_size 0 on a non-empty dim, a 0-dim t; more than
 * PTRDIFF_MAX / sizeof(tsr_tensor*) pieces (2^60 - 1 on 64-bit targets;
 * PyTorch fails at the same count). The common statuses.
 */
TSR_API tsr_status tsr_split(const tsr_tensor* t, int64_t split_size, int64_t dim,
                             tsr_tensor** outs, int64_t capacity, int64_t* count);
/**
 * @brief torch.chunk(chunks, dim): views.
 *
 * Same protocol as tsr_split(): writes at most capacity handles to outs and
 * the number of pieces to *count (always, also when capacity is too small:
 * then TSR_ERR_INVALID_ARGUMENT and no handle is written, so a first call
 * with capacity 0 asks the count; such a query allocates nothing). Each
 * written handle is a new reference. chunk uses
 * split_size = ceil(size / chunks), so it may return fewer than chunks
 * pieces, as torch; an empty dim gives chunks empty pieces.
 * @param[in]  t        the tensor
 * @param[in]  chunks   wanted number of pieces
 * @param[in]  dim      the dim
 * @param[out] outs     capacity slots for new references
 * @param[in]  capacity number of slots in outs
 * @param[out] count    number of pieces
 * @return TSR_OK; capacity too small: TSR_ERR_INVALID_ARGUMENT (count
 * written). TSR_ERR_INVALID_ARGUMENT, *count and outs untouched:
 * chunks <= 0, a 0-dim t; chunks > INT64_MAX - size + 1 on a non-empty dim
 * (ATen's split size overflows int64 and PyTorch fails); more than
 * PTRDIFF_MAX / sizeof(tsr_tensor*) pieces. The common statuses.
 */
TSR_API tsr_status tsr_chunk(const tsr_tensor* t, int64_t chunks, int64_t dim,
                             tsr_tensor** outs, int64_t capacity, int64_t* count);

#ifdef __cplusplus
}
#endif
#endif
