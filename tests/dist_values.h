/* The values the collectives tests put on each rank, and what a reduction
 * of them over the ranks gives: shared by tests/test_distributed.c (Gloo),
 * tests/nccl_double/test_nccl_backend.c (NCCL) and tests/mpi/mpi_ranks.c
 * (MPI), so every engine is held to the same expectations. */
#ifndef TSR_TEST_DIST_VALUES_H
#define TSR_TEST_DIST_VALUES_H

#include <math.h>
#include <stdint.h>

#include <tessera/distributed.h>

/* Rank r's element i: small integers, exact in every dtype even summed
 * over four ranks; 1 or 2 for products. offset shifts the non-product
 * values (3 makes them non-negative, for uint8). */
static inline double dist_value(tsr_reduce_op op, int r, int64_t i, double offset) {
  if (op == TSR_REDUCE_PRODUCT) return 1 + ((i + r) % 2);
  return (double)((i * 7 + r * 3) % 11) - 3 + offset;
}

/* Element i of op over ranks 0..world-1; AVG truncates for integer dtypes
 * (NCCL's ncclAvg, tessera's rule on every engine). */
static inline double dist_reduced(tsr_reduce_op op, int world, int64_t i, int integer, double offset) {
  double acc = dist_value(op, 0, i, offset);
  for (int r = 1; r < world; ++r) {
    const double v = dist_value(op, r, i, offset);
    if (op == TSR_REDUCE_SUM || op == TSR_REDUCE_AVG) acc += v;
    else if (op == TSR_REDUCE_PRODUCT) acc *= v;
    else if (op == TSR_REDUCE_MIN) acc = v < acc ? v : acc;
    else if (op == TSR_REDUCE_MAX) acc = v > acc ? v : acc;
  }
  if (op == TSR_REDUCE_AVG) acc = integer ? trunc(acc / world) : acc / world;
  return acc;
}

#endif
