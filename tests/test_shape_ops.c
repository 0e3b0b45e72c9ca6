/* Factories and shape ops (shape_ops.h) against PyTorch 1.13: goldens from
 * tests/golden/gen_shape_ops.py (values, grad_fn names, the gradient of
 * sum(out * cos(k))), the causal mask, linspace / eye values, in-place
 * tril_/triu_, float64 gradcheck, every error path. einsum's grad_fn is
 * the last op of its contraction (torch's is too, by another route), so
 * its names are not compared. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/shape_ops.h>

#include "golden/shape_ops_golden.h"
#include "gradcheck.h"

static tsr_tensor* xleaf(int64_t ndim, const int64_t* sizes) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  double* v = malloc(sizeof(double) * (size_t)n);
  for (int64_t k = 0; k < n; ++k) v[k] = (double)((k * 7) % n) / 4 - 2;
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(double) * (size_t)n, ndim, sizes, TSR_FLOAT64, &x));
  free(v);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  return x;
}

/* y[k] = cos(k), the generator's second einsum operand. */
static tsr_tensor* other(tg_arena* ar, int64_t ndim, const int64_t* sizes) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  double* v = malloc(sizeof(double) * (size_t)n);
  for (int64_t k = 0; k < n; ++k) v[k] = cos((double)k);
  tsr_tensor* y;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(double) * (size_t)n, ndim, sizes, TSR_FLOAT64, &y));
  free(v);
  return tg_keep(ar, y);
}

static tsr_tensor* einsum2(tg_arena* ar, const char* eq, tsr_tensor* a, tsr_tensor* b) {
  const tsr_tensor* ops[] = {a, b};
  return T(tsr_einsum(eq, b ? 2 : 1, ops, &o_));
}

static tsr_tensor* run_case(tg_arena* ar, const char* name, tsr_tensor* x) {
#define IS(s) (strcmp(name, s) == 0)
  if (IS("tril")) return T(tsr_tril(x, 0, &o_));
  if (IS("tril_neg")) return T(tsr_tril(x, -1, &o_));
  if (IS("triu_pos")) return T(tsr_triu(x, 1, &o_));
  if (IS("triu_transposed")) return T(tsr_triu(T(tsr_t(x, &o_)), -1, &o_));
  if (IS("flip")) return T(tsr_flip(x, 2, (int64_t[]){0, 2}, &o_));
  if (IS("roll")) return T(tsr_roll(x, 2, (int64_t[]){1, -5}, 2, (int64_t[]){0, 1}, &o_));
  if (IS("roll_flat")) return T(tsr_roll(x, 1, (int64_t[]){5}, 0, NULL, &o_));
  if (IS("repeat")) return T(tsr_repeat(x, 3, (int64_t[]){2, 1, 3}, &o_));
  if (IS("tile")) return T(tsr_tile(x, 1, (int64_t[]){2}, &o_));
  if (IS("einsum_matmul")) return einsum2(ar, "ij,jk->ik", x, other(ar, 2, (int64_t[]){4, 2}));
  if (IS("einsum_batch")) return einsum2(ar, "bij,bkj->bik", x, other(ar, 3, (int64_t[]){2, 5, 4}));
  if (IS("einsum_diag_trace")) return einsum2(ar, "ii", x, NULL);
  if (IS("einsum_ellipsis")) return einsum2(ar, "...ij,j->...i", x, other(ar, 1, (int64_t[]){4}));
  if (IS("einsum_outer_sum")) return einsum2(ar, "ij,k->jk", x, other(ar, 1, (int64_t[]){2}));
#undef IS
  cr_assert_fail("no C form of golden case %s", name);
  return NULL;
}

static void expect_values(const char* what, const tsr_tensor* t, const double* want, int64_t n) {
  cr_assert_eq(tsr_tensor_numel(t), n, "%s: numel", what);
  double* v = tg_values(t);
  for (int64_t k = 0; k < n; ++k)
    cr_expect(fabs(v[k] - want[k]) <= 1e-12 * (1 + fabs(want[k])), "%s[%lld]: %.17g, torch %.17g", what, (long long)k,
              v[k], want[k]);
  free(v);
}

