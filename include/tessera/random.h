/* tessera/random.h — explicit, seeded random generators.
 *
 * A generator is a handle holding the engine state (mt19937_64). The same
 * seed gives the same numbers on every platform. Generators are not
 * thread-safe: use one per thread or lock. Values do not match torch's
 * generator bit for bit; distributions match (uniform [0,1), standard normal).
 */
#ifndef TESSERA_RANDOM_H
#define TESSERA_RANDOM_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* New generator seeded with seed (torch.Generator().manual_seed(seed)).
 * *out: new reference. NULL out: TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_generator_create(uint64_t seed, tsr_generator** out);
/* Add / drop one reference; the last release frees the generator. NULL is
 * ignored. Thread-safe (the generator's use is not: see above). */
TSR_API void tsr_generator_retain(tsr_generator* g);
TSR_API void tsr_generator_release(tsr_generator* g);
/* Re-seeds g (torch.Generator.manual_seed): the same seed restarts the same
 * sequence. NULL g: TSR_ERR_INVALID_ARGUMENT. */
TSR_API tsr_status tsr_generator_manual_seed(tsr_generator* g, uint64_t seed);

/* torch.rand / torch.randn with generator=g: a contiguous CPU tensor of
 * `sizes` (ndim entries, elements) holding uniform [0,1) / standard normal
 * values. *out: new reference. dtype must be floating (float16, bfloat16,
 * float32, float64), else TSR_ERR_DTYPE_MISMATCH; NULL g/out, a negative
 * size or an invalid dtype: TSR_ERR_INVALID_ARGUMENT; TSR_ERR_OUT_OF_MEMORY.
 * Advances g only on success. */
TSR_API tsr_status tsr_rand(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                            tsr_generator* g, tsr_tensor** out);
TSR_API tsr_status tsr_randn(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                             tsr_generator* g, tsr_tensor** out);
/* torch.randperm(n, generator=g): a 1-D int64 tensor of n elements holding a
 * random permutation of [0, n) (Fisher-Yates). *out: new reference. n < 0 or
 * NULL g/out: TSR_ERR_INVALID_ARGUMENT; TSR_ERR_OUT_OF_MEMORY. */
TSR_API tsr_status tsr_randperm(int64_t n, tsr_generator* g, tsr_tensor** out);

#ifdef __cplusplus
}
#endif
#endif
