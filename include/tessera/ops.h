/**
 * @file tessera/ops.h
 * @brief Math on tensors.
 *
 * Inputs may have any strides (transposed, sliced, expanded). Binary ops
 * broadcast with NumPy/PyTorch rules and promote dtypes with PyTorch's
 * result_type (bool < integers < floats; within a category the wider type
 * wins; float16 with bfloat16 gives float32; a 0-dim operand does not widen
 * a dimensioned one of the same category).
 * Each returns a new tensor in *out (one reference) unless it is in place.
 * Elementwise results are dense with the strides TensorIterator gives them
 * (inputs in channels_last give a channels_last result, a transposed input a
 * transposed-order result); reductions, matmul and the nn functions return
 * contiguous tensors. With grad mode on and an input that requires grad, the output
 * records a grad_fn (see autograd.h).
 *
 * Common statuses, not repeated below:
 * - TSR_ERR_INVALID_ARGUMENT: NULL handles/out pointers, dims out of range.
 * - TSR_ERR_SHAPE_MISMATCH: operands that do not broadcast, or matmul sizes
 *   that do not agree (message gives both shapes).
 * - TSR_ERR_DTYPE_MISMATCH: a dtype the op does not take (message says which).
 * - TSR_ERR_UNSUPPORTED: an operand of a storage-only dtype (uint16/32/64,
 *   float8_e4m3fn, float8_e5m2; message names it), or one of them with
 *   another dtype (PyTorch 2.x's "Promotion for ... is not supported").
 * - TSR_ERR_DEVICE_MISMATCH: operands on different devices.
 * - TSR_ERR_OUT_OF_MEMORY: allocation failed.
 *
 * @anchor ops_inplace
 * <b>In place ops</b> (tsr_add_(), tsr_mul_scalar_(), tsr_fill_(),
 * tsr_zero_(), tsr_relu_()) bump the version counter. self must not overlap
 * itself (a size > 1 dim with stride 0, from expand or as_strided:
 * TSR_ERR_INVALID_ARGUMENT, torch's "more than one element of the written-to
 * tensor refers to a single memory location"); a leaf that requires grad
 * with grad mode on is TSR_ERR_AUTOGRAD ("a leaf Variable that requires grad
 * is being used in an in-place operation."), and so is a view of one ("a
 * view of a leaf Variable that requires grad is being used in an in-place
 * operation.").
 * History (grad mode on, self or another operand requiring grad) is kept as
 * PyTorch keeps it: self's grad_fn becomes the op's node (AddBackward0,
 * MulBackward0, FillBackward2, ZeroBackward0, ReluBackward0, CopyBackwards)
 * chained to self's previous history; when self is a view, its base's
 * grad_fn becomes CopySlices and the view's AsStridedBackward0, so
 * y = x * 2; y[0].relu_(); y.sum() differentiates to x as in torch.
 * Tensors saved for backward before the write give the version-counter
 * error at backward, as in torch.
 *
 * @anchor ops_nn
 * <b>Layers and activations</b> (torch.nn.functional): gradients flow to
 * every floating input that requires grad; each result's grad_fn is named as
 * torch 1.13 names it. float16 is refused where torch 1.13's CPU kernels
 * refuse it (TSR_ERR_DTYPE_MISMATCH, torch's "\"GeluKernelImpl\" not
 * implemented for 'Half'").
 */
#ifndef TESSERA_OPS_H
#define TESSERA_OPS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- elementwise, broadcasting ----------------------------------------- */
/**
 * @brief a + b, broadcasting (torch.add).
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_add(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a - b, broadcasting (torch.sub).
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; bool operands are TSR_ERR_DTYPE_MISMATCH; the common
 * statuses of this header.
 */
