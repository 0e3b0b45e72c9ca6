/**
 * @file tessera/reductions.h
 * @brief Scans and statistics: cumsum, cumprod, prod, var/std/var_mean,
 * logsumexp, norm, any/all, min/argmin, minimum/maximum.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_REDUCTIONS_H
#define TESSERA_REDUCTIONS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scans and products ----------------------------------------------- */
/**
 * @brief torch.cumsum(a, dim, dtype=dtype): running sums along dim.
 *
 * The result dtype is *dtype when given, else int64 for bool and integer
 * inputs and a's dtype for floating ones; a is converted to it before
 * summing. Sums accumulate as torch's CPU kernel does (in double for
 * float32 and float64, float for float16 and bfloat16, int64 for
 * integers). float16, for which torch 1.13 has no CPU kernel, follows torch
 * 2.x. grad_fn CumsumBackward0; the
 * gradient is the reversed running sum of the output's gradient.
 * @param[in]  a     the input, any strides; 0-dim and empty allowed
 * @param[in]  dim   the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  dtype the result dtype, or NULL for torch's default
 * @param[out] out   new C-contiguous tensor of a's sizes (one reference)
 * @return TSR_OK; dim out of range: TSR_ERR_INVALID_ARGUMENT ("Dimension
 * out of range"); a storage-only result dtype (float8):
 * TSR_ERR_DTYPE_MISMATCH ("\"cumsum_out_cpu\" not implemented for ...");
 * *dtype not a dtype: TSR_ERR_INVALID_ARGUMENT; a or out NULL:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_cumsum(const tsr_tensor* a, int64_t dim, const tsr_dtype* dtype, tsr_tensor** out);
/**
 * @brief torch.cumprod(a, dim, dtype=dtype): running products along dim.
 *
 * Dtype rules as tsr_cumsum(). grad_fn CumprodBackward0, whose gradient
 * handles zeros in a as torch's cumprod_backward (exact, no division by
 * zero) and is differentiable again.
 * @param[in]  a     the input, any strides; 0-dim and empty allowed
 * @param[in]  dim   the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  dtype the result dtype, or NULL for torch's default
 * @param[out] out   new C-contiguous tensor of a's sizes (one reference)
 * @return as tsr_cumsum(), the message naming "cumprod_out_cpu".
 */
TSR_API tsr_status tsr_cumprod(const tsr_tensor* a, int64_t dim, const tsr_dtype* dtype, tsr_tensor** out);
/**
 * @brief torch.prod(a, dtype=dtype): the product of all elements.
 *
 * Result dtype as tsr_cumsum(); multiplies in the result dtype (integers
 * wrap); float16 and bfloat16, which torch 1.13's CPU kernel refuses,
 * multiply in float and round once (torch 2.x). An empty a gives 1.
 * grad_fn ProdBackward0; the gradient is
 * the product of the other elements (correct with zeros in a).
 * @param[in]  a     the input, any strides
 * @param[in]  dtype the result dtype, or NULL for torch's default
 * @param[out] out   new 0-dim tensor (one reference)
 * @return TSR_OK; a storage-only result dtype (float8):
 * TSR_ERR_DTYPE_MISMATCH ("\"prod_cpu\" not implemented for ..."); *dtype not a dtype, a or out
 * NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_prod(const tsr_tensor* a, const tsr_dtype* dtype, tsr_tensor** out);
/**
 * @brief torch.prod(a, dim, keepdim, dtype=dtype): products along dim.
 *
 * Rules as tsr_prod(); an empty dim gives 1s. grad_fn ProdBackward1.
 * @param[in]  a       the input, any strides
 * @param[in]  dim     the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  keepdim keep dim as size 1
 * @param[in]  dtype   the result dtype, or NULL for torch's default
 * @param[out] out     new C-contiguous tensor (one reference)
 * @return as tsr_prod(); dim out of range: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_prod_dim(const tsr_tensor* a, int64_t dim, bool keepdim, const tsr_dtype* dtype,
                                tsr_tensor** out);

/* ---- variance and standard deviation ---------------------------------- */
/**
 * @brief torch.var(a, dims, correction=correction, keepdim=keepdim).
 *
 * sum((a - mean)^2) / max(N - correction, 0) over the reduced dims (N
 * elements each); correction 1 is torch's unbiased=True, 0 unbiased=False.
 * Accumulates in double as torch's CPU kernel; the result has a's floating
 * dtype (float16 and bfloat16 included). N == 0, or a divisor of 0, gives
 * NaN (0/0) or inf, as torch. grad_fn VarBackward0, differentiable again.
 * @param[in]  a          the input (floating), any strides
 * @param[in]  n          number of dims; n == 0 reduces over all dims
 * @param[in]  dims       n dims, each in [-max(ndim,1), max(ndim,1)), no repeats
 * @param[in]  correction subtracted from N in the divisor
 * @param[in]  keepdim    keep reduced dims as size 1
 * @param[out] out        new C-contiguous tensor (one reference)
 * @return TSR_OK; a not floating: TSR_ERR_DTYPE_MISMATCH ("std and var only
 * support floating point and complex dtypes"); a dim out of range or
 * repeated: TSR_ERR_INVALID_ARGUMENT; a, out (or dims with n > 0) NULL:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_var(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction, bool keepdim,
                           tsr_tensor** out);
/**
 * @brief torch.std(a, dims, correction=correction, keepdim=keepdim): the
 * square root of tsr_var().
 *
 * grad_fn StdBackward0; the gradient is 0 where the result is 0.
 * @param[in]  a          the input (floating), any strides
 * @param[in]  n          number of dims; n == 0 reduces over all dims
 * @param[in]  dims       n dims, each in [-max(ndim,1), max(ndim,1)), no repeats
 * @param[in]  correction subtracted from N in the divisor
 * @param[in]  keepdim    keep reduced dims as size 1
 * @param[out] out        new C-contiguous tensor (one reference)
 * @return as tsr_var().
 */
