/* torch.eq/ne/lt/le/gt/ge, abs and allclose against PyTorch 1.13
 * (golden/compare_golden.h, from golden/gen_compare.py): values, result
 * sizes and strides, type promotion, NaN, broadcasting, abs's gradient;
 * then every error path. */
#include "helpers.h"

#include <math.h>

#include "golden/compare_golden.h"

static tsr_tensor* operand(const compare_operand* o) {
  int64_t n = 1;
  for (int64_t d = 0; d < o->ndim; ++d) n *= o->sizes[d];
  tsr_tensor *f64 = NULL, *t = NULL;
  TSR_ASSERT_OK(tsr_from_data(o->values, (size_t)n * sizeof(double), o->ndim, o->sizes,
                              TSR_FLOAT64, &f64));
  TSR_ASSERT_OK(tsr_to_dtype(f64, o->dtype, &t));
  tsr_tensor_release(f64);
  if (o->transpose) {
    tsr_tensor* tt = NULL;
    TSR_ASSERT_OK(tsr_transpose(t, 0, 1, &tt));
    tsr_tensor_release(t);
    t = tt;
  }
  return t;
}

typedef tsr_status (*compare_fn)(const tsr_tensor*, const tsr_tensor*, tsr_tensor**);

static compare_fn by_name(const char* op) {
  if (strcmp(op, "eq") == 0) return tsr_eq;
  if (strcmp(op, "ne") == 0) return tsr_ne;
  if (strcmp(op, "lt") == 0) return tsr_lt;
  if (strcmp(op, "le") == 0) return tsr_le;
  if (strcmp(op, "gt") == 0) return tsr_gt;
  return tsr_ge;
}

Test(compare, matches_torch) {
  for (size_t i = 0; i < N_COMPARE_CASES; ++i) {
    const compare_case* c = &compare_cases[i];
    tsr_tensor *a = operand(&c->a), *b = operand(&c->b), *r = NULL;
    TSR_ASSERT_OK(by_name(c->op)(a, b, &r));
    cr_assert_eq(tsr_tensor_dtype(r), TSR_BOOL, "case %zu (%s)", i, c->op);
    cr_assert_eq(tsr_tensor_ndim(r), c->ndim, "case %zu (%s)", i, c->op);
    int64_t n = tsr_tensor_numel(r);
    for (int64_t d = 0; d < c->ndim; ++d) {
      cr_assert_eq(tsr_tensor_sizes(r)[d], c->sizes[d], "case %zu (%s) size %ld", i, c->op, (long)d);
      cr_assert_eq(tsr_tensor_strides(r)[d], c->strides[d], "case %zu (%s) stride %ld", i, c->op,
                   (long)d);
    }
    bool got[8] = {0};
    TSR_ASSERT_OK(tsr_copy_to_buffer(r, got, sizeof got, NULL));
    for (int64_t k = 0; k < n; ++k)
      cr_assert_eq(got[k], c->expected[k] != 0, "case %zu (%s) element %ld", i, c->op, (long)k);
    cr_assert_not(tsr_requires_grad(r));
    tsr_tensor_release(r);
    tsr_tensor_release(b);
    tsr_tensor_release(a);
  }
}

/* Comparisons record no history even with an operand requiring grad. */
Test(compare, no_autograd_history) {
  const int64_t n = 2;
  tsr_tensor *x = NULL, *r = NULL;
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_gt(x, x, &r));
  cr_assert_null(tsr_grad_fn_name(r));
  cr_assert_not(tsr_requires_grad(r));
  tsr_tensor_release(r);
  tsr_tensor_release(x);
}

Test(compare, abs_and_its_gradient) {
  for (size_t i = 0; i < N_ABS_CASES; ++i) {
    const abs_case* c = &abs_cases[i];
    tsr_tensor *f64 = NULL, *x = NULL, *y = NULL;
    TSR_ASSERT_OK(tsr_from_data(c->values, (size_t)c->n * sizeof(double), 1, &c->n, TSR_FLOAT64, &f64));
    TSR_ASSERT_OK(tsr_to_dtype(f64, c->dtype, &x));
    const bool floating = c->dtype == TSR_FLOAT32 || c->dtype == TSR_FLOAT64;
    if (floating) TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_abs(x, &y));
    cr_assert_eq(tsr_tensor_dtype(y), c->dtype);
    for (int64_t k = 0; k < c->n; ++k) {
      double v = 0;
      TSR_ASSERT_OK(tsr_get_double(y, 1, &k, &v));
      if (isnan(c->expected[k]))
        cr_assert(isnan(v), "case %zu element %ld", i, (long)k);
      else
        cr_assert_eq(v, c->expected[k], "case %zu element %ld: %g", i, (long)k, v);
    }
    if (floating) {
      cr_assert_str_eq(tsr_grad_fn_name(y), "AbsBackward0");
      tsr_tensor* s = NULL;
      TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &s));
      TSR_ASSERT_OK(tsr_backward(s, NULL, false));
      tsr_tensor* g = NULL;
      TSR_ASSERT_OK(tsr_grad(x, &g));
      for (int64_t k = 0; k < c->n; ++k) {
        double v = 0;
        TSR_ASSERT_OK(tsr_get_double(g, 1, &k, &v));
        if (isnan(c->grad[k]))
          cr_assert(isnan(v), "case %zu grad %ld", i, (long)k);
        else
          cr_assert_eq(v, c->grad[k], "case %zu grad %ld: %g", i, (long)k, v);
      }
      tsr_tensor_release(g);
      tsr_tensor_release(s);
    }
    tsr_tensor_release(y);
    tsr_tensor_release(x);
    tsr_tensor_release(f64);
  }
}

