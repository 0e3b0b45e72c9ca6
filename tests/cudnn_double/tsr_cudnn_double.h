/* Test controls of the cuDNN test double (libtessera_cudnn_double.so), which
 * implements the cuDNN entry points the CUDA plugin calls (handles, tensor,
 * filter and convolution descriptors, convolution forward, backward-data
 * and backward-filter with their heuristics, Find and workspace queries)
 * on the CUDA runtime double's simulated device: each convolution is
 * queued on the handle's stream (tsr_double_launch) and computed there by
 * tessera's CPU convolution (kernels::conv2d, conv2d_backward: oneDNN
 * where it applies, as the CPU path, else the reference loops) on the
 * device memory, which is host memory.
 *
 * The double's algorithms, so that algorithm choice can be seen:
 *   forward:         IMPLICIT_GEMM (0), IMPLICIT_PRECOMP_GEMM (1), GEMM (2),
 *                    all deterministic; heuristics rank 1, 0, 2; Find times
 *                    2 fastest, then 1, then 0.
 *   backward data:   ALGO_0 (non-deterministic), ALGO_1; heuristics rank
 *                    0, 1; Find: 0, then 1.
 *   backward filter: ALGO_0 (non-deterministic), ALGO_1, ALGO_3
 *                    (non-deterministic); heuristics rank 0, 1, 3; Find:
 *                    3, then 0, then 1.
 * Every other algorithm is CUDNN_STATUS_NOT_SUPPORTED. Algorithms 1 and 2
 * (forward), 1 (backward data) and 1, 3 (backward filter) want a
 * workspace; a run is refused (CUDNN_STATUS_BAD_PARAM) unless it gets one at
 * least that large in device memory, which the run then overwrites.
 * Data types: float, double, half and bfloat16 (the 16-bit ones computed in
 * float and rounded once; alpha 1 and beta 0 only).
 *
 * Batch norm: cudnnDeriveBNTensorDescriptor and cudnnBatchNormalization
 * ForwardTraining / ForwardInference / Backward in CUDNN_BATCHNORM_SPATIAL
 * mode (alpha 1, beta 0), computed by kernels::ref::batch_norm and
 * batch_norm_backward; running statistics blended with the factor given,
 * the variance unbiased, as cuDNN's.
 *
 * Pooling: CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING and _EXCLUDE_PADDING
 * (max pooling is CUDNN_STATUS_NOT_SUPPORTED here), cudnnPoolingForward and
 * cudnnPoolingBackward (y and x not read, as for cuDNN's average modes),
 * computed by kernels::ref::avg_pool2d and avg_pool2d_backward. */
#ifndef TSR_CUDNN_DOUBLE_H
#define TSR_CUDNN_DOUBLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Index of the per-kind arrays below. */
enum { TSR_CUDNN_FWD = 0, TSR_CUDNN_BWD_DATA = 1, TSR_CUDNN_BWD_FILTER = 2 };

typedef struct tsr_cudnn_double_counters {
  int64_t handles_created;
  int64_t live_descriptors;     /* tensor, filter and convolution descriptors not destroyed */
  int64_t heuristic_queries[3]; /* cudnnGetConvolution*Algorithm_v7 calls */
  int64_t find_calls[3];        /* cudnnFindConvolution*AlgorithmEx calls */
  int64_t runs[3];              /* convolutions computed on a stream */
  int32_t last_algo[3];         /* the algorithm of the last run; -1: none */
  int32_t last_channels_last[3]; /* whether the last run's x (dx) was NHWC */
  int64_t last_workspace_bytes[3];
  int64_t failed_runs;          /* queued runs whose computation threw */
  int64_t batch_norm_calls[3];  /* cudnnBatchNormalization ForwardTraining,
                                   ForwardInference, Backward queued */
  int64_t pooling_calls[2];     /* cudnnPoolingForward, cudnnPoolingBackward queued */
} tsr_cudnn_double_counters;

tsr_cudnn_double_counters tsr_cudnn_double_get_counters(void);
/* Zeroes the call counts and last_* (live_descriptors and handles_created stay). */
void tsr_cudnn_double_reset_counters(void);

#ifdef __cplusplus
}
#endif

#endif
