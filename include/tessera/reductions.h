/**
 * @file tessera/reductions.h
 * @brief Scans and statistics: cumsum, cumprod, prod, var/std/var_mean, logsumexp, norm, any/all, min/argmin, minimum/maximum.
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

#ifdef __cplusplus
}
#endif

#endif
