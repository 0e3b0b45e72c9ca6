/* One case of tests/golden/reduce_kernels_golden.h (see its generator,
 * gen_reduce_kernels.py, for the input formulas and layouts). */
#ifndef TSR_TESTS_GOLDEN_REDUCE_KERNELS_CASE_H
#define TSR_TESTS_GOLDEN_REDUCE_KERNELS_CASE_H
#include <stdbool.h>
#include <stdint.h>

#include <tessera/tessera.h>

enum { RK_VALUES, RK_TIES, RK_SPECIAL, RK_EDGES, RK_ZEROS };
#define RK_EDGES_ROW 4396 /* the EDGES formula's row length */
enum { RK_CONTIG, RK_TRANSPOSED, RK_CHANNELS_LAST, RK_STEP3 };
enum { RK_SUM, RK_MEAN, RK_MAX, RK_SOFTMAX, RK_LOG_SOFTMAX };

typedef struct {
  const char* name;
  tsr_dtype dtype;
  int formula;
  int64_t ndim, sizes[4]; /* the base tensor, before the layout */
  int layout, op;
  int64_t ndims, dims[4]; /* ndims 0: all dims (sum, mean) */
  bool keepdim;
  double rtol, atol;
  int64_t out_ndim, out_sizes[4], out_strides[4], out_numel; /* torch's result */
  const double* values;   /* torch's result, as float64 */
  const int64_t* indices; /* max: torch's indices */
} rk_case;
#endif