TSR_API tsr_status tsr_std(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction, bool keepdim,
                           tsr_tensor** out);
/**
 * @brief torch.var_mean(a, dims, correction=correction, keepdim=keepdim):
 * the variance (as tsr_var()) and the mean, from one pass of autograd
 * (grad_fn VarMeanBackward0 on both).
 * @param[in]  a          the input (floating), any strides
 * @param[in]  n          number of dims; n == 0 reduces over all dims
 * @param[in]  dims       n dims, each in [-max(ndim,1), max(ndim,1)), no repeats
 * @param[in]  correction subtracted from N in the divisor
 * @param[in]  keepdim    keep reduced dims as size 1
 * @param[out] var        new tensor (one reference)
 * @param[out] mean       new tensor (one reference)
 * @return as tsr_var(), the dtype message naming "var_mean"; var or mean
 * NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_var_mean(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction,
                                bool keepdim, tsr_tensor** var, tsr_tensor** mean);
/**
 * @brief torch.std_mean(a, dims, correction=correction, keepdim=keepdim):
 * the standard deviation and the mean (grad_fn StdMeanBackward0).
 * @param[in]  a          the input (floating), any strides
 * @param[in]  n          number of dims; n == 0 reduces over all dims
 * @param[in]  dims       n dims, each in [-max(ndim,1), max(ndim,1)), no repeats
 * @param[in]  correction subtracted from N in the divisor
 * @param[in]  keepdim    keep reduced dims as size 1
 * @param[out] std        new tensor (one reference)
 * @param[out] mean       new tensor (one reference)
 * @return as tsr_var_mean(), the message naming "std_mean".
 */
TSR_API tsr_status tsr_std_mean(const tsr_tensor* a, int64_t n, const int64_t* dims, int64_t correction,
                                bool keepdim, tsr_tensor** std, tsr_tensor** mean);

