/**
 * @file tessera/indexing.h
 * @brief Indexing by tensors and masks: masked_fill, masked_select, nonzero,
 * scatter family, index_put_, index_add_, index_copy_, take_along_dim.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_INDEXING_H
#define TESSERA_INDEXING_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
