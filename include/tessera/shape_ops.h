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

#ifdef __cplusplus
}
#endif

#endif
