/* tessera/parallel.h — how many threads tessera's kernels use.
 *
 * The model is torch.set_num_threads / torch.get_num_threads (intra-op
 * parallelism). Threaded kernels: OpenBLAS's (matmul, linear) and copies
 * and dtype conversions (split into chunks of at least 32,768 elements,
 * PyTorch's grain size; a copy's result never depends on the count). The
 * other kernels run on the calling thread. On a small machine, fewer BLAS
 * threads can be faster overall: OpenBLAS's idle threads spin while
 * single-threaded kernels run beside them.
 */
#ifndef TESSERA_PARALLEL_H
#define TESSERA_PARALLEL_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the number of threads kernels may use (process-wide, as torch's).
 * n < 1: TSR_ERR_INVALID_ARGUMENT (torch: "set_num_threads expects a
 * positive integer"), nothing changed. Not meant to be called while other
 * threads run kernels. */
TSR_API tsr_status tsr_set_num_threads(int64_t n);
/* The number of threads kernels may use: the last tsr_set_num_threads, or
 * the default (OPENBLAS_NUM_THREADS if set, else one per core). Never fails. */
TSR_API int64_t tsr_get_num_threads(void);

#ifdef __cplusplus
}
#endif
#endif