Test(shape_ops, goldens) {
  for (size_t c = 0; c < sizeof SHAPE_GOLDEN / sizeof SHAPE_GOLDEN[0]; ++c) {
    const shape_golden* g = &SHAPE_GOLDEN[c];
    tsr_tensor* x = xleaf(g->x_ndim, g->x_sizes);
    tg_arena a = {.n = 0}, *ar = &a;
    tsr_tensor* out = run_case(ar, g->name, x);
    tsr_assert_geometry(out, g->ndim, g->sizes, NULL);
    expect_values(g->name, out, g->values, g->numel);
    if (strncmp(g->name, "einsum", 6) != 0) cr_expect_str_eq(tsr_grad_fn_name(out), g->grad_fn, "%s", g->name);
    double* w = malloc(sizeof(double) * (size_t)g->numel);
    for (int64_t k = 0; k < g->numel; ++k) w[k] = cos((double)k);
    tsr_tensor* wt = T(tsr_from_data(w, sizeof(double) * (size_t)g->numel, g->ndim, g->sizes, TSR_FLOAT64, &o_));
    free(w);
    TSR_ASSERT_OK(tsr_backward(T(tsr_sum(T(tsr_mul(out, wt, &o_)), 0, NULL, false, &o_)), NULL, false));
    tsr_tensor* grad;
    TSR_ASSERT_OK(tsr_grad(x, &grad));
    expect_values(g->name, grad, g->grad, tsr_tensor_numel(x));
    tsr_tensor_release(grad);
    tg_arena_release(ar);
    tsr_tensor_release(x);
  }
}

Test(shape_ops, causal_mask_linspace_eye) {
  tg_arena a = {.n = 0}, *ar = &a;
  /* torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1) */
  tsr_tensor* ones = T(tsr_full(2, (int64_t[]){4, 4}, 1, TSR_BOOL, TSR_CPU, &o_));
  tsr_tensor* mask = T(tsr_triu(ones, 1, &o_));
  cr_expect_eq(tsr_tensor_dtype(mask), TSR_BOOL);
  double* v = tg_values(mask);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) cr_expect_eq(v[i * 4 + j], j > i ? 1.0 : 0.0);
  free(v);
  /* torch.linspace(0, 1, 5), linspace(0, 10, 5, dtype=int64) = [0, 2, 5, 7, 10],
   * linspace(2, 3, 1) = [2], eye(2, 3) */
  expect_values("linspace", T(tsr_linspace(0, 1, 5, TSR_FLOAT32, &o_)), (const double[]){0, 0.25, 0.5, 0.75, 1}, 5);
  expect_values("linspace int", T(tsr_linspace(0, 10, 5, TSR_INT64, &o_)), (const double[]){0, 2, 5, 7, 10}, 5);
  expect_values("linspace 1", T(tsr_linspace(2, 3, 1, TSR_FLOAT64, &o_)), (const double[]){2}, 1);
  tsr_tensor* e = T(tsr_eye(2, 3, TSR_INT32, &o_));
  tsr_assert_geometry(e, 2, (int64_t[]){2, 3}, NULL);
  expect_values("eye", e, (const double[]){1, 0, 0, 0, 1, 0}, 6);
  tsr_assert_geometry(T(tsr_linspace(0, 1, 0, TSR_FLOAT32, &o_)), 1, (int64_t[]){0}, NULL);
  /* tril_ writes x and bumps its version */
  tsr_tensor* x = T(tsr_full(2, (int64_t[]){2, 2}, 3, TSR_FLOAT32, TSR_CPU, &o_));
  TSR_ASSERT_OK(tsr_tril_(x, 0));
  cr_expect_eq(tsr_version(x), 1);
  expect_values("tril_", x, (const double[]){3, 0, 3, 3}, 4);
  TSR_ASSERT_OK(tsr_triu_(x, 1));
  expect_values("triu_", x, (const double[]){0, 0, 0, 0}, 4);
  tg_arena_release(ar);
}

static tsr_tensor* gc_einsum(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const tsr_tensor* ops[] = {in[0], in[1]};
  return T(tsr_einsum((const char*)ctx, 2, ops, &o_));
}
static tsr_tensor* gc_repeat_roll(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor* r = T(tsr_repeat(in[0], 3, (int64_t[]){2, 1, 2}, &o_));
  return T(tsr_roll(T(tsr_flip(r, 1, (int64_t[]){1}, &o_)), 1, (int64_t[]){3}, 1, (int64_t[]){2}, &o_));
}

Test(shape_ops, gradcheck) {
  tsr_tensor *a = tg_leaf(3, (int64_t[]){2, 3, 4}, 1, 1, 0), *b = tg_leaf(2, (int64_t[]){4, 3}, 2, 1, 0);
  cr_expect_gt(tg_gradcheck("einsum", gc_einsum, 2, (tsr_tensor* []){a, b}, "bij,jk->bki"), 0);
  cr_expect_gt(tg_gradcheck("einsum trace", gc_einsum, 2, (tsr_tensor* []){a, b}, "bij,ji->b"), 0);
  tsr_tensor* c = tg_leaf(2, (int64_t[]){2, 3}, 3, 1, 0);
  cr_expect_gt(tg_gradcheck("repeat/flip/roll", gc_repeat_roll, 1, &c, NULL), 0);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
}

