/**
 * @file tessera/sorting.h
 * @brief Sorting and selection: sort, argsort, topk, kthvalue.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_SORTING_H
#define TESSERA_SORTING_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.sort(x, dim, descending, stable=stable): x's values along
 * dim in order, and where each came from.
 *
 * Always stable: equal values keep their order (torch's stable=True; its
 * default, stable=False, may order ties otherwise). stable picks torch's
 * overload, so the grad_fn name: SortBackward1 for true, SortBackward0 for
 * false. NaN is larger than every number (last ascending, first
 * descending); -0.0 and 0.0 are equal. Every dtype. The gradient goes back
 * to the positions indices name (differentiable again).
 * @param[in]  x          the input, any strides; a 0-dim x is one element
 * @param[in]  dim        the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  descending largest first
 * @param[in]  stable     torch's stable= (the grad_fn name; see above)
 * @param[out] values     new C-contiguous tensor of x's sizes and dtype
 * @param[out] indices    new C-contiguous int64 tensor of x's sizes: each
 *                        value's position along dim in x
 * @return TSR_OK; dim out of range: TSR_ERR_INVALID_ARGUMENT ("Dimension
 * out of range"); a dim longer than 2^32 - 1: TSR_ERR_UNSUPPORTED; a NULL
 * x, values or indices: TSR_ERR_INVALID_ARGUMENT. On failure neither out
 * value is written.
 */
TSR_API tsr_status tsr_sort(const tsr_tensor* x, int64_t dim, bool descending, bool stable, tsr_tensor** values,
                            tsr_tensor** indices);
/**
 * @brief torch.argsort(x, dim, descending): tsr_sort()'s indices only.
 * @param[in]  x          the input
 * @param[in]  dim        the dim
 * @param[in]  descending largest first
 * @param[out] out        new int64 tensor of x's sizes (one reference)
 * @return as tsr_sort().
 */
TSR_API tsr_status tsr_argsort(const tsr_tensor* x, int64_t dim, bool descending, tsr_tensor** out);
/**
 * @brief torch.topk(x, k, dim, largest, sorted=True): the k largest (or
 * smallest) values along dim, in order, and their positions.
 *
 * Ties are taken by position (the earlier first). NaN counts as the
 * largest value. Not bool or float16 (torch 1.13 has no CPU kernel).
 * grad_fn TopkBackward0.
 * @param[in]  x       the input, any strides
 * @param[in]  k       how many, in [0, size(dim)]
 * @param[in]  dim     the dim
 * @param[in]  largest the largest (else the smallest)
 * @param[out] values  new C-contiguous tensor: x's sizes with dim's = k
 * @param[out] indices new int64 tensor of values' sizes
 * @return TSR_OK; k outside [0, size(dim)]: TSR_ERR_INVALID_ARGUMENT
 * ("selected index k out of range"); a bool or float16 x:
 * TSR_ERR_DTYPE_MISMATCH ("\"topk_cpu\" not implemented for 'Bool'"); dim
 * out of range or a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_topk(const tsr_tensor* x, int64_t k, int64_t dim, bool largest, tsr_tensor** values,
                            tsr_tensor** indices);
/**
 * @brief torch.kthvalue(x, k, dim, keepdim): the k-th smallest value along
 * dim (k counts from 1) and its position.
 *
 * Among equal values the earliest position is given. Not bool or float16.
 * grad_fn KthvalueBackward0.
 * @param[in]  x       the input, any strides
 * @param[in]  k       which, in [1, size(dim)]
 * @param[in]  dim     the dim
 * @param[in]  keepdim keep dim as size 1
 * @param[out] values  new tensor: x's sizes without dim (or with it as 1)
 * @param[out] indices new int64 tensor of values' sizes
 * @return TSR_OK; k outside [1, size(dim)]: TSR_ERR_INVALID_ARGUMENT
 * ("kthvalue(): selected number k out of range for dimension 0"); an empty
 * dim: TSR_ERR_INDEX_OUT_OF_RANGE ("Expected reduction dim 0 to have
 * non-zero size."); a bool or float16 x: TSR_ERR_DTYPE_MISMATCH; dim out of
 * range or a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_kthvalue(const tsr_tensor* x, int64_t k, int64_t dim, bool keepdim, tsr_tensor** values,
                                tsr_tensor** indices);

#ifdef __cplusplus
}
#endif

#endif
