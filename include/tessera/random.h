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

/* New generator seeded with seed. *out: new reference. */
TSR_API tsr_status tsr_generator_create(uint64_t seed, tsr_generator** out);
TSR_API void tsr_generator_retain(tsr_generator* g);
TSR_API void tsr_generator_release(tsr_generator* g);
/* Re-seeds g (torch.Generator.manual_seed). */
TSR_API tsr_status tsr_generator_manual_seed(tsr_generator* g, uint64_t seed);

/* torch.rand / torch.randn with generator=g: contiguous tensor of uniform
 * [0,1) / standard normal values. dtype must be floating (float16, bfloat16,
 * float32, float64), else TSR_ERR_DTYPE_MISMATCH. Advances g. */
TSR_API tsr_status tsr_rand(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                            tsr_generator* g, tsr_tensor** out);
TSR_API tsr_status tsr_randn(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                             tsr_generator* g, tsr_tensor** out);
/* torch.randperm(n, generator=g) as int64: a random permutation of [0, n). */
TSR_API tsr_status tsr_randperm(int64_t n, tsr_generator* g, tsr_tensor** out);

#ifdef __cplusplus
}
#endif
#endif
