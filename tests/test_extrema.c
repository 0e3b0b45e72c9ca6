/* maximum / minimum, amax / amin and norm (reductions.h) against PyTorch
 * 1.13: values printed by torch (in the comments), grad_fn names, float64
 * gradcheck (ties avoided: torch's rules for them are tested from Python
 * against a live torch), every error path. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <tessera/reductions.h>

#include "gradcheck.h"

static tsr_tensor* mat(tg_arena* ar, const double* v, int64_t r, int64_t c) {
  return T(tsr_from_data(v, sizeof(double) * (size_t)(r * c), 2, (int64_t[]){r, c}, TSR_FLOAT64, &o_));
}

static void expect(const tsr_tensor* t, const double* want, int64_t n) {
  cr_assert_eq(tsr_tensor_numel(t), n);
  double* v = tg_values(t);
  for (int64_t k = 0; k < n; ++k)
    cr_expect((isnan(want[k]) && isnan(v[k])) || fabs(v[k] - want[k]) <= 1e-6 * (1 + fabs(want[k])),
              "[%lld] %.9g, torch %.9g", (long long)k, v[k], want[k]);
  free(v);
}

Test(extrema, values_match_torch) {
  tg_arena a = {.n = 0}, *ar = &a;
  const double av[] = {1, 5, 2, 4, 4, NAN}, bv[] = {3, 4, 1};
  tsr_tensor *x = mat(ar, av, 2, 3), *y = T(tsr_from_data(bv, sizeof bv, 1, (int64_t[]){3}, TSR_FLOAT64, &o_));
  /* torch: maximum [3, 5, 2, 4, 4, nan], minimum [1, 4, 1, 3, 4, nan] */
  expect(T(tsr_maximum(x, y, &o_)), (const double[]){3, 5, 2, 4, 4, NAN}, 6);
  expect(T(tsr_minimum(x, y, &o_)), (const double[]){1, 4, 1, 3, 4, NAN}, 6);
  const double zv[] = {1, -3, 2, 4, 4, 0.5};
  tsr_tensor* z = mat(ar, zv, 2, 3);
  /* amax(1) [2, 4], amin(0) [1, -3, 0.5], amax() 4, norm() 6.80073547,
   * norm(1, 1) [6, 8.5], norm(inf, 0) [4, 4, 2], norm(-inf) 0.5, norm(0) 6,
   * norm(3, 1) [3.30192733, 5.04132462] */
  expect(T(tsr_amax(z, 1, (int64_t[]){1}, false, &o_)), (const double[]){2, 4}, 2);
  expect(T(tsr_amin(z, 1, (int64_t[]){0}, false, &o_)), (const double[]){1, -3, 0.5}, 3);
  tsr_tensor* all = T(tsr_amax(z, 0, NULL, true, &o_));
  tsr_assert_geometry(all, 2, (int64_t[]){1, 1}, NULL);
  expect(all, (const double[]){4}, 1);
  expect(T(tsr_norm(z, 2, 0, NULL, false, &o_)), (const double[]){6.8007354736328125}, 1);
  expect(T(tsr_norm(z, 1, 1, (int64_t[]){1}, false, &o_)), (const double[]){6, 8.5}, 2);
  expect(T(tsr_norm(z, INFINITY, 1, (int64_t[]){0}, false, &o_)), (const double[]){4, 4, 2}, 3);
  expect(T(tsr_norm(z, -INFINITY, 0, NULL, false, &o_)), (const double[]){0.5}, 1);
  expect(T(tsr_norm(z, 0, 0, NULL, false, &o_)), (const double[]){6}, 1);
  /* linalg.vector_norm: norm's values; grad_fn LinalgVectorNormBackward0 */
  tsr_tensor* vn = T(tsr_linalg_vector_norm(z, 3, 1, (int64_t[]){1}, true, &o_));
  tsr_assert_geometry(vn, 2, (int64_t[]){2, 1}, NULL);
  expect(vn, (const double[]){3.30192733, 5.04132462}, 2);
  expect(T(tsr_norm(z, 3, 1, (int64_t[]){1}, false, &o_)), (const double[]){3.301927328109741, 5.041324615478516}, 2);
  /* dtypes: int64 with float32 gives float32; bool with bool stays bool */
  tsr_tensor* i = T(tsr_full(1, (int64_t[]){2}, 1, TSR_INT64, TSR_CPU, &o_));
  tsr_tensor* f = T(tsr_full(1, (int64_t[]){2}, 1.5, TSR_FLOAT32, TSR_CPU, &o_));
  cr_expect_eq(tsr_tensor_dtype(T(tsr_maximum(i, f, &o_))), TSR_FLOAT32);
  tsr_tensor* b = T(tsr_full(1, (int64_t[]){2}, 1, TSR_BOOL, TSR_CPU, &o_));
  cr_expect_eq(tsr_tensor_dtype(T(tsr_minimum(b, b, &o_))), TSR_BOOL);
  tg_arena_release(ar);
}

static tsr_tensor* gc_maximum(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_maximum(in[0], in[1], &o_));
}
static tsr_tensor* gc_amin(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_amin(in[0], 1, (int64_t[]){1}, true, &o_));
}
static tsr_tensor* gc_norm(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  return T(tsr_norm(in[0], *(const double*)ctx, 1, (int64_t[]){0}, false, &o_));
}

