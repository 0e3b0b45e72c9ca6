/**
 * @file tessera/shape_ops.h
 * @brief Factories and shape ops: linspace, eye, tril/triu, flip, roll,
 * repeat, tile.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_SHAPE_OPS_H
#define TESSERA_SHAPE_OPS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.linspace(start, end, steps, dtype=dtype): steps values from
 * start to end, evenly spaced.
 *
 * torch's two-sided formula: step = (end - start) / (steps - 1) in the
 * dtype (double for integer dtypes, the result truncated); element i is
 * start + step * i for i < steps / 2, else end - step * (steps - 1 - i),
 * so both ends are exact. torch's vectorized kernel may differ from this in
 * the last bit of some float elements. No history.
 * @param[in]  start the first value
 * @param[in]  end   the last value
 * @param[in]  steps how many, >= 0 (1 gives [start])
 * @param[in]  dtype any dtype
 * @param[out] out   new C-contiguous [steps] tensor (one reference)
 * @return TSR_OK; steps < 0 ("number of steps must be non-negative"), dtype
 * not a dtype, out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_linspace(double start, double end, int64_t steps, tsr_dtype dtype, tsr_tensor** out);
/**
 * @brief torch.eye(n, m, dtype=dtype): ones on the diagonal, zeros
 * elsewhere.
 * @param[in]  n     rows, >= 0
 * @param[in]  m     columns, >= 0
 * @param[in]  dtype any dtype
 * @param[out] out   new C-contiguous [n, m] tensor (one reference)
 * @return TSR_OK; n or m negative ("n must be greater or equal to 0, got
 * -1"), dtype not a dtype, out NULL: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_eye(int64_t n, int64_t m, tsr_dtype dtype, tsr_tensor** out);
/**
 * @brief torch.tril(x, diagonal): x with the elements above the diagonal-th
 * diagonal of each matrix (the last two dims) zeroed.
 *
 * diagonal 0 is the main diagonal, > 0 above it, < 0 below. Every dtype;
 * any batch dims. grad_fn TrilBackward0 (the gradient's tril).
 * @param[in]  x        at least 2-D, any strides
 * @param[in]  diagonal which diagonal stays
 * @param[out] out      new tensor of x's sizes and layout (one reference)
 * @return TSR_OK; x with fewer than 2 dims: TSR_ERR_INVALID_ARGUMENT; a
 * NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_tril(const tsr_tensor* x, int64_t diagonal, tsr_tensor** out);
/**
 * @brief torch.triu(x, diagonal): the elements below the diagonal-th
 * diagonal zeroed. `triu(ones(T, T, dtype=bool), 1)` is the causal mask.
 *
 * As tsr_tril(); grad_fn TriuBackward0.
 * @param[in]  x        at least 2-D, any strides
 * @param[in]  diagonal which diagonal stays
 * @param[out] out      new tensor of x's sizes and layout (one reference)
 * @return as tsr_tril().
 */
TSR_API tsr_status tsr_triu(const tsr_tensor* x, int64_t diagonal, tsr_tensor** out);
/**
 * @brief x.tril_(diagonal): tsr_tril() writing x.
 * @param[in,out] x        at least 2-D
 * @param[in]     diagonal which diagonal stays
 * @return as tsr_tril(); a leaf that requires grad: TSR_ERR_AUTOGRAD.
 */
TSR_API tsr_status tsr_tril_(tsr_tensor* x, int64_t diagonal);
/**
 * @brief x.triu_(diagonal): tsr_triu() writing x.
 * @param[in,out] x        at least 2-D
 * @param[in]     diagonal which diagonal stays
 * @return as tsr_tril_().
 */
