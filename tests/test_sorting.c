/* sort / argsort / topk / kthvalue (sorting.h) against PyTorch 1.13:
 * goldens from tests/golden/gen_sorting.py (values, indices, grad_fn, the
 * gradient of sum(values * cos(k))): stable sorts of inputs full of ties,
 * selections on distinct values; NaN and -0 ordering, every dtype, float64
 * gradcheck and double backward, empty tensors, every error path. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/sorting.h>

#include "golden/sorting_golden.h"
#include "gradcheck.h"

static tsr_tensor* input_of(const sorting_golden* g) {
  int64_t n = 1;
  for (int64_t d = 0; d < g->x_ndim; ++d) n *= g->x_sizes[d];
  double* v = malloc(sizeof(double) * (size_t)n);
  for (int64_t k = 0; k < n; ++k)
    v[k] = g->distinct ? (double)((k * 37) % 1409) - 700.5 : (double)((k * 7) % n) / 4 - 2;
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(double) * (size_t)n, g->x_ndim, g->x_sizes, TSR_FLOAT64, &x));
  free(v);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  return x;
}

static void run_case(const char* name, tsr_tensor* x, tsr_tensor** values, tsr_tensor** indices) {
  tsr_tensor* t = NULL;
#define IS(s) (strcmp(name, s) == 0)
  if (IS("sort_dim1")) TSR_ASSERT_OK(tsr_sort(x, 1, false, true, values, indices));
  else if (IS("sort_dim0_desc")) TSR_ASSERT_OK(tsr_sort(x, 0, true, true, values, indices));
  else if (IS("sort_transposed")) {
    TSR_ASSERT_OK(tsr_t(x, &t));
    TSR_ASSERT_OK(tsr_sort(t, 1, false, true, values, indices));
  } else if (IS("sort_long")) TSR_ASSERT_OK(tsr_sort(x, 1, true, true, values, indices));
  else if (IS("sort_0dim")) TSR_ASSERT_OK(tsr_sort(x, 0, false, true, values, indices));
  else if (IS("topk_largest")) TSR_ASSERT_OK(tsr_topk(x, 3, 1, true, values, indices));
  else if (IS("topk_smallest_dim0")) TSR_ASSERT_OK(tsr_topk(x, 4, 0, false, values, indices));
  else if (IS("topk_long")) TSR_ASSERT_OK(tsr_topk(x, 50, 1, true, values, indices));
  else if (IS("topk_zero")) TSR_ASSERT_OK(tsr_topk(x, 0, 1, true, values, indices));
  else if (IS("kthvalue")) TSR_ASSERT_OK(tsr_kthvalue(x, 4, 1, false, values, indices));
  else if (IS("kthvalue_keepdim_dim0")) TSR_ASSERT_OK(tsr_kthvalue(x, 9, 0, true, values, indices));
  else cr_assert_fail("no C form of golden case %s", name);
#undef IS
  tsr_tensor_release(t);
}

static void expect_values(const char* what, const tsr_tensor* t, const double* want, int64_t n) {
  cr_assert_eq(tsr_tensor_numel(t), n, "%s: numel", what);
  double* v = tg_values(t);
  for (int64_t k = 0; k < n; ++k)
    cr_expect(v[k] == want[k] || fabs(v[k] - want[k]) <= 1e-12 * (1 + fabs(want[k])), "%s[%lld]: %.17g, torch %.17g",
              what, (long long)k, v[k], want[k]);
  free(v);
}

Test(sorting, goldens) {
  for (size_t c = 0; c < sizeof SORTING_GOLDEN / sizeof SORTING_GOLDEN[0]; ++c) {
    const sorting_golden* g = &SORTING_GOLDEN[c];
    tsr_tensor *x = input_of(g), *values, *indices;
    run_case(g->name, x, &values, &indices);
    tsr_assert_geometry(values, g->ndim, g->sizes, NULL);
    tsr_assert_geometry(indices, g->ndim, g->sizes, NULL);
    cr_expect_eq(tsr_tensor_dtype(indices), TSR_INT64);
    expect_values(g->name, values, g->values, g->numel);
    expect_values(g->name, indices, g->indices, g->numel);
    cr_expect_str_eq(tsr_grad_fn_name(values), g->grad_fn, "%s: grad_fn", g->name);
    double* w = malloc(sizeof(double) * (size_t)(g->numel ? g->numel : 1));
    for (int64_t k = 0; k < g->numel; ++k) w[k] = cos((double)k);
    tsr_tensor *wt, *prod, *sum, *grad;
    TSR_ASSERT_OK(tsr_from_data(w, sizeof(double) * (size_t)g->numel, g->ndim, g->sizes, TSR_FLOAT64, &wt));
    free(w);
    TSR_ASSERT_OK(tsr_mul(values, wt, &prod));
    TSR_ASSERT_OK(tsr_sum(prod, 0, NULL, false, &sum));
    TSR_ASSERT_OK(tsr_backward(sum, NULL, false));
    TSR_ASSERT_OK(tsr_grad(x, &grad));
    if (grad) expect_values(g->name, grad, g->grad, tsr_tensor_numel(x));
    tsr_tensor_release(grad);
    tsr_tensor* rel[] = {wt, prod, sum, values, indices, x};
    for (size_t i = 0; i < 6; ++i) tsr_tensor_release(rel[i]);
  }
}

static tsr_tensor* vec(const double* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(double) * (size_t)n, 1, &n, TSR_FLOAT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

Test(sorting, nan_and_signed_zero_order) {
  /* torch 1.13: sort([1, nan, -nan, 0.5, inf, -0, 0], stable=True)
   * values [-0, 0, 0.5, 1, inf, nan, nan], indices [5, 6, 3, 0, 4, 1, 2];
   * descending: indices [1, 2, 4, 0, 3, 5, 6] */
  const double v[] = {1, NAN, -NAN, 0.5, INFINITY, -0.0, 0.0};
  tsr_tensor *x = vec(v, 7, TSR_FLOAT32), *values, *indices;
  TSR_ASSERT_OK(tsr_sort(x, 0, false, true, &values, &indices));
  expect_values("asc", indices, (const double[]){5, 6, 3, 0, 4, 1, 2}, 7);
  tsr_tensor_release(values);
  tsr_tensor_release(indices);
  TSR_ASSERT_OK(tsr_sort(x, 0, true, true, &values, &indices));
  expect_values("desc", indices, (const double[]){1, 2, 4, 0, 3, 5, 6}, 7);
  tsr_tensor_release(values);
  tsr_tensor_release(indices);
  /* topk counts NaN as the largest: topk(2) -> indices [1, 2] */
  TSR_ASSERT_OK(tsr_topk(x, 2, 0, true, &values, &indices));
  expect_values("topk", indices, (const double[]){1, 2}, 2);
  tsr_tensor_release(values);
  tsr_tensor_release(indices);
  tsr_tensor_release(x);
}

