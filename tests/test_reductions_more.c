/* tsr_cumsum, tsr_cumprod, tsr_prod and tsr_prod_dim against PyTorch 1.13
 * (tests/golden/gen_reductions_more.py): values, result dtypes (torch's
 * int64 promotion, dtype=), strides, empty and 0-dim tensors; gradients
 * and grad_fn names (zeros in cumprod/prod included); float64 gradcheck
 * and gradgradcheck through views and zeros; every error path. */
#include <stdint.h>

#include "golden/reductions_more_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(scan, forward, tg_scan_fwd, TG_SCAN_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(scan, prod_forward, tg_prod_fwd, TG_PROD_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(scan, grads, tg_scan_grad, TG_SCAN_GRAD_N) { tg_check_backward(c); }

/* A float64 leaf holding the given values (zeros where the test wants them). */
static tsr_tensor* leaf_of(const double* v, int64_t ndim, const int64_t* sizes) {
  int64_t n = 1;
  for (int64_t i = 0; i < ndim; ++i) n *= sizes[i];
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), ndim, sizes, TSR_FLOAT64, &t));
  TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

typedef struct {
  int op;      /* 0 cumsum, 1 cumprod, 2 prod, 3 prod_dim */
  int64_t dim; /* scanned / reduced dim */
  bool transpose; /* run on x^T (a strided view) */
} scan_ctx;

static tsr_tensor* apply(tg_arena* ar, tsr_tensor* x, const scan_ctx* c) {
  if (c->transpose) x = T(tsr_t(x, &o_));
  switch (c->op) {
    case 0: return T(tsr_cumsum(x, c->dim, NULL, &o_));
    case 1: return T(tsr_cumprod(x, c->dim, NULL, &o_));
    case 2: return T(tsr_prod(x, NULL, &o_));
    default: return T(tsr_prod_dim(x, c->dim, c->op == 4, NULL, &o_));
  }
}

static tsr_tensor* f_scan(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  return apply(ar, in[0], ctx);
}

/* sum(op(x)^2 * r)'s gradient, squared and summed: differentiating it
 * checks the backward's own backward (create_graph). in[1] = r. */
static tsr_tensor* f_double(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  bool prev = tsr_set_grad_enabled(true);
  tsr_tensor* y = apply(ar, in[0], ctx);
  tsr_tensor* l = T(tsr_sum(T(tsr_mul(T(tsr_mul(y, y, &o_)), in[1], &o_)), 0, NULL, false, &o_));
  tsr_tensor* g = NULL;
  TSR_ASSERT_OK(tsr_autograd_grad(1, &l, NULL, 1, in, true, true, false, &g));
  tg_keep(ar, g);
  tsr_tensor* total = T(tsr_sum(T(tsr_mul(g, g, &o_)), 0, NULL, false, &o_));
  tsr_set_grad_enabled(prev);
  return total;
}

/* Rows with no zero, one zero, two zeros (and one starting with zero). */
static const double kZeros[] = {1.5, -0.7, 2.0, 1.1, 0.5, 0.0, 1.3, -2.0,
                                0.0, 1.2, 0.0, 0.9, -1.4, 0.8, 0.6, 0.0};
static const scan_ctx kCases[] = {{0, 1, false}, {0, 0, true}, {1, 1, false}, {1, 0, true}, {1, -1, true},
                                  {2, 0, false}, {2, 0, true}, {3, 1, false}, {3, 0, true}, {4, 1, false}};
#define NCASES (sizeof kCases / sizeof kCases[0])

Test(scan, gradcheck_random) {
  const int64_t s[] = {4, 4};
  for (size_t k = 0; k < NCASES; ++k) {
    tsr_tensor* x = tg_leaf(2, s, 300 + k, 1, 0.3);
    cr_expect_eq(tg_gradcheck("scan random", f_scan, 1, &x, &kCases[k]), 16, "case %zu", k);
    tsr_tensor_release(x);
  }
}

Test(scan, gradcheck_zeros) {
  const int64_t s[] = {4, 4};
  for (size_t k = 0; k < NCASES; ++k) {
    tsr_tensor* x = leaf_of(kZeros, 2, s);
    cr_expect_eq(tg_gradcheck("scan zeros", f_scan, 1, &x, &kCases[k]), 16, "case %zu", k);
    tsr_tensor_release(x);
  }
}

