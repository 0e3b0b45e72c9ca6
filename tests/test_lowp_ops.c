/* Ops in bfloat16 and float16 (issue 31): elementwise math, activations,
 * reductions and scans, softmax / log_softmax, layer_norm, embedding, the
 * losses, forward and backward, against tests/golden/lowp_golden.h
 * (gen_lowp.py: torch 1.13's own result in the dtype, or, where torch 1.13
 * refuses the dtype, its float32 result rounded once, torch 2.x's rule).
 * Every case checks the result's dtype, sizes, strides and values, and each
 * input's gradient, dtype included; dropout, whose mask torch draws from
 * another generator, is checked against its definition. */
#include "golden/lowp_golden.h"

TG_PARAMETERIZED(lowp_bf16, forward_and_backward, tg_lowp_bf16, TG_LOWP_BF16_N) {
  if (c->steps[0].op == TG_MAX_DIM_INDICES)
    tg_check_forward(c);
  else
    tg_check_backward(c);
}

TG_PARAMETERIZED(lowp_f16, forward_and_backward, tg_lowp_f16, TG_LOWP_F16_N) {
  if (c->steps[0].op == TG_MAX_DIM_INDICES)
    tg_check_forward(c);
  else
    tg_check_backward(c);
}

static bool has_input_of(const tg_case* c, tsr_dtype dt) {
  for (int k = 0; k < c->ninputs; ++k)
    if (c->inputs[k].dtype == dt) return true;
  return false;
}

/* Every golden program in both dtypes: the two tables list the same programs. */
Test(lowp, tables_cover_both_dtypes) {
  cr_assert_eq(TG_LOWP_BF16_N, TG_LOWP_F16_N);
  cr_expect_geq(TG_LOWP_BF16_N, 75);
  for (size_t i = 0; i < TG_LOWP_BF16_N; ++i) {
    cr_expect(has_input_of(&tg_lowp_bf16[i], TSR_BFLOAT16), "%s", tg_lowp_bf16[i].name);
    cr_expect(has_input_of(&tg_lowp_f16[i], TSR_FLOAT16), "%s", tg_lowp_f16[i].name);
    cr_expect_eq(tg_lowp_bf16[i].steps[0].op, tg_lowp_f16[i].steps[0].op, "%s", tg_lowp_bf16[i].name);
  }
}

/* v rounded to dtype (through tessera's conversion, round to nearest even). */
static double rounded(double v, tsr_dtype dtype) {
  tsr_tensor* t = tg_from_doubles(&v, 1, dtype);
  double* r = tg_values(t);
  const double out = r[0];
  free(r);
  tsr_tensor_release(t);
  return out;
}

/* dropout(x, p, train) in a 16-bit dtype: torch's x * noise with noise =
 * bernoulli(1 - p) / (1 - p) held in x's dtype, so every kept element is
 * x * round(1 / (1 - p)) rounded once; the gradient is grad * noise. */
static void check_dropout(tsr_dtype dt, double p) {
  const int64_t n = 4000;
  double* xv = malloc((size_t)n * sizeof(double));
  double* gv = malloc((size_t)n * sizeof(double));
  cr_assert(xv && gv);
  for (int64_t i = 0; i < n; ++i) {
    xv[i] = rounded(0.37 + 0.013 * (double)(i % 211) - 1.1, dt);
    gv[i] = rounded(0.5 - 0.007 * (double)(i % 97), dt);
  }
  tsr_tensor *x = tg_from_doubles(xv, n, dt), *g = tg_from_doubles(gv, n, dt), *y = NULL, *gx = NULL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_generator* gen = NULL;
  TSR_ASSERT_OK(tsr_generator_create(31, &gen));
  TSR_ASSERT_OK(tsr_dropout(x, p, true, gen, &y));
  cr_expect_eq(tsr_tensor_dtype(y), dt);
  TSR_ASSERT_OK(tsr_backward(y, g, false));
  TSR_ASSERT_OK(tsr_grad(x, &gx));
  cr_assert_not_null(gx);
  cr_expect_eq(tsr_tensor_dtype(gx), dt);
  const double k = rounded(1.0 / (1.0 - p), dt);
  double *yv = tg_values(y), *gxv = tg_values(gx);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = yv[i] != 0.0 || (xv[i] == 0.0 && gxv[i] != 0.0);
    kept += keep;
    cr_expect_eq(yv[i], keep ? rounded(xv[i] * k, dt) : 0.0, "%s x[%lld] = %g: y %g", tsr_dtype_name(dt),
                 (long long)i, xv[i], yv[i]);
    cr_expect_eq(gxv[i], keep ? rounded(gv[i] * k, dt) : 0.0, "%s grad[%lld] %g", tsr_dtype_name(dt),
                 (long long)i, gxv[i]);
  }
  /* About 1 - p of the elements kept (binomial: within 5 standard deviations). */
  const double mean = (double)n * (1.0 - p), sd = sqrt((double)n * p * (1.0 - p));
  cr_expect(fabs((double)kept - mean) < 5 * sd, "kept %lld of %lld", (long long)kept, (long long)n);
  free(yv);
  free(gxv);
  free(xv);
  free(gv);
  tsr_generator_release(gen);
  tsr_tensor* all[] = {x, g, y, gx};
  for (size_t i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
}

Test(lowp, dropout_bf16) { check_dropout(TSR_BFLOAT16, 0.3); }
Test(lowp, dropout_f16) { check_dropout(TSR_FLOAT16, 0.3); }

/* Not training: the input itself, in its dtype. */
Test(lowp, dropout_eval_is_identity) {
  const double v[] = {0.5, -1.25, 3.0};
  for (int k = 0; k < 2; ++k) {
    const tsr_dtype dt = k ? TSR_FLOAT16 : TSR_BFLOAT16;
    tsr_tensor *x = tg_from_doubles(v, 3, dt), *y = NULL;
    tsr_generator* gen = NULL;
    TSR_ASSERT_OK(tsr_generator_create(1, &gen));
    TSR_ASSERT_OK(tsr_dropout(x, 0.5, false, gen, &y));
    cr_expect_eq(tsr_tensor_dtype(y), dt);
    double* yv = tg_values(y);
    for (int i = 0; i < 3; ++i) cr_expect_eq(yv[i], v[i]);
    free(yv);
    tsr_generator_release(gen);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
  }
}