Test(sorting, every_dtype_sorts_as_float64) {
  const tsr_dtype dts[] = {TSR_FLOAT32, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT64, TSR_INT32, TSR_INT16,
                           TSR_INT8,    TSR_UINT8,   TSR_BOOL};
  double v[300];
  for (int k = 0; k < 300; ++k) v[k] = (double)((k * 53) % 97) - 40;
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d) {
    tsr_tensor *x = vec(v, 300, dts[d]), *x64, *values, *indices, *rv, *ri;
    TSR_ASSERT_OK(tsr_to_dtype(x, TSR_FLOAT64, &x64));
    TSR_ASSERT_OK(tsr_sort(x, 0, true, true, &values, &indices));
    TSR_ASSERT_OK(tsr_sort(x64, 0, true, true, &rv, &ri));
    cr_expect_eq(tsr_tensor_dtype(values), dts[d]);
    double* want = tg_values(ri);
    expect_values("dtype", indices, want, 300);
    free(want);
    tsr_tensor* rel[] = {x, x64, values, indices, rv, ri};
    for (size_t i = 0; i < 6; ++i) tsr_tensor_release(rel[i]);
  }
}

static tsr_tensor* gc_sort_values(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *v, *i;
  TSR_ASSERT_OK(tsr_sort(in[0], 1, true, true, &v, &i));
  tsr_tensor_release(i);
  return tg_keep(ar, v);
}
static tsr_tensor* gc_topk_values(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *v, *i;
  TSR_ASSERT_OK(tsr_topk(in[0], 2, 0, false, &v, &i));
  tsr_tensor_release(i);
  return tg_keep(ar, v);
}
static tsr_tensor* gc_kth_values(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *v, *i;
  TSR_ASSERT_OK(tsr_kthvalue(in[0], 2, 1, false, &v, &i));
  tsr_tensor_release(i);
  return tg_keep(ar, v);
}