Test(scan, gradgradcheck) {
  const int64_t s[] = {4, 4};
  for (size_t k = 0; k < NCASES; ++k) {
    /* the weighting r has the output's sizes */
    int64_t rs[2] = {4, 4}, rn = 2;
    if (kCases[k].op == 2) rn = 0;
    if (kCases[k].op == 3) rn = 1;
    if (kCases[k].op == 4) rs[1] = 1;
    for (int z = 0; z < 2; ++z) {
      tsr_tensor* in[] = {z ? leaf_of(kZeros, 2, s) : tg_leaf(2, s, 320 + k, 1, 0.3),
                          tg_leaf(rn, rs, 340 + k, 1, 0)};
      TSR_ASSERT_OK(tsr_set_requires_grad(in[1], false));
      cr_expect_eq(tg_gradcheck("scan double backward", f_double, 2, in, &kCases[k]), 16, "case %zu zeros %d",
                   k, z);
      tsr_tensor_release(in[0]);
      tsr_tensor_release(in[1]);
    }
  }
}

/* A [4096] float32 scan, split across threads, equals a float64 reference. */
Test(scan, long_rows_match_reference) {
  const int64_t s[] = {3, 5000};
  tsr_tensor* x = tg_leaf(2, s, 360, 1, 0);
  tsr_tensor *y, *yd;
  TSR_ASSERT_OK(tsr_cumsum(x, 1, NULL, &y));
  const tsr_dtype f32 = TSR_FLOAT32;
  TSR_ASSERT_OK(tsr_cumsum(x, 0, &f32, &yd));
  double* v = tg_values(y);
  double* xv = tg_values(x);
  for (int r = 0; r < 3; ++r) {
    double acc = 0;
    for (int j = 0; j < 5000; ++j) {
      acc += xv[r * 5000 + j];
      cr_assert_float_eq(v[r * 5000 + j], acc, 1e-9, "row %d col %d", r, j);
    }
  }
  cr_expect_eq(tsr_tensor_dtype(yd), TSR_FLOAT32);
  free(v);
  free(xv);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(yd);
}

/* ---- errors ------------------------------------------------------------------ */

