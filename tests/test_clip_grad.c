/* Gradient clipping (clip_grad.h) against PyTorch 1.13
 * (tests/golden/gen_training.py -> golden/training_golden.h): the total
 * norm and the clipped gradients for p-norms 2, 1, inf, 3, 0.5, 0 and -inf,
 * float32 and float64, a parameter without .grad; clip_grad_value_; the
 * errors (non-finite norm with torch's message, an expanded gradient, NULLs)
 * leave every gradient as it was. */
#include "golden/training_golden.h"
#include "training_helpers.h"

static void expect_close(const double* got, const double* want, int64_t n, double tol, const char* what) {
  for (int64_t i = 0; i < n; ++i)
    cr_expect(fabs(got[i] - want[i]) <= tol + tol * fabs(want[i]), "%s, element %lld: %.9g, torch %.9g", what,
              (long long)i, got[i], want[i]);
}

Test(clip_grad, norm_matches_torch) {
  for (size_t c = 0; c < TG_CLIP_NUM_CASES; ++c) {
    const tg_clip_case* k = &tg_clip_cases[c];
    const tsr_dtype dtype = k->float64 ? TSR_FLOAT64 : TSR_FLOAT32;
    const double tol = k->float64 ? 1e-12 : 2e-6;
    tsr_tensor* ps[3];
    tr_params(dtype, ps);
    for (int i = 0; i < 3; ++i)
      if (!(k->p1_without_grad && i == 1)) tr_set_grad(ps[i], i, tg_clip_grads, 1.0, dtype);
    const int64_t v0 = tsr_version(ps[0]);
    tsr_tensor* total = SENTINEL;
    TSR_ASSERT_OK(tsr_clip_grad_norm_(ps, 3, k->max_norm, k->norm_type, false, &total));
    cr_assert_eq(tsr_tensor_ndim(total), 0, "%s", k->name);
    cr_expect_eq(tsr_tensor_dtype(total), dtype, "%s", k->name);
    double got;
    tr_values(total, &got);
    expect_close(&got, &k->total_norm, 1, tol, k->name);
    double after[21];
    tr_gather(ps, true, after);
    if (k->p1_without_grad) {
      tsr_tensor* g = SENTINEL;
      TSR_ASSERT_OK(tsr_grad(ps[1], &g));
      cr_expect_null(g, "%s: a parameter without grad gets none", k->name);
      for (int64_t j = 0; j < 5; ++j) after[12 + j] = k->after[12 + j];
    }
    expect_close(after, k->after, 21, tol, k->name);
    cr_expect_eq(tsr_version(ps[0]), v0, "%s: the parameter itself is not written", k->name);
    tsr_tensor_release(total);
    tr_release3(ps);
  }
}

Test(clip_grad, grads_version_bumped_and_no_grads_gives_zero) {
  tsr_tensor* ps[3];
  tr_params(TSR_FLOAT32, ps);
  tr_set_grad(ps[0], 0, tg_clip_grads, 1.0, TSR_FLOAT32);
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(ps[0], &g));
  const int64_t v = tsr_version(g);
  tsr_tensor* total;
  TSR_ASSERT_OK(tsr_clip_grad_norm_(ps, 1, 0.1, 2.0, false, &total));
  cr_expect_gt(tsr_version(g), v);
  tsr_tensor_release(total);
  tsr_tensor_release(g);
  /* No parameter has a grad (and an empty list): torch.tensor(0.). */
  for (size_t n = 0; n < 3; n += 2) {
    TSR_ASSERT_OK(tsr_clip_grad_norm_(ps + 1, n, 1.0, 2.0, true, &total));
    cr_expect_eq(tsr_tensor_dtype(total), TSR_FLOAT32);
    double z = -1;
    tr_values(total, &z);
    cr_expect_eq(z, 0.0);
    tsr_tensor_release(total);
  }
  tr_release3(ps);
}

Test(clip_grad, value_matches_torch) {
  const double clips[2] = {0.5, -0.25};
  const double* want[2] = {tg_clip_value_pos_after, tg_clip_value_neg_after};
  for (int c = 0; c < 2; ++c) {
    tsr_tensor* ps[3];
    tr_params(TSR_FLOAT32, ps);
    for (int i = 0; i < 3; ++i) tr_set_grad(ps[i], i, tg_clip_grads, 1.0, TSR_FLOAT32);
    TSR_ASSERT_OK(tsr_clip_grad_value_(ps, 3, clips[c]));
    double after[21];
    tr_gather(ps, true, after);
    expect_close(after, want[c], 21, 0, "clip_grad_value_");
    tr_release3(ps);
  }
}

