/* Reductions (ops.h): sum/mean over dims with keepdim (negative dims, all
 * dims, integer input -> int64 sum, empty inputs), max along a dim and
 * argmax (ties -> first index, NaN is the maximum), max of all elements.
 * Expected results from PyTorch 1.13 (tests/golden/gen_ops.py). */
#include <stdint.h>

#include "golden/reductions_golden.h"
#include "helpers.h"
#include "ops_program.h"

TG_PARAMETERIZED(reductions, golden, tg_reductions, TG_REDUCTIONS_N) { tg_check_forward(c); }

static tsr_tensor* arange(int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t i = 0; i < ndim; ++i) n *= sizes[i];
  tsr_tensor *flat, *t;
  TSR_ASSERT_OK(tsr_arange(0, (double)n, 1, dtype, TSR_CPU, &flat));
  TSR_ASSERT_OK(tsr_reshape(flat, ndim, sizes, &t));
  tsr_tensor_release(flat);
  return t;
}

/* The input is still 0, 1, 2, ... and was never written. */
static void expect_untouched(const tsr_tensor* t) {
  cr_expect_eq(tsr_version(t), 0);
  double* v = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i) cr_expect_eq(v[i], (double)i);
  free(v);
}

Test(reductions, bad_dims) {
  const int64_t s[] = {2, 3};
  tsr_tensor *x = arange(2, s, TSR_FLOAT32), *out = SENTINEL;
  const int64_t d2[] = {2}, rep[] = {0, -2}, dm3[] = {-3};
  /* torch: "Dimension out of range (expected to be in range of [-2, 1], but got 2)" */
  TSR_ASSERT_FAILS(tsr_sum(x, 1, d2, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_mean(x, 1, dm3, true, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  /* torch: "dim 0 appears multiple times in the list of dims" */
  TSR_ASSERT_FAILS(tsr_sum(x, 2, rep, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "dim 0 appears multiple times in the list of dims");
  TSR_ASSERT_FAILS(tsr_sum(x, 1, NULL, false, &out), TSR_ERR_INVALID_ARGUMENT, "NULL");
  TSR_ASSERT_FAILS(tsr_sum(x, -1, d2, false, &out), TSR_ERR_INVALID_ARGUMENT, "dims");
  TSR_ASSERT_FAILS(tsr_sum(NULL, 0, NULL, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_mean(x, 0, NULL, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_max_dim(x, 2, false, &out, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_argmax(x, -3, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range");
  cr_expect_eq(out, SENTINEL);
  expect_untouched(x);
  tsr_tensor_release(x);
}

/* torch: "mean(): could not infer output dtype. Input dtype must be either a
 * floating point or complex dtype. Got: Long" */
Test(reductions, mean_of_integers_refused) {
  const int64_t s[] = {4};
  tsr_tensor *x = arange(1, s, TSR_INT64), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_mean(x, 0, NULL, false, &out), TSR_ERR_DTYPE_MISMATCH,
                   "mean(): could not infer output dtype. Input dtype must be either a floating "
                   "point or complex dtype.");
  cr_expect_eq(out, SENTINEL);
  expect_untouched(x);
  tsr_tensor_release(x);
}

/* torch: "max(): Expected reduction dim 1 to have non-zero size." and, for
 * max() of an empty tensor, "max(): Expected reduction dim to be specified
 * for input.numel() == 0." */
Test(reductions, max_of_empty) {
  const int64_t s[] = {2, 0};
  tsr_tensor *x, *v = SENTINEL, *i = SENTINEL;
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_FAILS(tsr_max_dim(x, 1, false, &v, &i), TSR_ERR_SHAPE_MISMATCH,
                   "Expected reduction dim 1 to have non-zero size.");
  TSR_ASSERT_FAILS(tsr_argmax(x, 1, true, &i), TSR_ERR_SHAPE_MISMATCH,
                   "Expected reduction dim 1 to have non-zero size.");
  TSR_ASSERT_FAILS(tsr_max(x, &v), TSR_ERR_SHAPE_MISMATCH,
                   "max(): Expected reduction dim to be specified for input.numel() == 0.");
  cr_expect_eq(v, SENTINEL);
  cr_expect_eq(i, SENTINEL);
  /* Reducing the non-empty dim of an empty tensor is fine: [2] of nothing. */
  TSR_ASSERT_OK(tsr_max_dim(x, 0, false, &v, &i));
  cr_expect_eq(tsr_tensor_numel(v), 0);
  cr_expect_eq(tsr_tensor_dtype(i), TSR_INT64);
  tsr_tensor_release(v);
  tsr_tensor_release(i);
  tsr_tensor_release(x);
}

Test(reductions, max_dim_out_pointers) {
  const int64_t s[] = {2, 3};
  tsr_tensor *x = arange(2, s, TSR_FLOAT64), *v = SENTINEL, *i = SENTINEL;
  TSR_ASSERT_FAILS(tsr_max_dim(x, 1, false, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "values and indices are both NULL");
  /* Both wanted: values [2, 5], indices [2, 2]. */
  TSR_ASSERT_OK(tsr_max_dim(x, 1, false, &v, &i));
  double vals[2];
  int64_t idx[2];
  TSR_ASSERT_OK(tsr_copy_to_buffer(v, vals, sizeof vals, NULL));
  TSR_ASSERT_OK(tsr_copy_to_buffer(i, idx, sizeof idx, NULL));
  cr_expect(vals[0] == 2 && vals[1] == 5 && idx[0] == 2 && idx[1] == 2);
  cr_expect(!tsr_requires_grad(i));
  tsr_tensor_release(v);
  tsr_tensor_release(i);
  expect_untouched(x);
  tsr_tensor_release(x);
}
