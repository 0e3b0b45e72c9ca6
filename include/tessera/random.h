/**
 * @file tessera/random.h
 * @brief Explicit, seeded random generators.
 *
 * A generator is a handle holding a counter-based Philox4x32-10 stream (the
 * generator PyTorch uses on CUDA): its whole state is (seed, offset), the
 * offset counting the 32-bit words drawn so far. An op reserves the words it
 * needs and computes each from (seed, position) alone, so the same
 * (seed, offset) gives the same numbers on every platform, in a checkpoint
 * replay (checkpoint.h) and on every device. Generators are not
 * thread-safe: use one per thread or lock. Values do not match torch's CPU
 * generator (mt19937) bit for bit; distributions match (uniform [0,1),
 * standard normal). tessera 0.1 used mt19937_64: the same seed now gives
 * other numbers (see docs/CHANGELOG.md).
 */
#ifndef TESSERA_RANDOM_H
#define TESSERA_RANDOM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief New generator seeded with seed (torch.Generator().manual_seed(seed)).
 * @param[in]  seed the seed
 * @param[out] out  new reference
 * @return TSR_OK; NULL out: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_generator_create(uint64_t seed, tsr_generator** out);
/**
 * @brief Adds one reference. NULL is ignored. Thread-safe (the generator's
 * use is not: see above).
 * @param[in] g the generator, or NULL
 */
TSR_API void tsr_generator_retain(tsr_generator* g);
/**
 * @brief Drops one reference; the last release frees the generator. NULL is
 * ignored. Thread-safe (the generator's use is not: see above).
 * @param[in] g the generator, or NULL
 */
TSR_API void tsr_generator_release(tsr_generator* g);
/**
 * @brief Re-seeds g (torch.Generator.manual_seed): the same seed restarts the
 * same sequence.
 * @param[in,out] g    the generator
 * @param[in]     seed the seed
 * @return TSR_OK; NULL g: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_generator_manual_seed(tsr_generator* g, uint64_t seed);

/**
 * @brief The generator's position: seed and the number of 32-bit words drawn
 * (torch's Philox seed and offset).
 * @param[in]  g      the generator
 * @param[out] seed   its seed
 * @param[out] offset 32-bit words drawn so far
 * @return TSR_OK; NULL g/seed/offset: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_generator_get_state(const tsr_generator* g, uint64_t* seed, uint64_t* offset);
/**
 * @brief Moves g to (seed, offset): the next op draws what an op at that
 * position drew before.
 * @param[in,out] g      the generator
 * @param[in]     seed   the seed
 * @param[in]     offset position, in 32-bit words
 * @return TSR_OK; NULL g: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_generator_set_state(tsr_generator* g, uint64_t seed, uint64_t offset);

/**
 * @brief torch.rand with generator=g: a contiguous CPU tensor of `sizes`
 * holding uniform [0,1) values.
 *
 * Advances g only on success.
 * @param[in]     ndim  number of dims
 * @param[in]     sizes ndim sizes, in elements
 * @param[in]     dtype must be floating (float16, bfloat16, float32, float64)
 * @param[in,out] g     the generator
 * @param[out]    out   new reference
 * @return TSR_OK; a non-floating dtype: TSR_ERR_DTYPE_MISMATCH; NULL g/out,
 * a negative size or an invalid dtype: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_rand(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                            tsr_generator* g, tsr_tensor** out);
/**
 * @brief torch.randn with generator=g: a contiguous CPU tensor of `sizes`
 * holding standard normal values.
 *
 * Advances g only on success.
 * @param[in]     ndim  number of dims
 * @param[in]     sizes ndim sizes, in elements
 * @param[in]     dtype must be floating (float16, bfloat16, float32, float64)
 * @param[in,out] g     the generator
 * @param[out]    out   new reference
 * @return TSR_OK; a non-floating dtype: TSR_ERR_DTYPE_MISMATCH; NULL g/out,
 * a negative size or an invalid dtype: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_randn(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                             tsr_generator* g, tsr_tensor** out);
/**
 * @brief torch.randperm(n, generator=g): a 1-D int64 tensor of n elements
 * holding a random permutation of [0, n) (Fisher-Yates).
 * @param[in]     n   number of elements
 * @param[in,out] g   the generator
 * @param[out]    out new reference
 * @return TSR_OK; n < 0 or NULL g/out: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_randperm(int64_t n, tsr_generator* g, tsr_tensor** out);

/**
 * @brief torch.nn.functional.dropout(x, p, training=train, generator=g) as
 * torch 1.13 computes it on CPU.
 *
 * *out = x * noise with noise = bernoulli(1 - p) / (1 - p), same sizes as x,
 * strides as an elementwise op gives them; with history, grad_fn
 * MulBackward0 (gradient grad * noise). Element i of x in C order keeps its
 * value when word offset+i of g's stream, as a 24-bit uniform, is below
 * 1 - p; g advances by numel(x) words. Not train, or p == 0, or an empty x:
 * *out is a new reference to x itself (torch returns the input) and g does
 * not advance. p == 1: zeros. Inside a checkpoint region a replay draws the
 * same mask (preserve_rng_state).
 * @param[in]     x     the input
 * @param[in]     p     probability of zeroing an element, in [0, 1]
 * @param[in]     train false: no dropout
 * @param[in,out] g     the generator
 * @param[out]    out   new reference
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL x/g/out or p outside
 * [0, 1] (torch's "dropout probability has to be between 0 and 1, but got
 * p"); TSR_ERR_DTYPE_MISMATCH for a non-floating x; TSR_ERR_OUT_OF_MEMORY.
 * On failure g does not advance.
 */
TSR_API tsr_status tsr_dropout(const tsr_tensor* x, double p, bool train, tsr_generator* g,
                               tsr_tensor** out);

#ifdef __cplusplus
}
#endif
#endif