Test(sorting, gradcheck) {
  const int64_t s[] = {3, 5};
  tsr_tensor* x = tg_leaf(2, s, 7, 1.0, 0.0);
  cr_expect_gt(tg_gradcheck("sort", gc_sort_values, 1, &x, NULL), 0);
  cr_expect_gt(tg_gradcheck("topk", gc_topk_values, 1, &x, NULL), 0);
  cr_expect_gt(tg_gradcheck("kthvalue", gc_kth_values, 1, &x, NULL), 0);
  tsr_tensor_release(x);
}

Test(sorting, empty_and_argsort) {
  const int64_t s[] = {0, 4};
  tsr_tensor *x, *values, *indices, *a;
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &x));
  TSR_ASSERT_OK(tsr_sort(x, 1, false, true, &values, &indices));
  tsr_assert_geometry(values, 2, s, NULL);
  tsr_tensor_release(values);
  tsr_tensor_release(indices);
  TSR_ASSERT_OK(tsr_topk(x, 2, 1, true, &values, &indices));
  tsr_assert_geometry(values, 2, (int64_t[]){0, 2}, NULL);
  tsr_tensor_release(values);
  tsr_tensor_release(indices);
  tsr_tensor_release(x);
  const double v[] = {3, 1, 2};
  x = vec(v, 3, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_argsort(x, 0, false, &a));
  expect_values("argsort", a, (const double[]){1, 2, 0}, 3);
  cr_expect_eq(tsr_tensor_dtype(a), TSR_INT64);
  tsr_tensor_release(a);
  tsr_tensor_release(x);
}

Test(sorting, errors) {
  const double v[] = {3, 1, 2};
  tsr_tensor *x = vec(v, 3, TSR_FLOAT32), *values = SENTINEL, *indices = SENTINEL, *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_sort(x, 1, false, true, &values, &indices), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  TSR_ASSERT_FAILS(tsr_sort(NULL, 0, false, true, &values, &indices), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_sort(x, 0, false, true, NULL, &indices), TSR_ERR_INVALID_ARGUMENT, "values is NULL");
  TSR_ASSERT_FAILS(tsr_argsort(x, 0, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_topk(x, 4, 0, true, &values, &indices), TSR_ERR_INVALID_ARGUMENT,
                   "selected index k out of range");
  TSR_ASSERT_FAILS(tsr_topk(x, -1, 0, true, &values, &indices), TSR_ERR_INVALID_ARGUMENT,
                   "selected index k out of range");
  TSR_ASSERT_FAILS(tsr_kthvalue(x, 0, 0, false, &values, &indices), TSR_ERR_INVALID_ARGUMENT,
                   "kthvalue(): selected number k out of range for dimension 0");
  TSR_ASSERT_FAILS(tsr_kthvalue(x, 4, 0, false, &values, &indices), TSR_ERR_INVALID_ARGUMENT,
                   "kthvalue(): selected number k out of range for dimension 0");
  tsr_tensor *b = vec(v, 3, TSR_BOOL), *h = vec(v, 3, TSR_FLOAT16), *e;
  TSR_ASSERT_FAILS(tsr_topk(b, 1, 0, true, &values, &indices), TSR_ERR_DTYPE_MISMATCH,
                   "\"topk_cpu\" not implemented for 'Bool'");
  TSR_ASSERT_FAILS(tsr_topk(h, 1, 0, true, &values, &indices), TSR_ERR_DTYPE_MISMATCH,
                   "\"topk_cpu\" not implemented for 'Half'");
  TSR_ASSERT_FAILS(tsr_kthvalue(h, 1, 0, false, &values, &indices), TSR_ERR_DTYPE_MISMATCH,
                   "\"kthvalue_cpu\" not implemented for 'Half'");
  TSR_ASSERT_OK(tsr_zeros(1, (int64_t[]){0}, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &e));
  TSR_ASSERT_FAILS(tsr_kthvalue(e, 1, 0, false, &values, &indices), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "Expected reduction dim 0 to have non-zero size.");
  cr_expect_eq(values, SENTINEL);
  cr_expect_eq(indices, SENTINEL);
  cr_expect_eq(out, SENTINEL);
  tsr_tensor* rel[] = {x, b, h, e};
  for (size_t i = 0; i < 4; ++i) tsr_tensor_release(rel[i]);
}