/**
 * @brief torch.logsumexp(a, dims, keepdim): log(sum(exp(a))) over dims,
 * numerically stable (shifted by each slice's max; 0 when that max is
 * infinite, so an all -inf slice gives -inf and an inf gives inf).
 *
 * Computed in double; the result is a's dtype for floating a, float32 for
 * integer and bool a (as torch). An empty slice gives -inf. grad_fn
 * LogsumexpBackward0 (grad * exp(a - result)), differentiable again.
 * @param[in]  a       the input, any strides
 * @param[in]  n       number of dims; n == 0 reduces over all dims (torch
 *                     1.13 itself needs at least one)
 * @param[in]  dims    n dims, each in [-max(ndim,1), max(ndim,1)), no repeats
 * @param[in]  keepdim keep reduced dims as size 1
 * @param[out] out     new C-contiguous tensor (one reference)
 * @return TSR_OK (float16 a too, as torch 2.x: torch 1.13 refuses it); a dim out of range or repeated, a, out (or dims
 * with n > 0) NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_logsumexp(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim,
                                 tsr_tensor** out);

/* ---- any / all --------------------------------------------------------- */
/**
 * @brief torch.any(a) / torch.all(a): whether any (every) element is
 * non-zero, as a 0-dim tensor.
 *
 * The result is uint8 for uint8 a and bool otherwise (as torch 1.13); NaN
 * counts as non-zero. An empty a gives false (any) and true (all). Not
 * differentiable (no grad_fn).
 * @param[in]  a   the input, any dtype and strides
 * @param[out] out new 0-dim tensor (one reference)
 * @return TSR_OK; a or out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_any(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief torch.all(a): see tsr_any().
 * @param[in]  a   the input, any dtype and strides
 * @param[out] out new 0-dim tensor (one reference)
 * @return TSR_OK; a or out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_all(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief torch.any(a, dim, keepdim): rules as tsr_any(), along one dim.
 * @param[in]  a       the input, any dtype and strides
 * @param[in]  dim     the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  keepdim keep dim as size 1
 * @param[out] out     new C-contiguous tensor (one reference)
 * @return TSR_OK; dim out of range, a or out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_any_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out);
/**
 * @brief torch.all(a, dim, keepdim): rules as tsr_any(), along one dim.
 * @param[in]  a       the input, any dtype and strides
 * @param[in]  dim     the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  keepdim keep dim as size 1
 * @param[out] out     new C-contiguous tensor (one reference)
 * @return TSR_OK; dim out of range, a or out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_all_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out);

/* ---- min ---------------------------------------------------------------- */
/**
 * @brief torch.min(a): the smallest element as a 0-dim tensor (a's dtype).
 *
 * NaN is the minimum, as torch. grad_fn MinBackward1: the gradient is split
 * evenly among all elements equal to the result.
 * @param[in]  a   the input, any dtype and strides
 * @param[out] out new 0-dim tensor (one reference)
 * @return TSR_OK; empty a: TSR_ERR_SHAPE_MISMATCH ("min(): Expected
 * reduction dim to be specified for input.numel() == 0."); a or out NULL:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_min(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief torch.min(a, dim, keepdim): values (a's dtype) and int64 indices
 * of the first minimum along dim (NaN is the minimum; the first NaN's index).
 *
 * grad_fn MinBackward0: the gradient goes to each minimum's index.
 * @param[in]  a       the input, any dtype and strides
 * @param[in]  dim     the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  keepdim keep dim as size 1
 * @param[out] values  new tensor (one reference); may be NULL if not wanted
 *                     (not both)
 * @param[out] indices new int64 tensor (one reference); may be NULL if not
 *                     wanted (not both)
 * @return TSR_OK; dim of size 0: TSR_ERR_SHAPE_MISMATCH ("min(): Expected
 * reduction dim 0 to have non-zero size."); dim out of range, a NULL, or
 * both outputs NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_min_dim(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** values,
                               tsr_tensor** indices);
/**
 * @brief torch.argmin(a, dim, keepdim): int64 indices of the first minimum
 * along dim (rules as tsr_min_dim()); not differentiable.
 * @param[in]  a       the input, any dtype and strides
 * @param[in]  dim     the dim, in [-max(ndim,1), max(ndim,1))
 * @param[in]  keepdim keep dim as size 1
 * @param[out] out     new int64 tensor (one reference)
 * @return as tsr_min_dim(), the message naming "argmin()"; bool a:
 * TSR_ERR_DTYPE_MISMATCH ("\"argmin_cpu\" not implemented for 'Bool'", as
 * torch 1.13); out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_argmin(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out);


/* ---- extrema and norms --------------------------------------------------- */
/**
 * @brief torch.maximum(a, b): the larger of each pair (NaN wins).
 *
 * a and b broadcast; dtype torch.result_type(a, b) (bool with bool stays
 * bool). grad_fn MaximumBackward0: the gradient goes to the larger side,
 * half to each on ties.
 * @param[in]  a   any dtype and strides
 * @param[in]  b   any dtype and strides
 * @param[out] out new tensor of the broadcast shape (one reference)
 * @return TSR_OK; shapes that do not broadcast: TSR_ERR_SHAPE_MISMATCH; a
 * NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_maximum(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief torch.minimum(a, b): the smaller of each pair (NaN wins). As
 * tsr_maximum(); grad_fn MinimumBackward0.
 * @param[in]  a   any dtype and strides
 * @param[in]  b   any dtype and strides
 * @param[out] out new tensor of the broadcast shape (one reference)
 * @return as tsr_maximum().
 */
