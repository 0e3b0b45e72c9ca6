/**
 * @file tessera/clip_grad.h
 * @brief Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_).
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_CLIP_GRAD_H
#define TESSERA_CLIP_GRAD_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