/* abs of float16 and bfloat16 clears the sign bit in place of the trip
 * through float32: every one of the 65536 bit patterns must give the bits
 * of to(float32) -> abs -> to(dtype), NaNs included, on a contiguous input
 * (the vectorised loop) and on a strided one. */
Test(compare, abs_of_16_bit_floats_equals_abs_in_float32) {
  static uint16_t bits[2 * 65536];
  for (uint32_t i = 0; i < 65536; ++i) bits[i] = bits[65536 + i] = (uint16_t)i;
  const tsr_dtype dtypes[] = {TSR_FLOAT16, TSR_BFLOAT16};
  for (int k = 0; k < 2; ++k) {
    const int64_t n = 65536, stride2 = 2, n2 = 65536;
    tsr_tensor *x = NULL, *xs = NULL;
    TSR_ASSERT_OK(tsr_from_blob(bits, 1, &n, NULL, dtypes[k], TSR_DEVICE_CPU, NULL, NULL, &x));
    TSR_ASSERT_OK(tsr_from_blob(bits, 1, &n2, &stride2, dtypes[k], TSR_DEVICE_CPU, NULL, NULL, &xs));
    tsr_tensor* inputs[] = {x, xs};
    for (int v = 0; v < 2; ++v) {
      tsr_tensor *y = NULL, *f = NULL, *fa = NULL, *want = NULL;
      TSR_ASSERT_OK(tsr_abs(inputs[v], &y));
      TSR_ASSERT_OK(tsr_to_dtype(inputs[v], TSR_FLOAT32, &f));
      TSR_ASSERT_OK(tsr_abs(f, &fa));
      TSR_ASSERT_OK(tsr_to_dtype(fa, dtypes[k], &want));
      const uint16_t* got = tsr_tensor_data_ptr(y);
      const uint16_t* exp = tsr_tensor_data_ptr(want);
      for (int64_t i = 0; i < 65536; ++i)
        cr_assert_eq(got[i], exp[i], "%s input 0x%04x (%s): 0x%04x, want 0x%04x",
                     tsr_dtype_name(dtypes[k]), (unsigned)i, v ? "strided" : "contiguous", got[i], exp[i]);
      tsr_tensor_release(y);
      tsr_tensor_release(f);
      tsr_tensor_release(fa);
      tsr_tensor_release(want);
    }
    tsr_tensor_release(x);
    tsr_tensor_release(xs);
  }
}

Test(compare, allclose_matches_torch) {
  for (size_t i = 0; i < N_ALLCLOSE_CASES; ++i) {
    const allclose_case* c = &allclose_cases[i];
    tsr_tensor *a = NULL, *b = NULL;
    TSR_ASSERT_OK(tsr_from_data(c->a, (size_t)c->n * sizeof(double), 1, &c->n, TSR_FLOAT64, &a));
    TSR_ASSERT_OK(tsr_from_data(c->b, (size_t)c->n * sizeof(double), 1, &c->n, TSR_FLOAT64, &b));
    bool close = !c->expected;
    TSR_ASSERT_OK(tsr_allclose(a, b, c->rtol, c->atol, c->equal_nan != 0, &close));
    cr_assert_eq(close, c->expected != 0, "case %zu", i);
    tsr_tensor_release(b);
    tsr_tensor_release(a);
  }
}

/* torch.allclose(torch.ones(2, 1), torch.ones(3)) broadcasts: True. */
Test(compare, allclose_broadcasts) {
  const int64_t s21[] = {2, 1}, s3[] = {3};
  tsr_tensor *a = NULL, *b = NULL;
  TSR_ASSERT_OK(tsr_ones(2, s21, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_ones(1, s3, TSR_FLOAT32, TSR_CPU, &b));
  bool close = false;
  TSR_ASSERT_OK(tsr_allclose(a, b, 1e-5, 1e-8, false, &close));
  cr_assert(close);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
}

Test(compare, errors_change_nothing) {
  const int64_t s2 = 2, s3 = 3;
  tsr_tensor *a = NULL, *b = NULL, *d = NULL, *flags = NULL;
  TSR_ASSERT_OK(tsr_ones(1, &s2, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_ones(1, &s3, TSR_FLOAT32, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_ones(1, &s2, TSR_FLOAT64, TSR_CPU, &d));
  TSR_ASSERT_OK(tsr_ones(1, &s2, TSR_BOOL, TSR_CPU, &flags));
  tsr_tensor* out = (tsr_tensor*)0x1;
  TSR_ASSERT_FAILS(tsr_lt(a, b, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                   "dimension 0");
  cr_assert_eq(out, (tsr_tensor*)0x1);
  TSR_ASSERT_FAILS(tsr_eq(NULL, a, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_eq(a, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "b is NULL");
  TSR_ASSERT_FAILS(tsr_eq(a, a, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_abs(flags, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"abs_cpu\" not implemented for 'Bool'");
  TSR_ASSERT_FAILS(tsr_abs(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  cr_assert_eq(out, (tsr_tensor*)0x1);
  bool close = true;
  TSR_ASSERT_FAILS(tsr_allclose(a, d, 1e-5, 1e-8, false, &close), TSR_ERR_DTYPE_MISMATCH,
                   "float32 did not match float64");
  TSR_ASSERT_FAILS(tsr_allclose(a, b, 1e-5, 1e-8, false, &close), TSR_ERR_SHAPE_MISMATCH,
                   "must match the size");
  TSR_ASSERT_FAILS(tsr_allclose(a, a, 1e-5, 1e-8, false, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  cr_assert(close);
  tsr_tensor_release(flags);
  tsr_tensor_release(d);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
}