TSR_API tsr_status tsr_sub(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a * b, broadcasting (torch.mul).
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_mul(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief True division, as torch.div: integer operands give float32.
 * @param[in]  a   dividend
 * @param[in]  b   divisor
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_div(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a * scalar keeping a's dtype (for floating a).
 * @param[in]  a      the tensor
 * @param[in]  scalar the factor
 * @param[out] out    new tensor (one reference)
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_mul_scalar(const tsr_tensor* a, double scalar, tsr_tensor** out);
/**
 * @brief a + scalar keeping a's dtype (for floating a).
 * @param[in]  a      the tensor
 * @param[in]  scalar the addend
 * @param[out] out    new tensor (one reference)
 * @return TSR_OK; the common statuses of this header.
 */
TSR_API tsr_status tsr_add_scalar(const tsr_tensor* a, double scalar, tsr_tensor** out);

/* ---- in place (bump the version counter): rules in the file comment ---- */
/**
 * @brief self += alpha * other (torch.Tensor.add_(other, alpha=alpha)). Used
 * for SGD steps.
 *
 * other is broadcast to self's sizes and converted to self's dtype. Overlaps
 * other than the one refused below (x += x, interleaved views) are read
 * before writing. The rules of @ref ops_inplace "in-place ops" apply.
 * @param[in,out] self  the tensor written
 * @param[in]     other the addend
 * @param[in]     alpha factor on other
 * @return TSR_OK; other that does not broadcast to self's sizes:
 * TSR_ERR_SHAPE_MISMATCH (torch's "output with shape [3] doesn't match the
 * broadcast shape [2, 3]"). self and other different dense views partly
 * sharing memory: TSR_ERR_INVALID_ARGUMENT, as torch ("some elements of the
 * input tensor and the written-to tensor refer to a single memory
 * location"); the in-place statuses; the common statuses.
 */
TSR_API tsr_status tsr_add_(tsr_tensor* self, const tsr_tensor* other, double alpha);
/**
 * @brief self *= scalar (torch.Tensor.mul_). The rules of
 * @ref ops_inplace "in-place ops" apply.
 * @param[in,out] self   the tensor written
 * @param[in]     scalar the factor
 * @return TSR_OK; the in-place statuses; the common statuses.
 */
TSR_API tsr_status tsr_mul_scalar_(tsr_tensor* self, double scalar);
/**
 * @brief Every element = value (torch.Tensor.fill_). The rules of
 * @ref ops_inplace "in-place ops" apply.
 * @param[in,out] self  the tensor written
 * @param[in]     value the value
 * @return TSR_OK; the in-place statuses; the common statuses.
 */
TSR_API tsr_status tsr_fill_(tsr_tensor* self, double value);
/**
 * @brief Every element = 0 (torch.Tensor.zero_). The rules of
 * @ref ops_inplace "in-place ops" apply.
 * @param[in,out] self the tensor written
 * @return TSR_OK; the in-place statuses; the common statuses.
 */
TSR_API tsr_status tsr_zero_(tsr_tensor* self);
/**
 * @brief self = max(self, 0) (torch.Tensor.relu_). The rules of
 * @ref ops_inplace "in-place ops" apply.
 * @param[in,out] self the tensor written
 * @return TSR_OK; bool: TSR_ERR_DTYPE_MISMATCH; the in-place statuses; the
 * common statuses.
 */
TSR_API tsr_status tsr_relu_(tsr_tensor* self);

/* ---- unary ------------------------------------------------------------- */
/**
 * @brief max(x, 0) (torch.relu).
 * @param[in]  a   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_relu(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief e^x (torch.exp); integer/bool inputs give float32 (as torch).
 * @param[in]  a   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_exp(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief Natural log (torch.log); integer/bool inputs give float32 (as
 * torch).
 * @param[in]  a   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_log(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief -x (torch.neg).
 * @param[in]  a   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_neg(const tsr_tensor* a, tsr_tensor** out);

/* ---- comparisons --------------------------------------------------------- */
/**
 * @brief a == b elementwise (torch.eq), as a bool tensor.
 *
 * Same rules for tsr_eq(), tsr_ne(), tsr_lt(), tsr_le(), tsr_gt(), tsr_ge()
 * (torch.eq / ne / lt / le / gt / ge, Python's ==, !=, <, <=, >, >=):
 * a op b elementwise with broadcasting, computed in torch.result_type(a, b)
 * (int64 vs float32 compares in float32), as a bool tensor (one byte per
 * element, 1 for true) with the strides an elementwise result gets. NaN is
 * unequal to everything, itself included (ne gives true). Never records
 * autograd history. CPU tensors.
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new bool tensor (one reference)
 * @return TSR_OK; tensors not on the CPU: TSR_ERR_UNSUPPORTED;
 * TSR_ERR_SHAPE_MISMATCH: sizes that do not broadcast ("The size of tensor
 * a (2) must match the size of tensor b (3) at non-singleton dimension 0");
 * the common statuses.
 */
TSR_API tsr_status tsr_eq(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a != b elementwise (torch.ne), as a bool tensor.
 *
 * Same rules for tsr_eq(), tsr_ne(), tsr_lt(), tsr_le(), tsr_gt(), tsr_ge()
 * (torch.eq / ne / lt / le / gt / ge, Python's ==, !=, <, <=, >, >=):
 * a op b elementwise with broadcasting, computed in torch.result_type(a, b)
 * (int64 vs float32 compares in float32), as a bool tensor (one byte per
 * element, 1 for true) with the strides an elementwise result gets. NaN is
 * unequal to everything, itself included (ne gives true). Never records
 * autograd history. CPU tensors.
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new bool tensor (one reference)
 * @return TSR_OK; tensors not on the CPU: TSR_ERR_UNSUPPORTED;
 * TSR_ERR_SHAPE_MISMATCH: sizes that do not broadcast ("The size of tensor
 * a (2) must match the size of tensor b (3) at non-singleton dimension 0");
 * the common statuses.
 */
TSR_API tsr_status tsr_ne(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a < b elementwise (torch.lt), as a bool tensor.
 *
 * Same rules for tsr_eq(), tsr_ne(), tsr_lt(), tsr_le(), tsr_gt(), tsr_ge()
 * (torch.eq / ne / lt / le / gt / ge, Python's ==, !=, <, <=, >, >=):
 * a op b elementwise with broadcasting, computed in torch.result_type(a, b)
 * (int64 vs float32 compares in float32), as a bool tensor (one byte per
 * element, 1 for true) with the strides an elementwise result gets. NaN is
 * unequal to everything, itself included (ne gives true). Never records
 * autograd history. CPU tensors.
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new bool tensor (one reference)
 * @return TSR_OK; tensors not on the CPU: TSR_ERR_UNSUPPORTED;
 * TSR_ERR_SHAPE_MISMATCH: sizes that do not broadcast ("The size of tensor
 * a (2) must match the size of tensor b (3) at non-singleton dimension 0");
 * the common statuses.
 */
TSR_API tsr_status tsr_lt(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a <= b elementwise (torch.le), as a bool tensor.
 *
 * Same rules for tsr_eq(), tsr_ne(), tsr_lt(), tsr_le(), tsr_gt(), tsr_ge()
 * (torch.eq / ne / lt / le / gt / ge, Python's ==, !=, <, <=, >, >=):
 * a op b elementwise with broadcasting, computed in torch.result_type(a, b)
 * (int64 vs float32 compares in float32), as a bool tensor (one byte per
 * element, 1 for true) with the strides an elementwise result gets. NaN is
 * unequal to everything, itself included (ne gives true). Never records
 * autograd history. CPU tensors.
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new bool tensor (one reference)
 * @return TSR_OK; tensors not on the CPU: TSR_ERR_UNSUPPORTED;
 * TSR_ERR_SHAPE_MISMATCH: sizes that do not broadcast ("The size of tensor
 * a (2) must match the size of tensor b (3) at non-singleton dimension 0");
 * the common statuses.
 */
TSR_API tsr_status tsr_le(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a > b elementwise (torch.gt), as a bool tensor.
 *
 * Same rules for tsr_eq(), tsr_ne(), tsr_lt(), tsr_le(), tsr_gt(), tsr_ge()
 * (torch.eq / ne / lt / le / gt / ge, Python's ==, !=, <, <=, >, >=):
 * a op b elementwise with broadcasting, computed in torch.result_type(a, b)
 * (int64 vs float32 compares in float32), as a bool tensor (one byte per
 * element, 1 for true) with the strides an elementwise result gets. NaN is
 * unequal to everything, itself included (ne gives true). Never records
 * autograd history. CPU tensors.
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new bool tensor (one reference)
 * @return TSR_OK; tensors not on the CPU: TSR_ERR_UNSUPPORTED;
 * TSR_ERR_SHAPE_MISMATCH: sizes that do not broadcast ("The size of tensor
 * a (2) must match the size of tensor b (3) at non-singleton dimension 0");
 * the common statuses.
 */
TSR_API tsr_status tsr_gt(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief a >= b elementwise (torch.ge), as a bool tensor.
 *
 * Same rules for tsr_eq(), tsr_ne(), tsr_lt(), tsr_le(), tsr_gt(), tsr_ge()
 * (torch.eq / ne / lt / le / gt / ge, Python's ==, !=, <, <=, >, >=):
 * a op b elementwise with broadcasting, computed in torch.result_type(a, b)
 * (int64 vs float32 compares in float32), as a bool tensor (one byte per
 * element, 1 for true) with the strides an elementwise result gets. NaN is
 * unequal to everything, itself included (ne gives true). Never records
 * autograd history. CPU tensors.
 * @param[in]  a   first operand
 * @param[in]  b   second operand
 * @param[out] out new bool tensor (one reference)
 * @return TSR_OK; tensors not on the CPU: TSR_ERR_UNSUPPORTED;
 * TSR_ERR_SHAPE_MISMATCH: sizes that do not broadcast ("The size of tensor
 * a (2) must match the size of tensor b (3) at non-singleton dimension 0");
 * the common statuses.
 */
TSR_API tsr_status tsr_ge(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);
/**
 * @brief torch.allclose(a, b, rtol, atol, equal_nan).
 *
 * *out = every |a - b| <= atol + rtol * |b| after broadcasting
 * (torch.isclose; equal infinities are close, NaNs only with equal_nan).
 * Empty tensors are close. *out untouched on error.
 * @param[in]  a         first tensor
 * @param[in]  b         second tensor
 * @param[in]  rtol      relative tolerance (torch's default 1e-5)
 * @param[in]  atol      absolute tolerance (torch's default 1e-8)
 * @param[in]  equal_nan whether NaNs at the same place are close
 * @param[out] out       the answer
 * @return TSR_OK; TSR_ERR_DTYPE_MISMATCH: dtypes differ ("float32 did not
 * match float64", torch's "Float did not match Double");
 * TSR_ERR_SHAPE_MISMATCH as the comparisons; TSR_ERR_UNSUPPORTED for
 * tensors not on the CPU; the common statuses.
 */
TSR_API tsr_status tsr_allclose(const tsr_tensor* a, const tsr_tensor* b, double rtol, double atol,
                                bool equal_nan, bool* out);
/**
 * @brief torch.abs: |a| in a's dtype.
 *
 * The most negative integer maps to itself (two's complement, as torch).
 * Gradient grad * sign(a) (AbsBackward0; zero at 0). CPU tensors.
 * @param[in]  a   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; bool: TSR_ERR_DTYPE_MISMATCH ("\"abs_cpu\" not implemented
 * for 'Bool'"); tensors not on the CPU: TSR_ERR_UNSUPPORTED; the common
 * statuses.
 */
TSR_API tsr_status tsr_abs(const tsr_tensor* a, tsr_tensor** out);

/* ---- linear algebra ---------------------------------------------------- */
/**
 * @brief torch.matmul for bfloat16, float16, float32 and float64.
 *
 * 1-D·1-D dot, 2-D·2-D, 1-D/2-D mixed, and batched (>2-D, batch dims
 * broadcast); operands of any strides (transposed ones are read in place).
 * float32/float64 through OpenBLAS; bfloat16 and float16 as float32 sums of
 * the exact products rounded once to the dtype (bfloat16 through oneDNN's
 * AVX512_BF16 kernels, as torch's; float16, which torch 1.13's CPU refuses,
 * as torch 2.x: through the float32 gemm). Every element comes out the same
 * whatever tsr_set_num_threads() says. Gradients are themselves products.
 * @param[in]  a   left operand
 * @param[in]  b   right operand, of a's dtype
 * @param[out] out new contiguous tensor (one reference)
 * @return TSR_OK; other dtypes: TSR_ERR_DTYPE_MISMATCH; different dtypes:
 * TSR_ERR_DTYPE_MISMATCH ("expected scalar type BFloat16 but found Float":
 * torch does not promote for matmul); sizes that do not agree:
 * TSR_ERR_SHAPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_matmul(const tsr_tensor* a, const tsr_tensor* b, tsr_tensor** out);

/* ---- reductions -------------------------------------------------------- */
/**
 * @brief Sum over dims (torch.sum).
 *
 * bool/integer inputs give int64 (as torch).
 * @param[in]  a       the input
 * @param[in]  n       number of dims; n == 0 reduces over all dims
 * @param[in]  dims    n dims, each in [-ndim, ndim), no repeats
 * @param[in]  keepdim keep reduced dims as size 1
 * @param[out] out     new contiguous tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_sum(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim,
                           tsr_tensor** out);
/**
 * @brief Mean over dims (torch.mean); floating inputs only.
 * @param[in]  a       the input
 * @param[in]  n       number of dims; n == 0 reduces over all dims
 * @param[in]  dims    n dims, each in [-ndim, ndim), no repeats
 * @param[in]  keepdim keep reduced dims as size 1
 * @param[out] out     new contiguous tensor (one reference)
 * @return TSR_OK; a non-floating input: TSR_ERR_DTYPE_MISMATCH, as torch;
 * the common statuses.
 */
TSR_API tsr_status tsr_mean(const tsr_tensor* a, int64_t n, const int64_t* dims, bool keepdim,
                            tsr_tensor** out);
/**
 * @brief torch.max(a, dim, keepdim): values (a's dtype) and indices (int64)
 * of the first maximum along dim. NaN is the maximum, as torch.
 * @param[in]  a       the input
 * @param[in]  dim     the dim
 * @param[in]  keepdim keep dim as size 1
 * @param[out] values  new tensor (one reference); may be NULL if not wanted
 *                     (not both)
 * @param[out] indices new int64 tensor (one reference); may be NULL if not
 *                     wanted (not both)
 * @return TSR_OK; empty dim: TSR_ERR_SHAPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_max_dim(const tsr_tensor* a, int64_t dim, bool keepdim,
                               tsr_tensor** values, tsr_tensor** indices);
/**
 * @brief torch.max(a): largest element as a 0-dim tensor.
 * @param[in]  a   the input
 * @param[out] out new 0-dim tensor (one reference)
 * @return TSR_OK; empty: TSR_ERR_SHAPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_max(const tsr_tensor* a, tsr_tensor** out);
/**
 * @brief torch.argmax(a, dim, keepdim) as int64.
 * @param[in]  a       the input
 * @param[in]  dim     the dim
 * @param[in]  keepdim keep dim as size 1
 * @param[out] out     new int64 tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_argmax(const tsr_tensor* a, int64_t dim, bool keepdim, tsr_tensor** out);

/* ---- neural-network functions ----------------------------------------- */
/**
 * @brief torch.log_softmax(a, dim), floating a. Numerically stable
 * (max-shifted).
 * @param[in]  a   the input
 * @param[in]  dim the dim
 * @param[out] out new contiguous tensor (one reference)
 * @return TSR_OK; the common statuses.
 */
TSR_API tsr_status tsr_log_softmax(const tsr_tensor* a, int64_t dim, tsr_tensor** out);
/**
 * @brief torch.nn.functional.cross_entropy(logits, target) with reduction
 * "mean".
 * @param[in]  logits [N, C], floating
 * @param[in]  target [N] int64 class indices in [0, C)
 * @param[out] out    new 0-dim tensor (one reference)
 * @return TSR_OK; a class index outside [0, C): TSR_ERR_INDEX_OUT_OF_RANGE;
 * the common statuses.
 */
TSR_API tsr_status tsr_cross_entropy(const tsr_tensor* logits, const tsr_tensor* target,
                                     tsr_tensor** out);

/* ---- layers and activations (torch.nn.functional): rules in the file
 * comment ------------------------------------------------------------- */

/**
 * @brief torch.nn.functional.linear: out = x @ weight^T + bias.
 *
 * One dtype: float32 or float64 (OpenBLAS), or bfloat16 or float16 (the
 * products and the bias summed in float32, rounded once; float16, which
 * torch 1.13's CPU refuses, as torch 2.x). grad_fn as torch 1.13's
 * at::linear leaves it:
 * AddmmBackward0 (2-D x with bias), ViewBackward0 (contiguous 3-D x with
 * bias), AddBackward0 (other x with bias), MmBackward0 / SqueezeBackward3 /
 * UnsafeViewBackward0 (2-D / 1-D / other x without bias). The rules of
 * @ref ops_nn "layers and activations" apply.
 * @param[in]  x      [*, in_features] (at least 1-D)
 * @param[in]  weight [out_features, in_features] (2-D; weight is read
 *                    transposed in place, never copied)
 * @param[in]  bias   NULL or [out_features] (any shape that expands to the
 *                    output's sizes is taken)
 * @param[out] out    new tensor [*, out_features], contiguous (one reference)
 * @return TSR_OK; TSR_ERR_SHAPE_MISMATCH: in_features differ ("mat1 and mat2
 * shapes cannot be multiplied (6x4 and 3x5)", x's leading dims folded),
 * 0-dim x, weight not 2-D, bias that does not expand ("The expanded size of
 * the tensor (5) must match the existing size (4) ...").
 * TSR_ERR_DTYPE_MISMATCH: dtypes differ ("self and mat2 must have the same
 * dtype"), bool (torch's "\"addmm_impl_cpu_\" not implemented for
 * 'Bool'"), integers (torch takes them; OpenBLAS has no integer gemm).
 * The common statuses.
 */
TSR_API tsr_status tsr_linear(const tsr_tensor* x, const tsr_tensor* weight,
                              const tsr_tensor* bias, tsr_tensor** out);

/** @brief torch.nn.functional.gelu's `approximate` argument. */
typedef enum tsr_gelu_approximate {
  TSR_GELU_NONE = 0, /**< x * Phi(x), Phi the normal CDF (erf)            */
  TSR_GELU_TANH = 1  /**< 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
} tsr_gelu_approximate;

/**
 * @brief torch.nn.functional.gelu(x, approximate). grad_fn GeluBackward0.
 * @param[in]  x           bfloat16/float32/float64
 * @param[in]  approximate TSR_GELU_NONE or TSR_GELU_TANH
 * @param[out] out         new tensor (one reference)
 * @return TSR_OK; other dtypes: TSR_ERR_DTYPE_MISMATCH, as torch; an
 * approximate value outside the enum: TSR_ERR_INVALID_ARGUMENT
 * ("approximate argument must be either none or tanh."); the common
 * statuses.
 */
TSR_API tsr_status tsr_gelu(const tsr_tensor* x, tsr_gelu_approximate approximate, tsr_tensor** out);
/**
 * @brief torch.tanh. grad_fn TanhBackward0.
 *
 * bfloat16/float32/float64 keep their dtype; integer and bool inputs give
 * float32 (as torch).
 * @param[in]  x   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; float16: TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_tanh(const tsr_tensor* x, tsr_tensor** out);
/**
 * @brief torch.sigmoid (1 / (1 + e^-x)). grad_fn SigmoidBackward0.
 *
 * bfloat16/float32/float64 keep their dtype; integer and bool inputs give
 * float32 (as torch).
 * @param[in]  x   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; float16: TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_sigmoid(const tsr_tensor* x, tsr_tensor** out);
/**
 * @brief torch.sqrt (NaN below 0). grad_fn SqrtBackward0.
 *
 * bfloat16/float32/float64 keep their dtype; integer and bool inputs give
 * float32 (as torch).
 * @param[in]  x   the input
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; float16: TSR_ERR_DTYPE_MISMATCH; the common statuses.
 */
TSR_API tsr_status tsr_sqrt(const tsr_tensor* x, tsr_tensor** out);
/**
 * @brief torch.pow(x, exponent) with exponent a Python float.
 *
 * Floating x keeps its dtype (float16 too), integer and bool x give float32
 * (as torch with a float exponent). Computed as ATen does (x*x for 2, sqrt
 * for 0.5, ...). grad_fn PowBackward0: exponent * x^(exponent-1), zeros for
 * exponent 0.
 * @param[in]  x        the base
 * @param[in]  exponent the exponent
 * @param[out] out      new tensor (one reference)
 * @return TSR_OK; an exponent beyond a 16-bit x's range:
 * TSR_ERR_INVALID_ARGUMENT (torch's "value cannot be converted to type
 * at::Half without overflow"); the common statuses.
 */
TSR_API tsr_status tsr_pow_scalar(const tsr_tensor* x, double exponent, tsr_tensor** out);
/**
 * @brief torch.pow(x, exponent) elementwise, broadcasting, dtype
 * torch.result_type(x, exponent).
 *
 * Integer powers by repeated squaring, wrapping on overflow; a negative
 * integer exponent gives 0 unless the base is 1 or -1 (ATen's powi).
 * grad_fn PowBackward1; gradients flow to both (torch's formulas: 0 where
 * exponent == 0 for x; 0 where x == 0 and exponent >= 0 for exponent).
 * @param[in]  x        the base
 * @param[in]  exponent the exponent
 * @param[out] out      new tensor (one reference)
 * @return TSR_OK; bool (both operands bool): TSR_ERR_DTYPE_MISMATCH
 * ("\"pow\" not implemented for 'Bool'"); the common statuses.
 */
TSR_API tsr_status tsr_pow(const tsr_tensor* x, const tsr_tensor* exponent, tsr_tensor** out);
/**
 * @brief torch.clamp(x, min, max) with optional bounds.
 *
 * The bounds are read during the call only. bfloat16/float32/float64 x
 * keeps its dtype, integer and bool x give float32. min > max gives max
 * everywhere; NaN in x stays NaN; a NaN bound with both given makes every
 * element NaN, a lone NaN bound leaves x as it is (torch 1.13). grad_fn
 * ClampBackward1: the gradient passes where min <= x <= max, else 0.
 * @param[in]  x   the input
 * @param[in]  min points to a Python float bound, or NULL for none
 * @param[in]  max points to a Python float bound, or NULL for none
 * @param[out] out new tensor (one reference)
 * @return TSR_OK; min and max both NULL: TSR_ERR_INVALID_ARGUMENT
 * ("torch.clamp: At least one of 'min' or 'max' must not be None"); float16:
 * TSR_ERR_DTYPE_MISMATCH; a finite bound beyond the result dtype's range:
 * TSR_ERR_INVALID_ARGUMENT ("value cannot be converted to type float
 * without overflow"); the common statuses.
 */
TSR_API tsr_status tsr_clamp(const tsr_tensor* x, const double* min, const double* max, tsr_tensor** out);

/* ---- normalisation ------------------------------------------------------ */
/**
 * @brief torch.softmax(x, dim): exp(x - max) / sum(exp(x - max)) along dim.
 *
 * grad_fn SoftmaxBackward0.
 * @param[in]  x   bfloat16/float32/float64
 * @param[in]  dim in [-ndim, ndim); a 0-dim x takes 0 or -1 and gives 1
 * @param[out] out new tensor with x's sizes and dtype, contiguous (one
 *                 reference)
 * @return TSR_OK; other dtypes: TSR_ERR_DTYPE_MISMATCH (torch's
 * "\"softmax_kernel_impl\" not implemented for 'Long'"); the common
 * statuses.
 */
TSR_API tsr_status tsr_softmax(const tsr_tensor* x, int64_t dim, tsr_tensor** out);
/**
 * @brief torch.nn.functional.layer_norm(x, normalized_shape, weight, bias,
 * eps).
 *
 * Over the trailing n_normalized dims of x, which must equal
 * normalized_shape[0..n_normalized),
 *     out = (x - mean) / sqrt(var + eps) * weight + bias
 * with the biased variance. grad_fn NativeLayerNormBackward0; gradients flow
 * to x, weight and bias.
 * @param[in]  x                bfloat16/float32/float64
 * @param[in]  n_normalized     number of trailing dims normalized
 * @param[in]  normalized_shape n_normalized sizes (copied on entry)
 * @param[in]  weight           NULL or of sizes normalized_shape and x's dtype
 * @param[in]  bias             NULL or of sizes normalized_shape and x's dtype
 * @param[in]  eps              added to the variance
 * @param[out] out              new tensor with x's sizes, contiguous (one
 *                              reference)
 * @return TSR_OK; TSR_ERR_SHAPE_MISMATCH (torch's messages):
 * n_normalized == 0 ("Expected normalized_shape to be at least
 * 1-dimensional"), x's trailing sizes differ ("Given normalized_shape=[5],
 * expected input with shape [*, 5], but got input of size[3, 4]"),
 * weight/bias of other sizes. TSR_ERR_DTYPE_MISMATCH: other dtypes,
 * weight/bias of another dtype ("expected scalar type Float but found
 * Double"). TSR_ERR_INVALID_ARGUMENT: n_normalized < 0 or above 64,
 * normalized_shape NULL with n_normalized > 0, negative sizes. The common
 * statuses.
 */
TSR_API tsr_status tsr_layer_norm(const tsr_tensor* x, int64_t n_normalized,
                                  const int64_t* normalized_shape, const tsr_tensor* weight,
                                  const tsr_tensor* bias, double eps, tsr_tensor** out);

/* ---- joining ------------------------------------------------------------ */
/**
 * @brief torch.cat(tensors[0..n), dim): the tensors joined along dim, which
 * every other dim must agree on.
 *
 * dtype: the promotion of all inputs' dtypes (as torch.cat: bool < integers
 * < floats, float16 with bfloat16 gives float32). Layout: channels_last when
 * every input suggests it, else contiguous. As torch's legacy rule, 1-D
 * empty tensors ([0]) are skipped in the size checks and take no part in
 * dim's range (the dtype still counts). grad_fn CatBackward0.
 * @param[in]  n       number of tensors
 * @param[in]  tensors n handles, borrowed for the call
 * @param[in]  dim     the dim to join along
 * @param[out] out     new tensor (one reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT: n == 0 ("torch.cat(): expected a
 * non-empty list of Tensors"), n < 0, tensors or one of them NULL, dim out
 * of range. TSR_ERR_SHAPE_MISMATCH (torch's messages): a 0-dim input
 * ("zero-dimensional tensor (at position 0) cannot be concatenated"),
 * different ndims ("Tensors must have same number of dimensions: got 2 and
 * 3"), sizes that differ outside dim ("Sizes of tensors must match except
 * in dimension 0. Expected size 4 but got size 5 for tensor number 1 in the
 * list."). The common statuses.
 */
TSR_API tsr_status tsr_cat(int64_t n, const tsr_tensor* const* tensors, int64_t dim, tsr_tensor** out);
/**
 * @brief torch.stack(tensors[0..n), dim): the tensors, all of one size,
 * joined along a new dim.
 *
 * dtype as tsr_cat(); the result is cat's along dim seen with the new dim
 * split off (so a channels_last input stays channels_last-ordered), or
 * contiguous for dim == ndim. grad_fn StackBackward0.
 * @param[in]  n       number of tensors
 * @param[in]  tensors n handles, borrowed for the call
 * @param[in]  dim     position of the new dim, in [-(ndim+1), ndim]
 * @param[out] out     new tensor (one reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT: n == 0 ("stack expects a
 * non-empty TensorList"), n < 0, NULL handles, dim out of range.
 * TSR_ERR_SHAPE_MISMATCH: sizes differ ("stack expects each tensor to be
 * equal size, but got [3, 4] at entry 0 and [3, 5] at entry 1"). The common
 * statuses.
 */
TSR_API tsr_status tsr_stack(int64_t n, const tsr_tensor* const* tensors, int64_t dim, tsr_tensor** out);

/* ---- selection and indexing -------------------------------------------- */
/**
 * @brief torch.where(cond, a, b): a where cond is true, else b.
 *
 * All three broadcast; dtype torch.result_type(a, b). grad_fn
 * WhereBackward0; gradients flow to a and b.
 * @param[in]  cond bool (uint8 is taken too, as torch 1.13 does)
 * @param[in]  a    values where cond is true
 * @param[in]  b    values where cond is false
 * @param[out] out  new tensor (one reference)
 * @return TSR_OK; cond of another dtype: TSR_ERR_DTYPE_MISMATCH ("where
 * expected condition to be a boolean tensor, but got a tensor with dtype
 * Float"); the common statuses.
 */
TSR_API tsr_status tsr_where(const tsr_tensor* cond, const tsr_tensor* a, const tsr_tensor* b,
                             tsr_tensor** out);
/**
 * @brief torch.index_select(x, dim, index): the slices of x along dim at the
 * positions in index.
 *
 * grad_fn IndexSelectBackward0: x's gradient is zeros.index_add_(dim,
 * index, grad), repeated indices accumulating.
 * @param[in]  x     the input
 * @param[in]  dim   the dim
 * @param[in]  index 0-D or 1-D, int32 or int64, repeats allowed; no negative
 *                   indices
 * @param[out] out   new tensor (one reference): x's sizes with dim's
 *                   replaced by index's numel (a 0-dim x stays 0-dim and
 *                   takes index 0 only), x's dtype, contiguous
 * @return TSR_OK; an index outside [0, size of dim):
 * TSR_ERR_INDEX_OUT_OF_RANGE ("index out of range in self", naming the
 * index, its position and the size). TSR_ERR_SHAPE_MISMATCH: index of 2 or
 * more dims ("index_select(): Index is supposed to be a vector").
 * TSR_ERR_DTYPE_MISMATCH: index neither int32 nor int64. The common
 * statuses.
 */
TSR_API tsr_status tsr_index_select(const tsr_tensor* x, int64_t dim, const tsr_tensor* index,
                                    tsr_tensor** out);
/**
 * @brief torch.gather(x, dim, index): out[i][j][k] = x[index[i][j][k]][j][k]
 * for dim 0 (and so on).
 *
 * grad_fn GatherBackward0: x's gradient is zeros.scatter_add_(dim, index,
 * grad).
 * @param[in]  x     the input
 * @param[in]  dim   the dim
 * @param[in]  index int64 with x's ndim and, outside dim, sizes no larger
 *                   than x's
 * @param[out] out   new tensor (one reference): index's sizes, x's dtype,
 *                   contiguous
 * @return TSR_OK; TSR_ERR_INDEX_OUT_OF_RANGE: "index 4 is out of bounds for
 * dimension 1 with size 4" (torch's message). TSR_ERR_SHAPE_MISMATCH: "Index
 * tensor must have the same number of dimensions as input tensor", "Size
 * does not match at dimension 0 expected index [4, 2] to be smaller than
 * self [3, 4] apart from dimension 1". TSR_ERR_DTYPE_MISMATCH: index not
 * int64 ("gather(): Expected dtype int64 for index"). The common statuses.
 */
TSR_API tsr_status tsr_gather(const tsr_tensor* x, int64_t dim, const tsr_tensor* index,
                              tsr_tensor** out);
/**
 * @brief torch.nn.functional.embedding(indices, weight): the rows of weight
 * picked by indices.
 *
 * grad_fn EmbeddingBackward0: weight's gradient is zeros [V, D] with each
 * row of the gradient added into its index's row (torch's
 * embedding_dense_backward without padding_idx or scale_grad_by_freq).
 * @param[in]  weight  [V, D]
 * @param[in]  indices int32 or int64, any shape
 * @param[out] out     new tensor (one reference): indices' sizes + [D],
 *                     weight's dtype, contiguous
 * @return TSR_OK; TSR_ERR_INDEX_OUT_OF_RANGE: an index outside [0, V)
 * ("index out of range in self"). TSR_ERR_SHAPE_MISMATCH: weight not 2-D
 * ("'weight' must be 2-D"). TSR_ERR_DTYPE_MISMATCH: indices neither int32
 * nor int64 (torch's "Expected tensor for argument #1 'indices' to have one
 * of the following scalar types: Long, Int"). The common statuses.
 */
TSR_API tsr_status tsr_embedding(const tsr_tensor* weight, const tsr_tensor* indices, tsr_tensor** out);

#ifdef __cplusplus
}
#endif
#endif
