/**
 * @file tessera/layout.h
 * @brief Contiguity, memory formats, copies and conversions.
 *
 * Rules are PyTorch's (c10 TensorImpl contiguity flags, is_channels_last
 * stride heuristics, suggest_memory_format): size-1 dims never affect
 * contiguity, a tensor with no elements is contiguous, and a tensor can be
 * contiguous in more than one format at once.
 *
 * Common statuses: TSR_ERR_INVALID_ARGUMENT for NULL handles/out pointers and
 * memory formats outside the enum.
 */
#ifndef TESSERA_LAYOUT_H
#define TESSERA_LAYOUT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.Tensor.is_contiguous(memory_format).
 * @param[in]  t             the tensor
 * @param[in]  memory_format the format to check against; TSR_CHANNELS_LAST
 *                           on a tensor that is not 4-D (TSR_CHANNELS_LAST_3D:
 *                           not 5-D) gives false, as PyTorch
 * @param[out] out           the answer
 * @return TSR_OK; TSR_PRESERVE_FORMAT is TSR_ERR_INVALID_ARGUMENT; the common
 * statuses.
 */
TSR_API tsr_status tsr_is_contiguous(const tsr_tensor* t, tsr_memory_format memory_format,
                                     bool* out);
/**
 * @brief True when the elements tile a dense block of memory with no overlap
 * and no gaps, in any dim order (c10's is_non_overlapping_and_dense).
 * @param[in]  t   the tensor
 * @param[out] out the answer
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_is_non_overlapping_and_dense(const tsr_tensor* t, bool* out);
/**
 * @brief PyTorch's suggest_memory_format.
 * @param[in]  t   the tensor
 * @param[out] out TSR_CHANNELS_LAST(_3D) when the strides are channels-last
 *                 by is_channels_last_strides_2d/3d, else contiguous
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_suggest_memory_format(const tsr_tensor* t, tsr_memory_format* out);
/**
 * @brief torch.Tensor.contiguous(memory_format): a new handle to the same
 * tensor if it is already contiguous in that format, else a copy in that
 * format.
 * @param[in]  t             the tensor
 * @param[in]  memory_format the wanted format
 * @param[out] out           new reference
 * @return TSR_OK; TSR_PRESERVE_FORMAT: TSR_ERR_INVALID_ARGUMENT;
 * TSR_CHANNELS_LAST on non-4-D (3D on non-5-D): TSR_ERR_INVALID_ARGUMENT;
 * the common statuses (TSR_ERR_OUT_OF_MEMORY when the copy cannot be
 * allocated).
 */
TSR_API tsr_status tsr_contiguous(const tsr_tensor* t, tsr_memory_format memory_format,
                                  tsr_tensor** out);
/**
 * @brief torch.clone(memory_format): always a copy with new storage.
 *
 * With TSR_PRESERVE_FORMAT the copy keeps t's strides if t is
 * non-overlapping and dense, else gets dense strides in t's dim order (ATen's
 * empty_like and infer_dense_strides: a sliced or expanded input keeps its
 * permutation).
 * @param[in]  t             the tensor
 * @param[in]  memory_format layout of the copy
 * @param[out] out           new reference
 * @return TSR_OK; the common statuses (TSR_ERR_OUT_OF_MEMORY when the copy
 * cannot be allocated).
 */
TSR_API tsr_status tsr_clone(const tsr_tensor* t, tsr_memory_format memory_format,
                             tsr_tensor** out);
/**
 * @brief torch.Tensor.to(dtype): the same tensor (new handle) if dtype
 * matches, else a converted copy that preserves the layout like
 * clone(preserve_format).
 *
 * Conversion is C's (float to int truncates; to bool is != 0), with these
 * defined where C's is not: floating to integer saturates (NaN to 0), except
 * that a negative value to uint16/32/64 goes through int64 and wraps, as c10
 * does (-1.0 to 65535). Float8 conversions are c10's (through float32,
 * round to nearest even; float8_e4m3fn has no infinities: a magnitude above
 * 464, an infinity or a NaN becomes NaN; float8_e5m2 overflows to inf).
 * Every pair of dtypes converts, the storage-only ones included.
 * @param[in]  t     the tensor
 * @param[in]  dtype the wanted dtype
 * @param[out] out   new reference
 * @return TSR_OK; the common statuses (TSR_ERR_OUT_OF_MEMORY when the copy
 * cannot be allocated).
 */
TSR_API tsr_status tsr_to_dtype(const tsr_tensor* t, tsr_dtype dtype, tsr_tensor** out);
/**
 * @brief torch.Tensor.copy_(src): writes src, broadcast to dst's sizes and
 * converted to dst's dtype, into dst in place; bumps dst's version counter.
 *
 * Overlaps other than the one refused below (non-dense views) are handled
 * through a temporary: all of src is read before dst is written, where
 * torch's result depends on its loop order.
 * @param[in,out] dst the tensor written
 * @param[in]     src the values
 * @return TSR_OK; src that does not broadcast: TSR_ERR_SHAPE_MISMATCH. dst
 * with overlapping elements (expand, as_strided): TSR_ERR_INVALID_ARGUMENT
 * with PyTorch's "more than one element of the written-to tensor refers to a
 * single memory location". dst a leaf requiring grad with grad mode on:
 * TSR_ERR_AUTOGRAD. src and dst that are different dense views partly
 * sharing memory: TSR_ERR_INVALID_ARGUMENT, as torch ("some elements of the
 * input tensor and the written-to tensor refer to a single memory
 * location"). The common statuses.
 */
TSR_API tsr_status tsr_copy_(tsr_tensor* dst, const tsr_tensor* src);
/**
 * @brief True when a and b use the same storage (torch's untyped_storage
 * identity).
 * @param[in]  a   first tensor
 * @param[in]  b   second tensor
 * @param[out] out the answer
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_shares_storage(const tsr_tensor* a, const tsr_tensor* b, bool* out);

#ifdef __cplusplus
}
#endif
#endif