Test(shape_ops, errors) {
  tg_arena a = {.n = 0}, *ar = &a;
  tsr_tensor* x = T(tsr_zeros(2, (int64_t[]){3, 4}, TSR_FLOAT32, TSR_CPU, &o_));
  tsr_tensor* v = T(tsr_zeros(1, (int64_t[]){4}, TSR_FLOAT32, TSR_CPU, &o_));
  tsr_tensor* out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_linspace(0, 1, -1, TSR_FLOAT32, &out), TSR_ERR_INVALID_ARGUMENT,
                   "number of steps must be non-negative");
  TSR_ASSERT_FAILS(tsr_linspace(0, 1, 2, (tsr_dtype)99, &out), TSR_ERR_INVALID_ARGUMENT, "dtype");
  TSR_ASSERT_FAILS(tsr_eye(-1, 2, TSR_FLOAT32, &out), TSR_ERR_INVALID_ARGUMENT, "n must be greater or equal to 0");
  TSR_ASSERT_FAILS(tsr_tril(v, 0, &out), TSR_ERR_INVALID_ARGUMENT, "tril: input tensor must have at least 2 dimensions");
  TSR_ASSERT_FAILS(tsr_triu_(v, 0), TSR_ERR_INVALID_ARGUMENT, "triu: input tensor must have at least 2 dimensions");
  TSR_ASSERT_FAILS(tsr_flip(x, 2, (int64_t[]){0, 0}, &out), TSR_ERR_INVALID_ARGUMENT,
                   "dim 0 appears multiple times in the list of dims");
  TSR_ASSERT_FAILS(tsr_flip(x, 1, (int64_t[]){2}, &out), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  TSR_ASSERT_FAILS(tsr_roll(x, 1, (int64_t[]){1}, 2, (int64_t[]){0, 1}, &out), TSR_ERR_INVALID_ARGUMENT,
                   "shifts and dimensions must align. shifts: 1, dims:2");
  TSR_ASSERT_FAILS(tsr_roll(x, 2, (int64_t[]){1, 2}, 0, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "shifts and dimensions must align");
  TSR_ASSERT_FAILS(tsr_repeat(x, 1, (int64_t[]){2}, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  TSR_ASSERT_FAILS(tsr_repeat(x, 2, (int64_t[]){-1, 2}, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Trying to create tensor with negative dimension -1");
  TSR_ASSERT_FAILS(tsr_repeat(x, 2, (int64_t[]){INT64_MAX, 2}, &out), TSR_ERR_INVALID_ARGUMENT, "overflow");
  const tsr_tensor* two[] = {x, x};
  TSR_ASSERT_FAILS(tsr_einsum("ij->", 2, two, &out), TSR_ERR_INVALID_ARGUMENT,
                   "more operands were provided than specified in the equation");
  TSR_ASSERT_FAILS(tsr_einsum("ijk", 1, two, &out), TSR_ERR_INVALID_ARGUMENT,
                   "the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0");
  TSR_ASSERT_FAILS(tsr_einsum("ij,jk", 2, two, &out), TSR_ERR_INVALID_ARGUMENT,
                   "subscript j has size 3 for operand 1 which does not broadcast with previously seen size 4");
  TSR_ASSERT_FAILS(tsr_einsum("i!", 1, two, &out), TSR_ERR_INVALID_ARGUMENT, "subscripts must be in [a-zA-Z]");
  TSR_ASSERT_FAILS(tsr_einsum("ii->i", 1, two, &out), TSR_ERR_INVALID_ARGUMENT,
                   "subscript i is repeated for operand 0 but the sizes don't match, 4 != 3");
  TSR_ASSERT_FAILS(tsr_einsum("ij->ii", 1, two, &out), TSR_ERR_INVALID_ARGUMENT,
                   "output subscript i appears more than once in the output");
  TSR_ASSERT_FAILS(tsr_einsum("ij->k", 1, two, &out), TSR_ERR_INVALID_ARGUMENT,
                   "output subscript k does not appear in the equation for any input operand");
  TSR_ASSERT_FAILS(tsr_einsum(NULL, 1, two, &out), TSR_ERR_INVALID_ARGUMENT, "equation is NULL");
  TSR_ASSERT_FAILS(tsr_einsum("ij", 0, two, &out), TSR_ERR_INVALID_ARGUMENT, "must provide at least one operand");
  cr_expect_eq(out, SENTINEL);
  tg_arena_release(ar);
}
