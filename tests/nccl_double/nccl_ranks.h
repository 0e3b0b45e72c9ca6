/* What the tests of process groups on CUDA tensors share
 * (test_nccl_backend.c, test_ddp_cuda.c): joining a group over 127.0.0.1,
 * CUDA tensors from doubles and back. The children of dist_harness.h call
 * these (DCHECK, never Criterion's asserts). */
#ifndef TSR_TESTS_NCCL_RANKS_H
#define TSR_TESTS_NCCL_RANKS_H

#include <stdio.h>

#include "dist_harness.h"
#include "helpers.h"

#define TSR_CUDA0 TSR_DEVICE_CUDA, 0

static inline tsr_status nccl_init(int port, int rank, int world, tsr_dist_backend backend,
                                   int64_t timeout_ms, tsr_process_group** pg) {
  return dist_init_backend(port, rank, world, backend, timeout_ms, pg);
}

/* A CUDA tensor of dtype holding n doubles. */
static inline tsr_tensor* cuda_of(const double* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *d, *t, *c;
  DCHECK_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &d));
  DCHECK_OK(tsr_to_dtype(d, dtype, &t));
  DCHECK_OK(tsr_to_device(t, TSR_CUDA0, 0, &c));
  tsr_tensor_release(d);
  tsr_tensor_release(t);
  return c;
}

/* t's elements as doubles (n of them) into out. */
static inline void read_back(const tsr_tensor* t, double* out, int64_t n) {
  tsr_tensor *cpu, *d;
  DCHECK_OK(tsr_to_device(t, TSR_CPU, 0, &cpu));
  DCHECK_OK(tsr_to_dtype(cpu, TSR_FLOAT64, &d));
  size_t need = 0;
  if (n > 0) DCHECK_OK(tsr_copy_to_buffer(d, out, (size_t)n * sizeof(double), &need));
  tsr_tensor_release(cpu);
  tsr_tensor_release(d);
}

#endif
