/**
 * @file tessera/parallel.h
 * @brief How many threads tessera's kernels use.
 *
 * The model is torch.set_num_threads / torch.get_num_threads (intra-op
 * parallelism). Threaded kernels: matmul and linear (OpenBLAS gemms on
 * row blocks of the output, of over a million multiply-adds each: OpenBLAS's
 * own threads are turned off when tessera loads, so a program that also
 * calls OpenBLAS directly gets one thread from it), copies and dtype
 * conversions, and the reductions (sum, mean, max/argmax over dims), which
 * split work of at least 32,768 elements (PyTorch's grain size) over a
 * small pool of threads; convolution, average pooling and batch norm in
 * float32 run on oneDNN, whose OpenMP threads number tsr_get_num_threads()
 * during each call (OpenMP's per-thread setting, restored after the call,
 * so an application's own OpenMP code keeps its count); max and adaptive
 * pooling split over (batch, channel) planes with the pool; the other
 * kernels run on the calling thread.
 * Results never depend on the thread count, with one exception: a copy's
 * chunks are disjoint, float sums are split into chunks fixed by the sizes
 * and combined in a fixed order, and a gemm's rows are computed as on one
 * thread. The exception is oneDNN's float32 kernels: a convolution's
 * weight gradient and batch norm's statistics are reductions oneDNN splits
 * by thread, so their last bits can change with the count, as PyTorch's
 * do (examples/fashion's loss after 63 steps: 0.7100 on 2 threads, 0.7096
 * on 1).
 *
 * Convolution, pooling and batch norm run in oneDNN, whose Debian build
 * uses the OpenMP runtime (libgomp): its threads busy-wait after each
 * kernel (libgomp's default spin), taking the cores tessera's next kernels
 * need. With few cores this can make a convolutional training step 2-3x
 * slower (measured on 2 cores, examples/fashion); set
 * OMP_WAIT_POLICY=passive in the environment of the process (it is read
 * when the runtime loads, so it cannot be set from here), as PyTorch's
 * performance guide advises for its own OpenMP threads.
 */
#ifndef TESSERA_PARALLEL_H
#define TESSERA_PARALLEL_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Sets the number of threads kernels may use (process-wide, as
 * torch's).
 *
 * Not meant to be called while other threads run kernels.
 * @param[in] n the thread count, >= 1
 * @return TSR_OK; n < 1: TSR_ERR_INVALID_ARGUMENT (torch: "set_num_threads
 * expects a positive integer"), nothing changed.
 */
TSR_API tsr_status tsr_set_num_threads(int64_t n);
/**
 * @brief The number of threads kernels may use. Never fails.
 * @return the last tsr_set_num_threads() value, or the default
 * (OPENBLAS_NUM_THREADS if set, else one per core).
 */
TSR_API int64_t tsr_get_num_threads(void);

#ifdef __cplusplus
}
#endif
#endif
