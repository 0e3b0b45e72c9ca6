/**
 * @file tessera/linalg.h
 * @brief Batched matrix products and the outer product: bmm, baddbmm, outer.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_LINALG_H
#define TESSERA_LINALG_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Batched matrix product (torch.bmm): out[i] = batch1[i] @ batch2[i].
 *
 * Any strides (transposed, expanded batches); the result is contiguous
 * [b, n, p], grad_fn BmmBackward0 (gradients grad @ batch2^T and
 * batch1^T @ grad, themselves differentiable). Empty batches and empty
 * inner dims (zeros) as torch. dtypes: bfloat16, float16, float32 and
 * float64, both operands the same, as tsr_matmul() (16-bit: float32 sums
 * rounded once; torch 1.13's CPU refuses float16, torch 2.x takes it);
 * torch also takes integer operands, refused here.
 * @param batch1 [b, n, m] tensor (borrowed)
 * @param batch2 [b, m, p] tensor of batch1's dtype (borrowed)
 * @param out    receives the [b, n, p] result (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL argument;
 *         TSR_ERR_SHAPE_MISMATCH for an operand that is not 3-D ("batch1
 *         must be a 3D tensor") or sizes that do not match ("Expected size
 *         for first two dimensions of batch2 tensor to be: [b, m] but got:
 *         [...]."); TSR_ERR_DTYPE_MISMATCH for different dtypes ("expected
 *         scalar type Float but found Double") or an integer or bool dtype.
 */
TSR_API tsr_status tsr_bmm(const tsr_tensor* batch1, const tsr_tensor* batch2, tsr_tensor** out);

/**
 * @brief beta * input + alpha * (batch1 @ batch2) (torch.baddbmm).
 *
 * input broadcasts to [b, n, p] and is converted to the batches' dtype;
 * with beta == 0 input is ignored (NaN and inf in it too), as torch. The
 * result is contiguous [b, n, p], grad_fn BaddbmmBackward0: input's
 * gradient is beta * grad summed to input's sizes, batch1's alpha * grad @
 * batch2^T, batch2's alpha * batch1^T @ grad. dtypes as tsr_bmm();
 * bfloat16/float16: alpha * product + beta * input on the float32 sums,
 * rounded once (as torch's oneDNN kernel).
 * @param input  tensor broadcastable to [b, n, p] (borrowed)
 * @param batch1 [b, n, m] tensor (borrowed)
 * @param batch2 [b, m, p] tensor of batch1's dtype (borrowed)
 * @param beta   multiplier of input (torch's default 1)
 * @param alpha  multiplier of the product (torch's default 1)
 * @param out    receives the [b, n, p] result (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL argument; the
 *         statuses of tsr_bmm() for batch1 and batch2; TSR_ERR_SHAPE_MISMATCH
 *         when input does not broadcast ("The expanded size of the tensor
 *         (5) must match the existing size (3) at non-singleton dimension
 *         2. ...").
 */
TSR_API tsr_status tsr_baddbmm(const tsr_tensor* input, const tsr_tensor* batch1, const tsr_tensor* batch2,
                               double beta, double alpha, tsr_tensor** out);

/**
 * @brief Outer product (torch.outer): out[i][j] = input[i] * vec2[j].
 *
 * As torch, input viewed as a column times vec2 (grad_fn MulBackward0):
 * any strides, every dtype tsr_mul() takes, promoted as tsr_mul();
 * result contiguous [n, m].
 * @param input [n] tensor (borrowed)
 * @param vec2  [m] tensor (borrowed)
 * @param out   receives the [n, m] result (new reference)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL argument;
 *         TSR_ERR_SHAPE_MISMATCH for an operand that is not 1-D ("outer:
 *         Expected 1-D argument self, but got 2-D"); tsr_mul()'s dtype
 *         statuses.
 */
TSR_API tsr_status tsr_outer(const tsr_tensor* input, const tsr_tensor* vec2, tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif
