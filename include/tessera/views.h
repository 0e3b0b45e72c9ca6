/* tessera/views.h — views: new tensors over the same storage, no copy.
 *
 * Each function returns a new tensor handle in *out (one reference) that shares
 * t's storage and version counter; a write through one is seen through the
 * other. dims may be negative (count from the end, as in PyTorch). If t
 * requires grad and grad mode is on, the view gets a grad_fn that routes
 * gradients back to t. Semantics are torch.Tensor's method of the same name.
 *
 * Common statuses, not repeated below:
 *   TSR_ERR_INVALID_ARGUMENT  NULL t/out, or a dim outside [-ndim, ndim);
 *                             a storage offset or stride of the result that
 *                             would leave int64 (only a t without elements,
 *                             whose strides may be anything, gets there:
 *                             select, narrow, slice, diagonal, unsqueeze,
 *                             expand, unfold; PyTorch's int64 arithmetic
 *                             wraps there and it fails or answers garbage).
 *   TSR_ERR_SHAPE_MISMATCH    sizes that do not fit t (numel, expand rules).
 */
#ifndef TESSERA_VIEWS_H
#define TESSERA_VIEWS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* torch.Tensor.view. One size may be -1 (inferred). Fails with
 * TSR_ERR_NOT_VIEWABLE when the shape cannot be produced by re-striding
 * (PyTorch's computeStride rule); the message names sizes and strides and
 * suggests reshape. */
TSR_API tsr_status tsr_view(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                            tsr_tensor** out);
/* torch.reshape: a view when view() would succeed, else a contiguous copy
 * (check with tsr_shares_storage). One size may be -1. */
TSR_API tsr_status tsr_reshape(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                               tsr_tensor** out);
/* Swaps dims dim0 and dim1. */
TSR_API tsr_status tsr_transpose(const tsr_tensor* t, int64_t dim0, int64_t dim1,
                                 tsr_tensor** out);
/* torch.Tensor.t: transpose of a <= 2-D tensor; ndim > 2 is
 * TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_t(const tsr_tensor* t, tsr_tensor** out);
/* Reorders dims: out dim i is t's dim dims[i]. ndim must equal t's ndim and
 * dims must be a permutation, else TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_permute(const tsr_tensor* t, int64_t ndim, const int64_t* dims,
                               tsr_tensor** out);
/* Elements [start, start+length) of dim; start may be negative.
 * start+length beyond the size: TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_narrow(const tsr_tensor* t, int64_t dim, int64_t start, int64_t length,
                              tsr_tensor** out);
/* Python slicing t[..., start:end:step, ...] on dim: start/end clamp to the
 * size like Python (negative counts from the end), step >= 1. Pass INT64_MAX
 * as end for "to the end". Same sizes, strides and offset as
 * torch.ops.aten.slice.
 * TSR_ERR_INVALID_ARGUMENT: a 0-dim t, step <= 0 (as PyTorch), and the
 * steps for which ATen's int64 arithmetic overflows and PyTorch 1.13
 * answers with wrapped-around values or fails: end - start + step - 1 >
 * INT64_MAX (a step within end - start of INT64_MAX), or stride * step
 * outside int64; also a start whose start * stride moves the storage offset
 * past INT64_MAX (only an empty t can have such strides). */
TSR_API tsr_status tsr_slice(const tsr_tensor* t, int64_t dim, int64_t start, int64_t end,
                             int64_t step, tsr_tensor** out);
/* t[..., index, ...]: removes dim. index outside the size:
 * TSR_ERR_INDEX_OUT_OF_RANGE. */
TSR_API tsr_status tsr_select(const tsr_tensor* t, int64_t dim, int64_t index,
                              tsr_tensor** out);
/* torch.Tensor.expand: new size-1 dims get stride 0; -1 keeps a size;
 * ndim >= t's ndim. */
TSR_API tsr_status tsr_expand(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                              tsr_tensor** out);
/* Removes every size-1 dim. */
TSR_API tsr_status tsr_squeeze(const tsr_tensor* t, tsr_tensor** out);
/* Removes dim if its size is 1, else returns a view with the same shape. */
TSR_API tsr_status tsr_squeeze_dim(const tsr_tensor* t, int64_t dim, tsr_tensor** out);
/* Inserts a size-1 dim at dim, in [-ndim-1, ndim]. */
TSR_API tsr_status tsr_unsqueeze(const tsr_tensor* t, int64_t dim, tsr_tensor** out);
/* torch.flatten(start_dim, end_dim): a view when possible, else a copy (as
 * PyTorch, which goes through reshape). start_dim > end_dim:
 * TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_flatten(const tsr_tensor* t, int64_t start_dim, int64_t end_dim,
                               tsr_tensor** out);
/* torch.unflatten(dim, sizes): splits dim into sizes (one may be -1); their
 * product must equal the dim's size. Always a view. */
TSR_API tsr_status tsr_unflatten(const tsr_tensor* t, int64_t dim, int64_t ndim,
                                 const int64_t* sizes, tsr_tensor** out);
/* torch.movedim with lists: dims source[i] move to destination[i], the rest
 * keep their order. Repeated dims: TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_movedim(const tsr_tensor* t, int64_t n, const int64_t* source,
                               const int64_t* destination, tsr_tensor** out);
/* torch.as_strided: any sizes/strides/storage_offset over t's storage.
 * Negative strides/offset, or elements outside the storage:
 * TSR_ERR_INVALID_ARGUMENT (message gives the storage size). A result
 * without elements may have any strides and offset, as PyTorch (see
 * tsr_tensor_data_ptr for its address). */
TSR_API tsr_status tsr_as_strided(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                                  const int64_t* strides, int64_t storage_offset,
                                  tsr_tensor** out);
/* torch.Tensor.unfold(dim, size, step): windows of size along dim every step,
 * as a new last dim. size > dim's size or step <= 0: TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_unfold(const tsr_tensor* t, int64_t dim, int64_t size, int64_t step,
                              tsr_tensor** out);
/* torch.diagonal(offset, dim1, dim2): the diagonal as the last dim.
 * dim1 == dim2: TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_diagonal(const tsr_tensor* t, int64_t offset, int64_t dim1, int64_t dim2,
                                tsr_tensor** out);
/* torch.split(split_size, dim) / torch.chunk(chunks, dim): views. Writes at
 * most capacity handles to outs and the number of pieces to *count (always,
 * also when capacity is too small: then TSR_ERR_INVALID_ARGUMENT and no handle
 * is written, so a first call with capacity 0 asks the count). Such a count
 * query allocates nothing, whatever the count. Each written handle is a new
 * reference. Pieces along dim have split_size elements (the last may be
 * smaller); chunk uses split_size = ceil(size / chunks), so it may return
 * fewer than chunks pieces, as torch; an empty dim gives chunks empty pieces
 * (split: one).
 * TSR_ERR_INVALID_ARGUMENT, *count and outs untouched: split_size < 0,
 * split_size 0 on a non-empty dim, chunks <= 0, a 0-dim t; chunks >
 * INT64_MAX - size + 1 on a non-empty dim (ATen's split size overflows
 * int64 and PyTorch fails); more than PTRDIFF_MAX / sizeof(tsr_tensor*)
 * pieces (2^60 - 1 on 64-bit targets; PyTorch fails at the same count). A
 * huge split_size is fine: one piece, as PyTorch. */
TSR_API tsr_status tsr_split(const tsr_tensor* t, int64_t split_size, int64_t dim,
                             tsr_tensor** outs, int64_t capacity, int64_t* count);
TSR_API tsr_status tsr_chunk(const tsr_tensor* t, int64_t chunks, int64_t dim,
                             tsr_tensor** outs, int64_t capacity, int64_t* count);

#ifdef __cplusplus
}
#endif
#endif