Test(scan, errors) {
  const int64_t s23[] = {2, 3};
  tsr_tensor *x = filled(2, s23, TSR_FLOAT32, 2), *h = filled(2, s23, TSR_FLOAT16, 2),
             *b = filled(2, s23, TSR_BFLOAT16, 2), *z = filled(0, NULL, TSR_FLOAT32, 2), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  const tsr_dtype f16 = TSR_FLOAT16, bf16 = TSR_BFLOAT16, u16 = TSR_UINT16, bad = (tsr_dtype)99;
  TSR_ASSERT_FAILS(tsr_cumsum(x, 2, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_cumprod(x, -3, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  TSR_ASSERT_FAILS(tsr_cumsum(z, 1, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  TSR_ASSERT_FAILS(tsr_prod_dim(x, 5, false, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  TSR_EXPECT_RESULT_DTYPE(tsr_cumsum(h, 0, NULL, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_cumprod(h, 0, NULL, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_cumsum(x, 0, &f16, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_prod(h, NULL, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_prod(b, NULL, &out), out, TSR_BFLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_prod_dim(x, 0, true, &bf16, &out), out, TSR_BFLOAT16);
  TSR_ASSERT_FAILS(tsr_cumsum(x, 0, &u16, &out), TSR_ERR_DTYPE_MISMATCH, "not implemented for 'UInt16'");
  TSR_ASSERT_FAILS(tsr_cumsum(x, 0, &bad, &out), TSR_ERR_INVALID_ARGUMENT, "dtype");
  TSR_ASSERT_FAILS(tsr_prod(x, &bad, &out), TSR_ERR_INVALID_ARGUMENT, "dtype");
  TSR_ASSERT_FAILS(tsr_cumsum(NULL, 0, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_cumprod(NULL, 0, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_prod(NULL, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_prod_dim(NULL, 0, false, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_cumsum(x, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_cumprod(x, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_prod(x, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_prod_dim(x, 0, false, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 2);
  tsr_tensor* all[] = {x, h, b, z};
  for (size_t k = 0; k < 4; ++k) tsr_tensor_release(all[k]);
}

/* ---- var / std / var_mean / std_mean -------------------------------------------- */

TG_PARAMETERIZED(var, forward, tg_var_fwd, TG_VAR_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(var, grads, tg_var_grad, TG_VAR_GRAD_N) { tg_check_backward(c); }

typedef struct {
  int op; /* 0 var, 1 std, 2 var_mean (var + 2 mean), 3 std_mean (std * mean) */
  int64_t ndims, dims[2], correction;
  bool keepdim, transpose;
} var_ctx;

static tsr_tensor* apply_var(tg_arena* ar, tsr_tensor* x, const var_ctx* c) {
  if (c->transpose) x = T(tsr_t(x, &o_));
  if (c->op == 0) return T(tsr_var(x, c->ndims, c->dims, c->correction, c->keepdim, &o_));
  if (c->op == 1) return T(tsr_std(x, c->ndims, c->dims, c->correction, c->keepdim, &o_));
  tsr_tensor *a = NULL, *m = NULL;
  if (c->op == 2) TSR_ASSERT_OK(tsr_var_mean(x, c->ndims, c->dims, c->correction, c->keepdim, &a, &m));
  else TSR_ASSERT_OK(tsr_std_mean(x, c->ndims, c->dims, c->correction, c->keepdim, &a, &m));
  tg_keep(ar, a);
  tg_keep(ar, m);
  if (c->op == 2) return T(tsr_add(a, T(tsr_mul_scalar(m, 2, &o_)), &o_));
  return T(tsr_mul(a, m, &o_));
}

static tsr_tensor* f_var(tg_arena* ar, tsr_tensor* const* in, const void* ctx) { return apply_var(ar, in[0], ctx); }

static tsr_tensor* f_var_double(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  bool prev = tsr_set_grad_enabled(true);
  tsr_tensor* y = apply_var(ar, in[0], ctx);
  tsr_tensor* l = T(tsr_sum(T(tsr_mul(T(tsr_mul(y, y, &o_)), in[1], &o_)), 0, NULL, false, &o_));
  tsr_tensor* g = NULL;
  TSR_ASSERT_OK(tsr_autograd_grad(1, &l, NULL, 1, in, true, true, false, &g));
  tg_keep(ar, g);
  tsr_tensor* total = T(tsr_sum(T(tsr_mul(g, g, &o_)), 0, NULL, false, &o_));
  tsr_set_grad_enabled(prev);
  return total;
}

static const var_ctx kVarCases[] = {
    {0, 1, {1}, 1, false, false}, {0, 0, {0}, 0, false, true},  {1, 1, {0}, 1, true, true},
    {1, 2, {0, 1}, 1, false, false}, {2, 1, {-1}, 1, false, false}, {3, 1, {1}, 0, true, true},
};
#define NVAR (sizeof kVarCases / sizeof kVarCases[0])

Test(var, gradcheck_and_gradgradcheck) {
  const int64_t s[] = {3, 4};
  for (size_t k = 0; k < NVAR; ++k) {
    const var_ctx* c = &kVarCases[k];
    tsr_tensor* x = tg_leaf(2, s, 400 + k, 1, 0.2);
    cr_expect_eq(tg_gradcheck("var", f_var, 1, &x, c), 12, "case %zu", k);
    /* the weighting r: the output's sizes (x^T is [4, 3]) */
    tsr_tensor *y, *r;
    {
      tg_arena a = {.n = 0}, *ar = &a;
      y = apply_var(ar, x, c);
      TSR_ASSERT_OK(tsr_full(tsr_tensor_ndim(y), tsr_tensor_sizes(y), 0.7, TSR_FLOAT64, TSR_CPU, &r));
      tg_arena_release(ar);
    }
    tsr_tensor* in[] = {x, r};
    cr_expect_eq(tg_gradcheck("var double backward", f_var_double, 2, in, c), 12, "case %zu", k);
    tsr_tensor_release(r);
    tsr_tensor_release(x);
  }
}

Test(var, errors) {
  const int64_t s23[] = {2, 3}, d00[] = {0, 0}, d3[] = {3};
  tsr_tensor *x = filled(2, s23, TSR_FLOAT32, 2), *xi = filled(2, s23, TSR_INT64, 2),
             *xb = filled(2, s23, TSR_BOOL, 1), *out = SENTINEL, *out2 = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_FAILS(tsr_var(xi, 0, NULL, 1, false, &out), TSR_ERR_DTYPE_MISMATCH,
                   "std and var only support floating point and complex dtypes");
  TSR_ASSERT_FAILS(tsr_std(xb, 0, NULL, 1, false, &out), TSR_ERR_DTYPE_MISMATCH,
                   "std and var only support floating point and complex dtypes");
  TSR_ASSERT_FAILS(tsr_var_mean(xi, 0, NULL, 1, false, &out, &out2), TSR_ERR_DTYPE_MISMATCH,
                   "var_mean only support floating point and complex dtypes");
  TSR_ASSERT_FAILS(tsr_std_mean(xi, 0, NULL, 1, false, &out, &out2), TSR_ERR_DTYPE_MISMATCH,
                   "std_mean only support floating point and complex dtypes");
  TSR_ASSERT_FAILS(tsr_var(x, 2, d00, 1, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "dim 0 appears multiple times in the list of dims");
  TSR_ASSERT_FAILS(tsr_std(x, 1, d3, 1, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
  TSR_ASSERT_FAILS(tsr_var_mean(x, 1, d3, 1, false, &out, &out2), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  TSR_ASSERT_FAILS(tsr_var(x, 1, NULL, 1, false, &out), TSR_ERR_INVALID_ARGUMENT, "dims");
  TSR_ASSERT_FAILS(tsr_var(NULL, 0, NULL, 1, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_std(NULL, 0, NULL, 1, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_var(x, 0, NULL, 1, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_std(x, 0, NULL, 1, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_var_mean(NULL, 0, NULL, 1, false, &out, &out2), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_var_mean(x, 0, NULL, 1, false, NULL, &out2), TSR_ERR_INVALID_ARGUMENT, "var is NULL");
  TSR_ASSERT_FAILS(tsr_var_mean(x, 0, NULL, 1, false, &out, NULL), TSR_ERR_INVALID_ARGUMENT, "mean is NULL");
  TSR_ASSERT_FAILS(tsr_std_mean(x, 0, NULL, 1, false, NULL, &out2), TSR_ERR_INVALID_ARGUMENT, "std is NULL");
  TSR_ASSERT_FAILS(tsr_std_mean(x, 0, NULL, 1, false, &out, NULL), TSR_ERR_INVALID_ARGUMENT, "mean is NULL");
  cr_expect_eq(out, SENTINEL);
  cr_expect_eq(out2, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 2);
  tsr_tensor* all[] = {x, xi, xb};
  for (size_t k = 0; k < 3; ++k) tsr_tensor_release(all[k]);
}

/* ---- logsumexp -------------------------------------------------------------------- */

TG_PARAMETERIZED(logsumexp, forward, tg_lse_fwd, TG_LSE_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(logsumexp, grads, tg_lse_grad, TG_LSE_GRAD_N) { tg_check_backward(c); }

static tsr_tensor* f_lse(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  const int64_t d1[] = {1};
  tsr_tensor* xt = T(tsr_t(in[0], &o_)); /* a strided view */
  return T(tsr_logsumexp(T(tsr_mul_scalar(xt, 3, &o_)), 1, d1, false, &o_));
}

static tsr_tensor* f_lse_double(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  bool prev = tsr_set_grad_enabled(true);
  tsr_tensor* y = f_lse(ar, in, ctx);
  tsr_tensor* l = T(tsr_sum(T(tsr_mul(T(tsr_mul(y, y, &o_)), in[1], &o_)), 0, NULL, false, &o_));
  tsr_tensor* g = NULL;
  TSR_ASSERT_OK(tsr_autograd_grad(1, &l, NULL, 1, in, true, true, false, &g));
  tg_keep(ar, g);
  tsr_tensor* total = T(tsr_sum(T(tsr_mul(g, g, &o_)), 0, NULL, false, &o_));
  tsr_set_grad_enabled(prev);
  return total;
}

Test(logsumexp, gradcheck_and_gradgradcheck) {
  const int64_t s[] = {3, 4}, sr[] = {4};
  tsr_tensor* x = tg_leaf(2, s, 500, 1, 0);
  cr_expect_eq(tg_gradcheck("logsumexp", f_lse, 1, &x, NULL), 12);
  tsr_tensor* in[] = {x, tg_leaf(1, sr, 501, 1, 0)};
  TSR_ASSERT_OK(tsr_set_requires_grad(in[1], false));
  cr_expect_eq(tg_gradcheck("logsumexp double backward", f_lse_double, 2, in, NULL), 12);
  tsr_tensor_release(in[1]);
  tsr_tensor_release(x);
}

Test(logsumexp, errors) {
  const int64_t s23[] = {2, 3}, d00[] = {0, 0}, d2[] = {2}, d1[] = {1};
  tsr_tensor *x = filled(2, s23, TSR_FLOAT32, 2), *h = filled(2, s23, TSR_FLOAT16, 2), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_EXPECT_RESULT_DTYPE(tsr_logsumexp(h, 1, d1, false, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_logsumexp(x, 2, d00, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "dim 0 appears multiple times in the list of dims");
  TSR_ASSERT_FAILS(tsr_logsumexp(x, 1, d2, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_logsumexp(x, 1, NULL, false, &out), TSR_ERR_INVALID_ARGUMENT, "dims");
  TSR_ASSERT_FAILS(tsr_logsumexp(NULL, 1, d1, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_logsumexp(x, 1, d1, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 2);
  tsr_tensor_release(x);
  tsr_tensor_release(h);
}

/* ---- any / all ------------------------------------------------------------------------ */

TG_PARAMETERIZED(any_all, forward, tg_any_fwd, TG_ANY_FWD_N) { tg_check_forward(c); }

Test(any_all, errors) {
  const int64_t s23[] = {2, 3};
  tsr_tensor *x = filled(2, s23, TSR_FLOAT32, 2), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_any_dim(x, 2, false, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_all_dim(x, -3, false, &out), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  TSR_ASSERT_FAILS(tsr_any(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_all(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_any_dim(NULL, 0, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_all_dim(NULL, 0, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_any(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_all(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_any_dim(x, 0, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_all_dim(x, 0, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_filled(x, 2);
  tsr_tensor_release(x);
}

/* ---- min / argmin ------------------------------------------------------------------- */

TG_PARAMETERIZED(min, forward, tg_min_fwd, TG_MIN_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(min, grads, tg_min_grad, TG_MIN_GRAD_N) { tg_check_backward(c); }

static tsr_tensor* f_min(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const int* which = ctx;
  tsr_tensor* xt = T(tsr_t(in[0], &o_));
  if (*which == 0) return T(tsr_min(xt, &o_));
  tsr_tensor* v = NULL;
  TSR_ASSERT_OK(tsr_min_dim(xt, 1, *which == 2, &v, NULL));
  return tg_keep(ar, v);
}

Test(min, gradcheck) {
  const int64_t s[] = {3, 4};
  for (int which = 0; which < 3; ++which) {
    tsr_tensor* x = tg_leaf(2, s, 600 + (uint64_t)which, 1, 0);
    cr_expect_eq(tg_gradcheck("min", f_min, 1, &x, &which), 12, "case %d", which);
    tsr_tensor_release(x);
  }
}

Test(min, errors) {
  const int64_t s23[] = {2, 3}, s03[] = {0, 3};
  tsr_tensor *x = filled(2, s23, TSR_FLOAT32, 2), *e = filled(2, s03, TSR_FLOAT32, 0), *out = SENTINEL,
             *out2 = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_FAILS(tsr_min(e, &out), TSR_ERR_SHAPE_MISMATCH,
                   "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                   "dim with the 'dim' argument.");
  TSR_ASSERT_FAILS(tsr_min_dim(e, 0, false, &out, &out2), TSR_ERR_SHAPE_MISMATCH,
                   "min(): Expected reduction dim 0 to have non-zero size.");
  TSR_ASSERT_FAILS(tsr_argmin(e, 0, false, &out), TSR_ERR_SHAPE_MISMATCH,
                   "argmin(): Expected reduction dim 0 to have non-zero size.");
  TSR_ASSERT_FAILS(tsr_min_dim(x, 2, false, &out, &out2), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_argmin(x, -3, false, &out), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  tsr_tensor* b = filled(2, s23, TSR_BOOL, 1);
  TSR_ASSERT_FAILS(tsr_argmin(b, 0, false, &out), TSR_ERR_DTYPE_MISMATCH, "\"argmin_cpu\" not implemented for 'Bool'");
  tsr_tensor_release(b);
  TSR_ASSERT_FAILS(tsr_min_dim(x, 0, false, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "values and indices are both NULL");
  TSR_ASSERT_FAILS(tsr_min(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_min_dim(NULL, 0, false, &out, &out2), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_argmin(NULL, 0, false, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_min(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_argmin(x, 0, false, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  cr_expect_eq(out2, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 2);
  tsr_tensor_release(x);
  tsr_tensor_release(e);
}
