/**
 * @file tessera/clip_grad.h
 * @brief Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_).
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Both
 * work on the .grad of each of an array of parameters (parameters without
 * a .grad are skipped, as torch does), in place, under no_grad, with the
 * library's ops (so gradients of any strides and on any device those ops
 * reach; each written gradient's version counter is bumped). Every
 * gradient is checked writable before any is changed: a gradient with
 * overlapping elements (an expanded one) is TSR_ERR_INVALID_ARGUMENT and
 * nothing changes. NULL params with num_params > 0 or a NULL params[i]:
 * TSR_ERR_INVALID_ARGUMENT.
 */
#ifndef TESSERA_CLIP_GRAD_H
#define TESSERA_CLIP_GRAD_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type,
 * error_if_nonfinite) of torch 1.13.
 *
 * total = vector_norm(stack([vector_norm(g, norm_type) for g in grads]),
 * norm_type) (norm_type inf: the largest |g|), each norm moved to the first
 * gradient's device; then every g is multiplied in place by
 * clamp(max_norm / (total + 1e-6), max=1.0), computed in total's dtype
 * (float32 for float32 gradients), so gradients whose total norm is below
 * max_norm are multiplied by 1.
 * @param[in]  params             num_params parameters (their .grad is clipped)
 * @param[in]  num_params         number of parameters (0 is allowed)
 * @param[in]  max_norm           the largest total norm kept
 * @param[in]  norm_type          the p of the p-norm: any value; INFINITY for
 *                                the max norm (torch's 2.0 by default)
 * @param[in]  error_if_nonfinite true: a total norm that is NaN or infinite is
 *                                an error and nothing is scaled
 * @param[out] total_norm         new reference to the total norm, a 0-dim
 *                                tensor (dtype of the stacked norms, on the
 *                                first gradient's device); without any
 *                                gradient a float32 CPU 0 (torch.tensor(0.))
 * @return TSR_OK; non-finite total with error_if_nonfinite:
 * TSR_ERR_INVALID_ARGUMENT with torch's RuntimeError message ("The total
 * norm of order 2.0 for gradients from `parameters` is non-finite, so it
 * cannot be clipped. ..."), nothing changed; NULL total_norm and the
 * statuses of the file comment: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY. *total_norm is untouched on failure.
 */
TSR_API tsr_status tsr_clip_grad_norm_(tsr_tensor* const* params, size_t num_params, double max_norm,
                                       double norm_type, bool error_if_nonfinite, tsr_tensor** total_norm);

/**
 * @brief torch.nn.utils.clip_grad_value_(params, clip_value): every
 * gradient clamped in place to [-clip_value, clip_value], as torch's
 * clamp_(min=-clip_value, max=clip_value) (for a negative clip_value the
 * max wins: every element becomes clip_value).
 * @param[in] params     num_params parameters (their .grad is clipped)
 * @param[in] num_params number of parameters (0 is allowed)
 * @param[in] clip_value the bound
 * @return TSR_OK; the statuses of the file comment; TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_clip_grad_value_(tsr_tensor* const* params, size_t num_params, double clip_value);

#ifdef __cplusplus
}
#endif

#endif