/* Every gradient as it was (the golden values). */
static void expect_unchanged(tsr_tensor* ps[3], const char* what) {
  double after[21];
  tr_gather(ps, true, after);
  double want[21];
  for (int i = 0; i < 21; ++i) want[i] = (double)(float)tg_clip_grads[i];
  expect_close(after, want, 21, 0, what);
}

Test(clip_grad, nonfinite_error_changes_nothing) {
  tsr_tensor* ps[3];
  tr_params(TSR_FLOAT32, ps);
  for (int i = 0; i < 3; ++i) tr_set_grad(ps[i], i, tg_clip_grads, 1.0, TSR_FLOAT32);
  /* A NaN grad in p1 makes the total NaN; an inf, inf. */
  const double bad[2] = {NAN, INFINITY};
  for (int b = 0; b < 2; ++b) {
    double vals[5];
    for (int k = 0; k < 5; ++k) vals[k] = k == 2 ? bad[b] : tg_clip_grads[12 + k];
    tsr_tensor* g = tr_tensor(vals, 1, kTrShape1, TSR_FLOAT32);
    TSR_ASSERT_OK(tsr_set_grad(ps[1], g));
    tsr_tensor_release(g);
    tsr_tensor* total = SENTINEL;
    TSR_ASSERT_FAILS(tsr_clip_grad_norm_(ps, 3, 1.0, 2.0, true, &total), TSR_ERR_INVALID_ARGUMENT,
                     TG_CLIP_ERR_NONFINITE);
    cr_expect_eq(total, SENTINEL);
    double after[21];
    tr_gather(ps, true, after);
    for (int i = 0; i < 12; ++i) cr_expect_eq(after[i], (double)(float)tg_clip_grads[i]);
  }
  /* Without error_if_nonfinite the NaN goes through, as in torch. */
  tsr_tensor* total;
  TSR_ASSERT_OK(tsr_clip_grad_norm_(ps, 3, 1.0, 2.0, false, &total));
  double t;
  tr_values(total, &t);
  cr_expect(isinf(t));
  tsr_tensor_release(total);
  tr_release3(ps);
}

Test(clip_grad, argument_errors_change_nothing) {
  tsr_tensor* ps[3];
  tr_params(TSR_FLOAT32, ps);
  for (int i = 0; i < 3; ++i) tr_set_grad(ps[i], i, tg_clip_grads, 1.0, TSR_FLOAT32);
  tsr_tensor* total = SENTINEL;
  TSR_ASSERT_FAILS(tsr_clip_grad_norm_(NULL, 2, 1.0, 2.0, false, &total), TSR_ERR_INVALID_ARGUMENT,
                   "params is NULL");
  tsr_tensor* with_null[3] = {ps[0], NULL, ps[2]};
  TSR_ASSERT_FAILS(tsr_clip_grad_norm_(with_null, 3, 0.01, 2.0, false, &total), TSR_ERR_INVALID_ARGUMENT,
                   "params[1] is NULL");
  TSR_ASSERT_FAILS(tsr_clip_grad_value_(with_null, 3, 0.01), TSR_ERR_INVALID_ARGUMENT, "params[1] is NULL");
  TSR_ASSERT_FAILS(tsr_clip_grad_value_(NULL, 1, 0.01), TSR_ERR_INVALID_ARGUMENT, "params is NULL");
  TSR_ASSERT_FAILS(tsr_clip_grad_norm_(ps, 3, 0.01, 2.0, false, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "total_norm is NULL");
  cr_expect_eq(total, SENTINEL);
  expect_unchanged(ps, "after NULL arguments");

  /* p2's grad an expanded tensor (overlapping elements): refused before any
   * gradient is written, as torch's mul_ / clamp_ refuse it. */
  const double one = 1.0;
  const int64_t s1[] = {1}, s22[] = {2, 2};
  tsr_tensor *o = tr_tensor(&one, 1, s1, TSR_FLOAT32), *e;
  TSR_ASSERT_OK(tsr_expand(o, 2, s22, &e));
  TSR_ASSERT_OK(tsr_set_grad(ps[2], e));
  TSR_ASSERT_FAILS(tsr_clip_grad_norm_(ps, 3, 0.01, 2.0, false, &total), TSR_ERR_INVALID_ARGUMENT,
                   "more than one element of the written-to tensor refers to a single memory location");
  TSR_ASSERT_FAILS(tsr_clip_grad_value_(ps, 3, 0.01), TSR_ERR_INVALID_ARGUMENT,
                   "more than one element of the written-to tensor refers to a single memory location");
  cr_expect_eq(total, SENTINEL);
  double after[21];
  tr_gather(ps, true, after);
  for (int i = 0; i < 17; ++i) cr_expect_eq(after[i], (double)(float)tg_clip_grads[i]);
  tsr_tensor_release(e);
  tsr_tensor_release(o);
  tr_release3(ps);
}