Test(extrema, gradcheck_and_names) {
  tsr_tensor *x = tg_leaf(2, (int64_t[]){3, 4}, 11, 1, 0), *y = tg_leaf(1, (int64_t[]){4}, 12, 1, 0);
  cr_expect_gt(tg_gradcheck("maximum", gc_maximum, 2, (tsr_tensor* []){x, y}, NULL), 0);
  cr_expect_gt(tg_gradcheck("amin", gc_amin, 1, &x, NULL), 0);
  const double ps[] = {2, 1, 3, 0.5, INFINITY};
  for (size_t k = 0; k < 5; ++k) cr_expect_gt(tg_gradcheck("norm", gc_norm, 1, &x, &ps[k]), 0);
  tg_arena a = {.n = 0}, *ar = &a;
  cr_expect_str_eq(tsr_grad_fn_name(T(tsr_maximum(x, y, &o_))), "MaximumBackward0");
  cr_expect_str_eq(tsr_grad_fn_name(T(tsr_minimum(x, y, &o_))), "MinimumBackward0");
  cr_expect_str_eq(tsr_grad_fn_name(T(tsr_amax(x, 0, NULL, false, &o_))), "AmaxBackward0");
  cr_expect_str_eq(tsr_grad_fn_name(T(tsr_amin(x, 0, NULL, false, &o_))), "AminBackward0");
  cr_expect_str_eq(tsr_grad_fn_name(T(tsr_norm(x, 2, 0, NULL, false, &o_))), "NormBackward1");
  cr_expect_str_eq(tsr_grad_fn_name(T(tsr_linalg_vector_norm(x, 2, 0, NULL, false, &o_))), "LinalgVectorNormBackward0");
  tg_arena_release(ar);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
}

Test(extrema, errors) {
  tg_arena a = {.n = 0}, *ar = &a;
  tsr_tensor *x = T(tsr_zeros(2, (int64_t[]){2, 0}, TSR_FLOAT32, TSR_CPU, &o_)), *out = SENTINEL;
  tsr_tensor *two = T(tsr_zeros(1, (int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &o_));
  tsr_tensor *three = T(tsr_zeros(1, (int64_t[]){3}, TSR_FLOAT32, TSR_CPU, &o_));
  TSR_ASSERT_FAILS(tsr_maximum(two, three, &out), TSR_ERR_SHAPE_MISMATCH, "The size of tensor a (2) must match");
  TSR_ASSERT_FAILS(tsr_amax(x, 1, (int64_t[]){1}, false, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "amax(): Expected reduction dim 1 to have non-zero size.");
  TSR_ASSERT_FAILS(tsr_amin(x, 0, NULL, false, &out), TSR_ERR_INDEX_OUT_OF_RANGE, "amin(): Expected reduction dim");
  TSR_ASSERT_FAILS(tsr_amax(two, 2, (int64_t[]){0, 0}, false, &out), TSR_ERR_INVALID_ARGUMENT, "");
  TSR_ASSERT_FAILS(tsr_amax(two, 1, (int64_t[]){1}, false, &out), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  tsr_tensor* l = T(tsr_zeros(1, (int64_t[]){2}, TSR_INT64, TSR_CPU, &o_));
  TSR_ASSERT_FAILS(tsr_norm(l, 2, 0, NULL, false, &out), TSR_ERR_DTYPE_MISMATCH,
                   "norm(): input dtype should be either floating point or complex. Got Long instead.");
  TSR_ASSERT_FAILS(tsr_norm(NULL, 2, 0, NULL, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  /* torch.linalg.vector_norm's own messages */
  TSR_ASSERT_FAILS(tsr_linalg_vector_norm(l, 2, 0, NULL, false, &out), TSR_ERR_DTYPE_MISMATCH,
                   "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
  TSR_ASSERT_FAILS(tsr_linalg_vector_norm(x, INFINITY, 0, NULL, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation "
                   "does not have an identity");
  TSR_ASSERT_FAILS(tsr_linalg_vector_norm(x, -INFINITY, 1, (int64_t[]){-1}, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "linalg.vector_norm cannot compute the -inf norm on the dimension 1because this dimension is "
                   "empty and the operation does not have an identity");
  TSR_ASSERT_FAILS(tsr_linalg_vector_norm(two, 2, 1, (int64_t[]){1}, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range");
  TSR_ASSERT_FAILS(tsr_linalg_vector_norm(NULL, 2, 0, NULL, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_linalg_vector_norm(two, 2, 0, NULL, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  /* over a kept empty dim, or a 2-norm of nothing: fine, as torch */
  tsr_assert_geometry(T(tsr_linalg_vector_norm(x, INFINITY, 1, (int64_t[]){0}, false, &o_)), 1, (int64_t[]){0}, NULL);
  expect(T(tsr_linalg_vector_norm(x, 2, 0, NULL, false, &o_)), (const double[]){0}, 1);
  TSR_ASSERT_FAILS(tsr_maximum(two, two, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  /* an empty dim that is kept reduces to empty, as torch */
  tsr_assert_geometry(T(tsr_amax(x, 1, (int64_t[]){0}, false, &o_)), 1, (int64_t[]){0}, NULL);
  tg_arena_release(ar);
}