TSR_API tsr_status tsr_triu_(tsr_tensor* x, int64_t diagonal);
/**
 * @brief torch.flip(x, dims): x with each of dims reversed (a copy).
 *
 * grad_fn FlipBackward0.
 * @param[in]  x    any dtype and strides
 * @param[in]  n    number of dims
 * @param[in]  dims n dims, each in range, none twice
 * @param[out] out  new C-contiguous tensor of x's sizes (one reference)
 * @return TSR_OK; a dim out of range, a dim twice ("dim 0 appears multiple
 * times in the list of dims"), n < 0 or dims NULL with n > 0, a NULL
 * handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_flip(const tsr_tensor* x, int64_t n, const int64_t* dims, tsr_tensor** out);
/**
 * @brief torch.roll(x, shifts, dims): each of dims rolled by its shift
 * (element j moves to (j + shift) mod size; shifts may be negative or
 * larger than the size).
 *
 * With no dims (n_dims = 0), x is flattened, rolled by shifts[0] and
 * viewed back. grad_fn RollBackward0.
 * @param[in]  x        any dtype and strides
 * @param[in]  n_shifts number of shifts, >= 1
 * @param[in]  shifts   n_shifts shifts
 * @param[in]  n_dims   number of dims: n_shifts, or 0 with one shift
 * @param[in]  dims     n_dims dims
 * @param[out] out      new C-contiguous tensor of x's sizes (one reference)
 * @return TSR_OK; counts that do not align ("shifts and dimensions must
 * align. shifts: 1, dims:2"), a dim out of range, a NULL array with a
 * positive count, a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_roll(const tsr_tensor* x, int64_t n_shifts, const int64_t* shifts, int64_t n_dims,
                            const int64_t* dims, tsr_tensor** out);
/**
 * @brief x.repeat(repeats): x tiled repeats[i] times along dim i.
 *
 * repeats has at least x's ndim entries; extra leading ones add dims.
 * grad_fn RepeatBackward0 (the gradient summed over the copies).
 * @param[in]  x       any dtype and strides
 * @param[in]  n       number of repeats, >= x's ndim
 * @param[in]  repeats n counts, each >= 0
 * @param[out] out     new C-contiguous tensor (one reference)
 * @return TSR_OK; too few repeats ("Number of dimensions of repeat dims can
 * not be smaller than number of dimensions of tensor"), a negative count,
 * sizes that overflow, a NULL handle: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_repeat(const tsr_tensor* x, int64_t n, const int64_t* repeats, tsr_tensor** out);
/**
 * @brief torch.tile(x, reps): tsr_repeat() with reps padded with leading
 * ones to x's ndim.
 * @param[in]  x    any dtype and strides
 * @param[in]  n    number of reps (any)
 * @param[in]  reps n counts, each >= 0
 * @param[out] out  new C-contiguous tensor (one reference)
 * @return as tsr_repeat().
 */
TSR_API tsr_status tsr_tile(const tsr_tensor* x, int64_t n, const int64_t* reps, tsr_tensor** out);
/**
 * @brief torch.einsum(equation, operands): sums of products over the
 * subscripts the equation names.
 *
 * torch's grammar: one subscript list per operand ([a-zA-Z], one letter
 * per dim; '...' for the dims not named, broadcast), separated by ',',
 * optionally '->' and the output's subscripts; without '->' the output is
 * the ellipsis dims then the subscripts seen once, in alphabetical order.
 * A subscript repeated in one operand takes its diagonal. Operands are
 * contracted pairwise, left to right, through bmm (as torch), so autograd
 * records those ops (the grad_fn is the last of them).
 * @param[in]  equation NUL-terminated
 * @param[in]  n        number of operands, >= 1
 * @param[in]  operands n handles, borrowed for the call
 * @param[out] out      new tensor (one reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT with torch's messages: an
 * invalid subscript ("subscripts must be in [a-zA-Z]"), a count that does
 * not match an operand's dims, sizes of one subscript that do not
 * broadcast, an output subscript twice or not in any operand, more or
 * fewer operands than the equation names; a NULL equation, operands or
 * out: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_einsum(const char* equation, int64_t n, const tsr_tensor* const* operands, tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif
