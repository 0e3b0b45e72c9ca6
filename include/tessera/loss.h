/**
 * @file tessera/loss.h
 * @brief Loss functions (torch.nn.functional): mse, l1, smooth_l1, huber, kl_div, nll, cross_entropy, binary cross entropy.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_LOSS_H
#define TESSERA_LOSS_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