TSR_API tsr_status tsr_minimum(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief torch.amax(a, dims, keepdim): the largest value over dims (all
 * dims when n = 0); NaN propagates.
 *
 * grad_fn AmaxBackward0: the gradient is shared evenly among the elements
 * equal to the result.
 * @param[in]  a       any dtype and strides
 * @param[in]  n       number of dims (0: all)
 * @param[in]  dims    n dims, distinct
 * @param[in]  keepdim keep the reduced dims as size 1
 * @param[out] out     new tensor of a's dtype (one reference)
 * @return TSR_OK; a reduced dim of size 0 ("amax(): Expected reduction dim
 * 1 to have non-zero size."), or an empty a with n = 0:
 * TSR_ERR_INDEX_OUT_OF_RANGE; a dim out of range or twice, a NULL handle:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_amax(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim, tsr_tensor** out);
/**
 * @brief torch.amin(a, dims, keepdim): the smallest value over dims. As
 * tsr_amax(); grad_fn AminBackward0.
 * @param[in]  a       any dtype and strides
 * @param[in]  n       number of dims (0: all)
 * @param[in]  dims    n dims, distinct
 * @param[in]  keepdim keep the reduced dims as size 1
 * @param[out] out     new tensor of a's dtype (one reference)
 * @return as tsr_amax().
 */
TSR_API tsr_status tsr_amin(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim, tsr_tensor** out);
/**
 * @brief torch.norm(a, p, dims, keepdim): the p-norm over dims (all dims
 * when n = 0): (sum |a|^p)^(1/p); p = INFINITY the largest |a|, -INFINITY
 * the smallest, 0 the count of non-zeros; 'fro' is p = 2.
 *
 * Accumulates in double; the result has a's dtype. grad_fn NormBackward1
 * (torch's norm_backward: 0 where the norm is 0 for p = 2, shared among
 * ties for p = inf).
 * @param[in]  a       floating dtype, any strides
 * @param[in]  p       the order
 * @param[in]  n       number of dims (0: all)
 * @param[in]  dims    n dims, distinct
 * @param[in]  keepdim keep the reduced dims as size 1
 * @param[out] out     new tensor (one reference)
 * @return TSR_OK; an integer or bool a: TSR_ERR_DTYPE_MISMATCH ("norm():
 * input dtype should be either floating point or complex. Got Long
 * instead."); a dim out of range or twice, a NULL handle:
 * TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_norm(const tsr_tensor* a, double p, int64_t n, const int64_t* dims, bool keepdim,
                            tsr_tensor** out);
/**
 * @brief torch.linalg.vector_norm(a, ord, dims, keepdim): tsr_norm()'s
 * values and gradient (p = ord, all dims when n = 0), with linalg's node
 * (grad_fn LinalgVectorNormBackward0) and messages.
 *
 * For a dtype argument, as torch's dtype=, convert a first.
 * @param[in]  a       floating dtype, any strides
 * @param[in]  ord     the order: a number, INFINITY or -INFINITY
 * @param[in]  n       number of dims (0: all)
 * @param[in]  dims    n dims, distinct
 * @param[in]  keepdim keep the reduced dims as size 1
 * @param[out] out     new tensor of a's dtype (one reference)
 * @return TSR_OK; an integer or bool a: TSR_ERR_DTYPE_MISMATCH
 *   ("linalg.vector_norm: Expected a floating point or complex tensor as
 *   input. Got Long"); ord = ±INFINITY over an empty tensor or an empty
 *   reduced dim: TSR_ERR_INVALID_ARGUMENT ("linalg.vector_norm cannot
 *   compute the inf norm on an empty tensor because the operation does not
 *   have an identity", torch's); a dim out of range or twice, a NULL
 *   handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_linalg_vector_norm(const tsr_tensor* a, double ord, int64_t n, const int64_t* dims,
                                          bool keepdim, tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif
