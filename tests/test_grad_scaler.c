/* GradScaler (grad_scaler.h) against PyTorch 1.13's torch.cuda.amp.GradScaler
 * (tests/golden/gen_grad_scaler.py -> golden/grad_scaler_golden.h, torch's
 * class run on CPU): a scripted run of two optimizers with infs and NaNs
 * injected (scales, growth tracker, skipped steps, parameters after every
 * step), bfloat16 and float64 gradients unscaled at a scale whose
 * reciprocal is inexact; scale()'s promotion and autograd; the disabled
 * scaler; every error path (torch's messages, nothing changed); state_dict
 * round trips in memory and through tsr_save / tsr_load. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "golden/grad_scaler_golden.h"
#include "helpers.h"

static const int64_t kShape0[] = {3, 4}, kShape1[] = {5}, kShape2[] = {2, 2};
static const int64_t* const kShapes[3] = {kShape0, kShape1, kShape2};
static const int64_t kNdims[3] = {2, 1, 2};
static const int64_t kOffsets[3] = {0, 12, 17};
static const tsr_dtype kDtypes[3] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT32};

/* A contiguous tensor of dtype holding vals (C order). */
static tsr_tensor* tensor_of(const double* vals, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(vals, (size_t)n * sizeof(double), ndim, sizes, TSR_FLOAT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

static tsr_tensor* vector_of(const double* vals, int64_t n, tsr_dtype dtype) {
  return tensor_of(vals, 1, &n, dtype);
}

/* t's elements in C order as doubles; returns numel. */
static int64_t values(const tsr_tensor* t, double* out) {
  tsr_tensor* t64;
  TSR_ASSERT_OK(tsr_to_dtype(t, TSR_FLOAT64, &t64));
  int64_t n = tsr_tensor_numel(t64);
  TSR_ASSERT_OK(tsr_copy_to_buffer(t64, out, (size_t)n * sizeof(double), NULL));
  tsr_tensor_release(t64);
  return n;
}

static double grad_value(tsr_tensor* p, int64_t i) {
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(p, &g));
  cr_assert_not_null(g);
  double v[64];
  cr_assert_lt(i, values(g, v));
  tsr_tensor_release(g);
  return v[i];
}

/* The golden parameters: p0 [3, 4] transposed (strides {1, 3}) float32,
 * p1 [5] float64, p2 [2, 2] float32, leaves requiring grad. */
static void make_params(tsr_tensor* ps[3]) {
  for (int i = 0; i < 3; ++i) {
    tsr_tensor* c = tensor_of(tg_gs_init + kOffsets[i], kNdims[i], kShapes[i], kDtypes[i]);
    if (i == 0) {
      const int64_t strides[] = {1, 3};
      TSR_ASSERT_OK(tsr_empty_strided(2, kShape0, strides, TSR_FLOAT32, TSR_CPU, &ps[i]));
      TSR_ASSERT_OK(tsr_copy_(ps[i], c));
      tsr_tensor_release(c);
    } else {
      ps[i] = c;
    }
    TSR_ASSERT_OK(tsr_set_requires_grad(ps[i], true));
  }
}

static void release3(tsr_tensor* ps[3]) {
  for (int i = 0; i < 3; ++i) tsr_tensor_release(ps[i]);
}

static void gather(tsr_tensor* ps[3], double* out) {
  int64_t k = 0;
  for (int i = 0; i < 3; ++i) k += values(ps[i], out + k);
}

static tsr_grad_scaler* golden_scaler(void) {
  tsr_grad_scaler_options o = TSR_GRAD_SCALER_OPTIONS_INIT;
  o.init_scale = tg_gs_init_scale;
  o.growth_factor = tg_gs_growth_factor;
  o.backoff_factor = tg_gs_backoff_factor;
  o.growth_interval = tg_gs_growth_interval;
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&o, &s));
  return s;
}

/* loss = (p0 * x0).sum() + (p1 * x1).sum() + (p2 * x2).sum() of step k,
 * scaled; backward through the scaled loss. */
static void scaled_backward(tsr_grad_scaler* s, tsr_tensor* ps[3], int k) {
  tsr_tensor* loss = NULL;
  for (int i = 0; i < 3; ++i) {
    tsr_tensor* x = tensor_of(tg_gs_x[k] + kOffsets[i], kNdims[i], kShapes[i], kDtypes[i]);
    tsr_tensor *prod, *sum;
    TSR_ASSERT_OK(tsr_mul(ps[i], x, &prod));
    TSR_ASSERT_OK(tsr_sum(prod, 0, NULL, false, &sum));
    if (loss) {
      tsr_tensor* next;
      TSR_ASSERT_OK(tsr_add(loss, sum, &next));
      tsr_tensor_release(loss);
      tsr_tensor_release(sum);
      loss = next;
    } else {
      loss = sum;
    }
    tsr_tensor_release(x);
    tsr_tensor_release(prod);
  }
  tsr_tensor* scaled;
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, loss, &scaled));
  /* torch: float64 0-dim loss * float32 [1] scale -> float32 [1]. */
  cr_assert_eq(tsr_tensor_dtype(loss), TSR_FLOAT64);
  cr_assert_eq(tsr_tensor_dtype(scaled), TSR_FLOAT32);
  cr_assert_eq(tsr_tensor_ndim(scaled), 1);
  cr_assert_eq(tsr_tensor_sizes(scaled)[0], 1);
  TSR_ASSERT_OK(tsr_backward(scaled, NULL, false));
  tsr_tensor_release(scaled);
  tsr_tensor_release(loss);
}

static tsr_optimizer* sgd_a(tsr_tensor* ps[3]) {
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.1;
  o.momentum = 0.9;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 2, &o, &opt));
  return opt;
}

static tsr_optimizer* adam_b(tsr_tensor* ps[3]) {
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  o.lr = 0.01;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_adam(ps + 2, 1, &o, &opt));
  return opt;
}

/* Runs steps [from, to) of the golden script. */
static void run_steps(tsr_grad_scaler* s, tsr_optimizer* a, tsr_optimizer* b, tsr_tensor* ps[3], int from, int to,
                      bool check) {
  for (int k = from; k < to; ++k) {
    TSR_ASSERT_OK(tsr_optimizer_zero_grad(a, true));
    TSR_ASSERT_OK(tsr_optimizer_zero_grad(b, true));
    scaled_backward(s, ps, k);
    if (tg_gs_unscale_a[k]) TSR_ASSERT_OK(tsr_grad_scaler_unscale_(s, a));
    bool stepped_a = false, stepped_b = false;
    TSR_ASSERT_OK(tsr_grad_scaler_step(s, a, &stepped_a));
    TSR_ASSERT_OK(tsr_grad_scaler_step(s, b, &stepped_b));
    if (tg_gs_new_scale[k] > 0) TSR_ASSERT_OK(tsr_grad_scaler_update_scale(s, tg_gs_new_scale[k]));
    else TSR_ASSERT_OK(tsr_grad_scaler_update(s));
    if (!check) continue;
    double scale;
    int64_t tracker;
    TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &scale));
    TSR_ASSERT_OK(tsr_grad_scaler_get_growth_tracker(s, &tracker));
    cr_expect_eq(scale, tg_gs_scale[k], "step %d: scale %.9g, torch %.9g", k, scale, tg_gs_scale[k]);
    cr_expect_eq(tracker, tg_gs_tracker[k], "step %d: tracker %lld, torch %lld", k, (long long)tracker,
                 (long long)tg_gs_tracker[k]);
    cr_expect_eq(stepped_a, tg_gs_stepped_a[k], "step %d: A stepped %d, torch %d", k, stepped_a, tg_gs_stepped_a[k]);
    cr_expect_eq(stepped_b, tg_gs_stepped_b[k], "step %d: B stepped %d, torch %d", k, stepped_b, tg_gs_stepped_b[k]);
    double got[TG_GS_TOTAL];
    gather(ps, got);
    for (int i = 0; i < TG_GS_TOTAL; ++i) {
      const double want = tg_gs_params[k][i];
      cr_expect(fabs(got[i] - want) <= 1e-6 + 1e-6 * fabs(want), "step %d, element %d: %.9g, torch %.9g", k, i,
                got[i], want);
    }
  }
}

Test(grad_scaler, golden_run_with_infs_and_nans) {
  tsr_tensor* ps[3];
  make_params(ps);
  tsr_optimizer *a = sgd_a(ps), *b = adam_b(ps);
  tsr_grad_scaler* s = golden_scaler();
  run_steps(s, a, b, ps, 0, TG_GS_STEPS, true);
  tsr_grad_scaler_release(s);
  tsr_optimizer_release(a);
  tsr_optimizer_release(b);
  release3(ps);
}

/* unscale_ of one gradient at scale 3: grad * float32(1/3) in float
 * arithmetic for bfloat16 (torch's kernel), in double for float64; a
 * transposed view of the gradient to cover strides. */
static void unscale_case(tsr_dtype dtype, const double* grad, const double* want) {
  tsr_tensor* p;
  const int64_t n = 9;
  TSR_ASSERT_OK(tsr_zeros(1, &n, dtype, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  tsr_tensor* g = vector_of(grad, 9, dtype);
  TSR_ASSERT_OK(tsr_set_grad(p, g));
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.1;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&p, 1, &o, &opt));
  tsr_grad_scaler_options so = TSR_GRAD_SCALER_OPTIONS_INIT;
  so.init_scale = 3.0;
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&so, &s));
  tsr_tensor *one, *scaled;
  TSR_ASSERT_OK(tsr_full(0, NULL, 1.0, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, one, &scaled));
  const int64_t v0 = tsr_version(g);
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(s, opt));
  cr_expect_gt(tsr_version(g), v0, "unscale_ bumps the gradient's version");
  double got[9];
  values(g, got);
  for (int i = 0; i < 9; ++i)
    cr_expect_eq(got[i], want[i], "%s element %d: %.17g, torch %.17g", tsr_dtype_name(dtype), i, got[i], want[i]);
  bool stepped = false;
  TSR_ASSERT_OK(tsr_grad_scaler_step(s, opt, &stepped));
  cr_expect(stepped);
  tsr_tensor_release(one);
  tsr_tensor_release(scaled);
  tsr_grad_scaler_release(s);
  tsr_optimizer_release(opt);
  tsr_tensor_release(g);
  tsr_tensor_release(p);
}

Test(grad_scaler, unscale_bfloat16_and_float64_as_torch_kernel) {
  unscale_case(TSR_BFLOAT16, tg_gs_bf16_grad, tg_gs_bf16_unscaled);
  unscale_case(TSR_FLOAT64, tg_gs_f64_grad, tg_gs_f64_unscaled);
}

/* A strided (transposed) gradient is unscaled in place where it lies, and an
 * inf in it is found. */
Test(grad_scaler, strided_gradient_with_inf) {
  const int64_t sizes[] = {3, 4}, strides[] = {1, 3};
  tsr_tensor *p, *g;
  TSR_ASSERT_OK(tsr_zeros(2, sizes, TSR_FLOAT32, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  TSR_ASSERT_OK(tsr_empty_strided(2, sizes, strides, TSR_FLOAT32, TSR_CPU, &g));
  TSR_ASSERT_OK(tsr_fill_(g, 8.0));
  TSR_ASSERT_OK(tsr_set_grad(p, g));
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 1.0;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&p, 1, &o, &opt));
  tsr_grad_scaler_options so = TSR_GRAD_SCALER_OPTIONS_INIT;
  so.init_scale = 4.0;
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&so, &s));
  tsr_tensor *one, *scaled;
  TSR_ASSERT_OK(tsr_full(0, NULL, 1.0, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, one, &scaled));
  /* clean: 8 / 4 = 2 everywhere, the step runs (p = -2) */
  bool stepped = false;
  TSR_ASSERT_OK(tsr_grad_scaler_step(s, opt, &stepped));
  cr_expect(stepped);
  cr_expect_eq(grad_value(p, 5), 2.0);
  double pv[12];
  values(p, pv);
  for (int i = 0; i < 12; ++i) cr_expect_eq(pv[i], -2.0);
  TSR_ASSERT_OK(tsr_grad_scaler_update(s));
  /* an inf in the last element: the step is skipped, p unchanged */
  TSR_ASSERT_OK(tsr_fill_(g, 8.0));
  tsr_tensor* last;
  TSR_ASSERT_OK(tsr_select(g, 0, 2, &last));
  tsr_tensor* last2;
  TSR_ASSERT_OK(tsr_select(last, 0, 3, &last2));
  TSR_ASSERT_OK(tsr_fill_(last2, INFINITY));
  TSR_ASSERT_OK(tsr_grad_scaler_step(s, opt, &stepped));
  cr_expect(!stepped);
  values(p, pv);
  for (int i = 0; i < 12; ++i) cr_expect_eq(pv[i], -2.0);
  TSR_ASSERT_OK(tsr_grad_scaler_update(s));
  double scale;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &scale));
  cr_expect_eq(scale, 2.0);
  tsr_tensor_release(last2);
  tsr_tensor_release(last);
  tsr_tensor_release(one);
  tsr_tensor_release(scaled);
  tsr_grad_scaler_release(s);
  tsr_optimizer_release(opt);
  tsr_tensor_release(g);
  tsr_tensor_release(p);
}

Test(grad_scaler, scale_promotes_and_records_mul) {
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(NULL, &s));
  double v;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  cr_expect_eq(v, 65536.0);
  /* A 0-dim bfloat16 loss requiring grad: float32 [1], MulBackward0. */
  tsr_tensor *x, *loss, *scaled;
  TSR_ASSERT_OK(tsr_full(0, NULL, 1.5, TSR_BFLOAT16, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_mul(x, x, &loss));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, loss, &scaled));
  cr_expect_eq(tsr_tensor_dtype(scaled), TSR_FLOAT32);
  cr_expect_eq(tsr_tensor_ndim(scaled), 1);
  cr_expect_eq(tsr_tensor_sizes(scaled)[0], 1);
  cr_expect_str_eq(tsr_grad_fn_name(scaled), "MulBackward0");
  double got;
  TSR_ASSERT_OK(tsr_item_double(scaled, &got));
  cr_expect_eq(got, 2.25 * 65536.0);
  /* d(scaled)/dx = 2x * scale, in x's dtype */
  TSR_ASSERT_OK(tsr_backward(scaled, NULL, false));
  cr_expect_eq(grad_value(x, 0), 3.0 * 65536.0);
  /* A [2, 3] float32 tensor keeps its sizes. */
  tsr_tensor *m, *ms;
  const int64_t sizes[] = {2, 3};
  TSR_ASSERT_OK(tsr_full(2, sizes, 2.0, TSR_FLOAT32, TSR_CPU, &m));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, m, &ms));
  tsr_assert_geometry(ms, 2, sizes, (const int64_t[]){3, 1});
  double mv[6];
  values(ms, mv);
  for (int i = 0; i < 6; ++i) cr_expect_eq(mv[i], 131072.0);
  tsr_tensor_release(m);
  tsr_tensor_release(ms);
  tsr_tensor_release(x);
  tsr_tensor_release(loss);
  tsr_tensor_release(scaled);
  tsr_grad_scaler_release(s);
}

/* get_scale before the first scale() is init_scale as given (a double);
 * after, the float32 value torch's tensor holds. */
Test(grad_scaler, scale_is_float32_once_made) {
  tsr_grad_scaler_options o = TSR_GRAD_SCALER_OPTIONS_INIT;
  o.init_scale = 0.1;
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&o, &s));
  double v;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  cr_expect_eq(v, 0.1);
  tsr_tensor *one, *scaled;
  TSR_ASSERT_OK(tsr_full(0, NULL, 1.0, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, one, &scaled));
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  cr_expect_eq(v, (double)0.1f);
  TSR_ASSERT_OK(tsr_grad_scaler_update_scale(s, 1.0 / 3.0));
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  cr_expect_eq(v, (double)(float)(1.0 / 3.0));
  tsr_tensor_release(one);
  tsr_tensor_release(scaled);
  tsr_grad_scaler_release(s);
}

/* Growth stops at float32's largest finite scale, as torch's kernel. */
Test(grad_scaler, growth_never_reaches_inf) {
  tsr_grad_scaler_options o = TSR_GRAD_SCALER_OPTIONS_INIT;
  o.init_scale = 3e38;
  o.growth_interval = 1;
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&o, &s));
  tsr_tensor *p, *g;
  TSR_ASSERT_OK(tsr_zeros(0, NULL, TSR_FLOAT32, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  TSR_ASSERT_OK(tsr_zeros(0, NULL, TSR_FLOAT32, TSR_CPU, &g));
  TSR_ASSERT_OK(tsr_set_grad(p, g));
  tsr_sgd_options so;
  tsr_sgd_options_init(&so);
  so.lr = 0.1;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&p, 1, &so, &opt));
  tsr_tensor* scaled;
  TSR_ASSERT_OK(tsr_grad_scaler_scale(s, g, &scaled));
  TSR_ASSERT_OK(tsr_grad_scaler_step(s, opt, NULL));
  TSR_ASSERT_OK(tsr_grad_scaler_update(s));
  double v;
  int64_t tracker;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_tracker(s, &tracker));
  cr_expect_eq(v, (double)3e38f, "the scale stays %.9g, not inf", v);
  cr_expect_eq(tracker, 0);
  tsr_tensor_release(scaled);
  tsr_optimizer_release(opt);
  tsr_grad_scaler_release(s);
  tsr_tensor_release(g);
  tsr_tensor_release(p);
}

/* A one-parameter SGD (lr 1) whose grad is `grad` (float32 [2]). */
typedef struct fixture {
  tsr_tensor *p, *g;
  tsr_optimizer* opt;
  tsr_grad_scaler* s;
} fixture;

static fixture fixture_make(double g0, double g1, bool enabled) {
  fixture f;
  const int64_t n = 2;
  const double gv[2] = {g0, g1};
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &f.p));
  TSR_ASSERT_OK(tsr_set_requires_grad(f.p, true));
  f.g = vector_of(gv, 2, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_set_grad(f.p, f.g));
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 1.0;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&f.p, 1, &o, &f.opt));
  tsr_grad_scaler_options so = TSR_GRAD_SCALER_OPTIONS_INIT;
  so.init_scale = 2.0;
  so.enabled = enabled;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&so, &f.s));
  return f;
}

static void fixture_scale(fixture* f) {
  tsr_tensor *one, *scaled;
  TSR_ASSERT_OK(tsr_full(0, NULL, 1.0, TSR_FLOAT32, TSR_CPU, &one));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(f->s, one, &scaled));
  tsr_tensor_release(one);
  tsr_tensor_release(scaled);
}

static void fixture_release(fixture* f) {
  tsr_grad_scaler_release(f->s);
  tsr_optimizer_release(f->opt);
  tsr_tensor_release(f->g);
  tsr_tensor_release(f->p);
}

static void expect_grad(fixture* f, double g0, double g1) {
  double v[2];
  values(f->g, v);
  cr_expect(v[0] == g0 && v[1] == g1, "grad {%g, %g}, expected {%g, %g}", v[0], v[1], g0, g1);
}
static void expect_param(fixture* f, double p0, double p1) {
  double v[2];
  values(f->p, v);
  cr_expect(v[0] == p0 && v[1] == p1, "param {%g, %g}, expected {%g, %g}", v[0], v[1], p0, p1);
}

Test(grad_scaler, before_scale_is_an_error) {
  fixture f = fixture_make(4, 6, true);
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(f.s, f.opt), TSR_ERR_INVALID_ARGUMENT,
                   "Attempted unscale_ but _scale is None.  This may indicate your script did not use "
                   "scaler.scale(loss or outputs) earlier in the iteration.");
  bool stepped = true;
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, f.opt, &stepped), TSR_ERR_INVALID_ARGUMENT,
                   "Attempted step but _scale is None.");
  cr_expect(stepped, "stepped untouched on failure");
  TSR_ASSERT_FAILS(tsr_grad_scaler_update(f.s), TSR_ERR_INVALID_ARGUMENT, "Attempted update but _scale is None.");
  TSR_ASSERT_FAILS(tsr_grad_scaler_update_scale(f.s, 8.0), TSR_ERR_INVALID_ARGUMENT,
                   "Attempted update but _scale is None.");
  expect_grad(&f, 4, 6);
  expect_param(&f, 0, 0);
  fixture_release(&f);
}

Test(grad_scaler, stage_errors_change_nothing) {
  fixture f = fixture_make(4, 6, true);
  fixture_scale(&f);
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(f.s, f.opt));
  expect_grad(&f, 2, 3);
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(f.s, f.opt), TSR_ERR_INVALID_ARGUMENT,
                   "unscale_() has already been called on this optimizer since the last update().");
  expect_grad(&f, 2, 3);
  bool stepped = false;
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, f.opt, &stepped));
  cr_expect(stepped);
  expect_grad(&f, 2, 3); /* step after unscale_ does not unscale again */
  expect_param(&f, -2, -3);
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, f.opt, &stepped), TSR_ERR_INVALID_ARGUMENT,
                   "step() has already been called since the last update().");
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(f.s, f.opt), TSR_ERR_INVALID_ARGUMENT,
                   "unscale_() is being called after step().");
  expect_param(&f, -2, -3);
  expect_grad(&f, 2, 3);
  TSR_ASSERT_OK(tsr_grad_scaler_update(f.s));
  /* update() cleared the stage: a new iteration may unscale again */
  TSR_ASSERT_FAILS(tsr_grad_scaler_update(f.s), TSR_ERR_INVALID_ARGUMENT,
                   "No inf checks were recorded prior to update.");
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(f.s, f.opt));
  expect_grad(&f, 1, 1.5);
  fixture_release(&f);
}

Test(grad_scaler, no_gradients_is_an_error) {
  fixture f = fixture_make(4, 6, true);
  fixture_scale(&f);
  TSR_ASSERT_OK(tsr_set_grad(f.p, NULL));
  bool stepped = true;
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, f.opt, &stepped), TSR_ERR_INVALID_ARGUMENT,
                   "No inf checks were recorded for this optimizer.");
  cr_expect(stepped);
  /* unscale_ of no gradients is allowed (torch's); step still has no check */
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(f.s, f.opt));
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, f.opt, &stepped), TSR_ERR_INVALID_ARGUMENT,
                   "No inf checks were recorded for this optimizer.");
  TSR_ASSERT_FAILS(tsr_grad_scaler_update(f.s), TSR_ERR_INVALID_ARGUMENT,
                   "No inf checks were recorded prior to update.");
  fixture_release(&f);
}

Test(grad_scaler, float16_gradient_is_refused) {
  fixture f = fixture_make(4, 6, true);
  fixture_scale(&f);
  /* a second optimizer: a float32 parameter then a float16 one */
  tsr_tensor *q[2], *gq[2];
  const int64_t n = 2;
  const double gv[2] = {8, 8};
  for (int i = 0; i < 2; ++i) {
    TSR_ASSERT_OK(tsr_zeros(1, &n, i ? TSR_FLOAT16 : TSR_FLOAT32, TSR_CPU, &q[i]));
    TSR_ASSERT_OK(tsr_set_requires_grad(q[i], true));
    gq[i] = vector_of(gv, 2, i ? TSR_FLOAT16 : TSR_FLOAT32);
    TSR_ASSERT_OK(tsr_set_grad(q[i], gq[i]));
  }
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 1.0;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(q, 2, &o, &opt));
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(f.s, opt), TSR_ERR_INVALID_ARGUMENT,
                   "Attempting to unscale FP16 gradients.");
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, opt, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "Attempting to unscale FP16 gradients.");
  for (int i = 0; i < 2; ++i) {
    double v[2];
    values(gq[i], v);
    cr_expect(v[0] == 8 && v[1] == 8, "gradient %d unchanged", i);
    values(q[i], v);
    cr_expect(v[0] == 0 && v[1] == 0, "parameter %d unchanged", i);
  }
  /* nothing was recorded for it: update has only the other optimizer */
  TSR_ASSERT_FAILS(tsr_grad_scaler_update(f.s), TSR_ERR_INVALID_ARGUMENT,
                   "No inf checks were recorded prior to update.");
  tsr_optimizer_release(opt);
  for (int i = 0; i < 2; ++i) {
    tsr_tensor_release(q[i]);
    tsr_tensor_release(gq[i]);
  }
  fixture_release(&f);
}

/* An expanded gradient cannot be unscaled in place; an expanded parameter
 * cannot be stepped: checked before any gradient changes. */
Test(grad_scaler, unwritable_gradient_or_parameter_changes_nothing) {
  fixture f = fixture_make(4, 6, true);
  fixture_scale(&f);
  tsr_tensor *q, *base, *gq;
  const int64_t n = 2, one = 1;
  const double bv[1] = {8};
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &q));
  TSR_ASSERT_OK(tsr_set_requires_grad(q, true));
  base = vector_of(bv, one, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_expand(base, 1, &n, &gq));
  TSR_ASSERT_OK(tsr_set_grad(q, gq));
  tsr_tensor* ps[2] = {f.p, q};
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 1.0;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 2, &o, &opt));
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(f.s, opt), TSR_ERR_INVALID_ARGUMENT, "more than one element");
  expect_grad(&f, 4, 6);
  tsr_optimizer_release(opt);

  /* an expanded leaf as parameter: the optimizer step's own check */
  tsr_tensor *r, *rbase, *gr;
  rbase = vector_of(bv, one, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_expand(rbase, 1, &n, &r));
  TSR_ASSERT_OK(tsr_set_requires_grad(r, true));
  const double gv[2] = {2, 2};
  gr = vector_of(gv, 2, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_set_grad(r, gr));
  ps[1] = r;
  TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 2, &o, &opt));
  bool stepped = false;
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, opt, &stepped), TSR_ERR_INVALID_ARGUMENT, "more than one element");
  expect_grad(&f, 4, 6);
  double v[2];
  values(gr, v);
  cr_expect(v[0] == 2 && v[1] == 2);
  /* nothing changed: the same optimizer may still unscale */
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(f.s, opt));
  expect_grad(&f, 2, 3);
  tsr_optimizer_release(opt);
  tsr_tensor_release(r);
  tsr_tensor_release(rbase);
  tsr_tensor_release(gr);
  tsr_tensor_release(q);
  tsr_tensor_release(base);
  tsr_tensor_release(gq);
  fixture_release(&f);
}

/* Two optimizers in one iteration: one finds a NaN, the other steps; the
 * scale backs off once. */
Test(grad_scaler, per_optimizer_found_inf) {
  fixture f = fixture_make(4, NAN, true);
  fixture g = fixture_make(4, 6, true);
  fixture_scale(&f);
  bool a = true, b = false;
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, f.opt, &a));
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, g.opt, &b));
  cr_expect(!a);
  cr_expect(b);
  expect_param(&f, 0, 0);
  expect_param(&g, -2, -3);
  TSR_ASSERT_OK(tsr_grad_scaler_update(f.s));
  double v;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(f.s, &v));
  cr_expect_eq(v, 1.0);
  fixture_release(&g);
  fixture_release(&f);
}

/* step_deferred: the stage and checks of step, the optimizer not run. */
Test(grad_scaler, step_deferred) {
  fixture f = fixture_make(4, INFINITY, true);
  fixture_scale(&f);
  bool run = true;
  TSR_ASSERT_FAILS(tsr_grad_scaler_step_deferred(f.s, f.opt, NULL), TSR_ERR_INVALID_ARGUMENT, "run_step is NULL");
  TSR_ASSERT_OK(tsr_grad_scaler_step_deferred(f.s, f.opt, &run));
  cr_expect(!run);
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, f.opt, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "step() has already been called since the last update().");
  TSR_ASSERT_OK(tsr_grad_scaler_update(f.s));
  const double gv[2] = {4, 6};
  tsr_tensor* g = vector_of(gv, 2, TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_set_grad(f.p, g));
  TSR_ASSERT_OK(tsr_grad_scaler_step_deferred(f.s, f.opt, &run));
  cr_expect(run);
  expect_param(&f, 0, 0); /* the caller steps */
  double v[2];
  values(g, v);
  cr_expect(v[0] == 4 && v[1] == 6, "unscaled at scale 1 (backed off from 2)");
  tsr_tensor_release(g);
  fixture_release(&f);
}

Test(grad_scaler, disabled_is_a_pass_through) {
  fixture f = fixture_make(4, INFINITY, false);
  bool enabled = true;
  TSR_ASSERT_OK(tsr_grad_scaler_is_enabled(f.s, &enabled));
  cr_expect(!enabled);
  tsr_tensor *x, *scaled;
  TSR_ASSERT_OK(tsr_full(0, NULL, 3.0, TSR_BFLOAT16, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_grad_scaler_scale(f.s, x, &scaled));
  cr_expect_eq(tsr_tensor_data_ptr(scaled), tsr_tensor_data_ptr(x));
  cr_expect_eq(tsr_tensor_dtype(scaled), TSR_BFLOAT16);
  cr_expect_eq(tsr_tensor_ndim(scaled), 0);
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(f.s, f.opt));
  expect_grad(&f, 4, INFINITY);
  bool stepped = false;
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, f.opt, &stepped));
  cr_expect(stepped);
  expect_param(&f, -4, -INFINITY);
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, f.opt, &stepped)); /* no stages when disabled */
  TSR_ASSERT_OK(tsr_grad_scaler_update(f.s));
  TSR_ASSERT_OK(tsr_grad_scaler_update_scale(f.s, 5.0));
  double v;
  int64_t t;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(f.s, &v));
  cr_expect_eq(v, 1.0);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_tracker(f.s, &t));
  cr_expect_eq(t, 0);
  tsr_tensor_map* sd;
  TSR_ASSERT_OK(tsr_grad_scaler_state_dict(f.s, &sd));
  cr_expect_eq(tsr_tensor_map_count(sd), 0);
  TSR_ASSERT_OK(tsr_grad_scaler_load_state_dict(f.s, 0, NULL, NULL));
  tsr_tensor_map_release(sd);
  tsr_tensor_release(x);
  tsr_tensor_release(scaled);
  fixture_release(&f);
}

Test(grad_scaler, create_errors) {
  tsr_grad_scaler* s = (tsr_grad_scaler*)SENTINEL;
  tsr_grad_scaler_options o = TSR_GRAD_SCALER_OPTIONS_INIT;
  o.growth_factor = 1.0;
  TSR_ASSERT_FAILS(tsr_grad_scaler_create(&o, &s), TSR_ERR_INVALID_ARGUMENT, "The growth factor must be > 1.0.");
  o.growth_factor = NAN;
  TSR_ASSERT_FAILS(tsr_grad_scaler_create(&o, &s), TSR_ERR_INVALID_ARGUMENT, "The growth factor must be > 1.0.");
  o = (tsr_grad_scaler_options)TSR_GRAD_SCALER_OPTIONS_INIT;
  o.backoff_factor = 1.0;
  TSR_ASSERT_FAILS(tsr_grad_scaler_create(&o, &s), TSR_ERR_INVALID_ARGUMENT, "The backoff factor must be < 1.0.");
  o.struct_size = sizeof(size_t);
  TSR_ASSERT_FAILS(tsr_grad_scaler_create(&o, &s), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  cr_expect_eq(s, (tsr_grad_scaler*)SENTINEL);
  TSR_ASSERT_FAILS(tsr_grad_scaler_create(NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  /* disabled: the factors are not checked (torch asserts only when enabled) */
  o = (tsr_grad_scaler_options)TSR_GRAD_SCALER_OPTIONS_INIT;
  o.growth_factor = 0.5;
  o.enabled = false;
  TSR_ASSERT_OK(tsr_grad_scaler_create(&o, &s));
  tsr_grad_scaler_release(s);
  /* an older caller's struct: only init_scale, the rest torch's defaults */
  o = (tsr_grad_scaler_options)TSR_GRAD_SCALER_OPTIONS_INIT;
  o.init_scale = 8.0;
  o.growth_factor = 0.5; /* past struct_size: not read */
  o.struct_size = offsetof(tsr_grad_scaler_options, init_scale) + sizeof(double);
  TSR_ASSERT_OK(tsr_grad_scaler_create(&o, &s));
  double v;
  int64_t i;
  bool e;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  cr_expect_eq(v, 8.0);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_factor(s, &v));
  cr_expect_eq(v, 2.0);
  TSR_ASSERT_OK(tsr_grad_scaler_get_backoff_factor(s, &v));
  cr_expect_eq(v, 0.5);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_interval(s, &i));
  cr_expect_eq(i, 2000);
  TSR_ASSERT_OK(tsr_grad_scaler_is_enabled(s, &e));
  cr_expect(e);
  tsr_grad_scaler_release(s);
}

Test(grad_scaler, null_arguments) {
  fixture f = fixture_make(4, 6, true);
  tsr_tensor* out = SENTINEL;
  double d = 7;
  int64_t i = 7;
  bool b = true;
  TSR_ASSERT_FAILS(tsr_grad_scaler_scale(NULL, f.g, &out), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_scale(f.s, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "outputs is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_scale(f.s, f.g, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  /* the failed scale() did not make the scale */
  TSR_ASSERT_FAILS(tsr_grad_scaler_update(f.s), TSR_ERR_INVALID_ARGUMENT, "_scale is None");
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(NULL, f.opt), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_unscale_(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "optimizer is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(NULL, f.opt, &b), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_step(f.s, NULL, &b), TSR_ERR_INVALID_ARGUMENT, "optimizer is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_step_deferred(NULL, f.opt, &b), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_update(NULL), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_update_scale(NULL, 2.0), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_scale(NULL, &d), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_scale(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "scale is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_growth_factor(NULL, &d), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_growth_factor(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "value is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_backoff_factor(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "value is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_growth_interval(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "value is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_growth_tracker(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "value is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_get_growth_tracker(NULL, &i), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_is_enabled(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "enabled is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_is_enabled(NULL, &b), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_set_growth_factor(NULL, 3.0), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_set_backoff_factor(NULL, 0.1), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_set_growth_interval(NULL, 5), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_state_dict(NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "scaler is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_state_dict(f.s, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(NULL, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "scaler is NULL");
  cr_expect(d == 7 && i == 7 && b);
  tsr_grad_scaler_retain(NULL);
  tsr_grad_scaler_release(NULL);
  fixture_release(&f);
}

Test(grad_scaler, setters) {
  fixture f = fixture_make(4, 6, true);
  TSR_ASSERT_OK(tsr_grad_scaler_set_growth_factor(f.s, 4.0));
  TSR_ASSERT_OK(tsr_grad_scaler_set_backoff_factor(f.s, 0.125));
  TSR_ASSERT_OK(tsr_grad_scaler_set_growth_interval(f.s, 1));
  double v;
  int64_t i;
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_factor(f.s, &v));
  cr_expect_eq(v, 4.0);
  TSR_ASSERT_OK(tsr_grad_scaler_get_backoff_factor(f.s, &v));
  cr_expect_eq(v, 0.125);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_interval(f.s, &i));
  cr_expect_eq(i, 1);
  fixture_scale(&f);
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, f.opt, NULL));
  TSR_ASSERT_OK(tsr_grad_scaler_update(f.s));
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(f.s, &v));
  cr_expect_eq(v, 8.0, "grown by the new factor after the new interval");
  fixture_release(&f);
}

/* The scaler keeps the optimizers it has a stage for alive until update,
 * so releasing one mid-iteration is safe (and ASan-clean). */
Test(grad_scaler, optimizer_released_before_update) {
  fixture f = fixture_make(4, 6, true);
  fixture_scale(&f);
  TSR_ASSERT_OK(tsr_grad_scaler_step(f.s, f.opt, NULL));
  tsr_optimizer_release(f.opt);
  f.opt = NULL;
  TSR_ASSERT_OK(tsr_grad_scaler_update(f.s));
  /* a stage left at release is freed with the scaler */
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 1.0;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&f.p, 1, &o, &f.opt));
  TSR_ASSERT_OK(tsr_grad_scaler_unscale_(f.s, f.opt));
  fixture_release(&f);
}

/* state_dict entries as arrays (what tsr_save and load_state_dict take). */
typedef struct entries {
  int64_t n;
  const char* names[16];
  tsr_tensor* tensors[16];
} entries;

static void entries_of(tsr_tensor_map* m, entries* e) {
  e->n = tsr_tensor_map_count(m);
  cr_assert_leq(e->n, 16);
  for (int64_t i = 0; i < e->n; ++i) {
    e->names[i] = tsr_tensor_map_name(m, i);
    TSR_ASSERT_OK(tsr_tensor_map_get(m, i, &e->tensors[i]));
  }
}

static void entries_release(entries* e) {
  for (int64_t i = 0; i < e->n; ++i) tsr_tensor_release(e->tensors[i]);
}

static void expect_state(tsr_grad_scaler* s, double scale, double growth, double backoff, int64_t interval,
                         int64_t tracker) {
  double v;
  int64_t i;
  TSR_ASSERT_OK(tsr_grad_scaler_get_scale(s, &v));
  cr_expect_eq(v, scale);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_factor(s, &v));
  cr_expect_eq(v, growth);
  TSR_ASSERT_OK(tsr_grad_scaler_get_backoff_factor(s, &v));
  cr_expect_eq(v, backoff);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_interval(s, &i));
  cr_expect_eq(i, interval);
  TSR_ASSERT_OK(tsr_grad_scaler_get_growth_tracker(s, &i));
  cr_expect_eq(i, tracker);
}

/* The golden run to step 9, the state through a file with the model's
 * parameters, a default scaler loads it: torch's entries, and the rest of
 * the run with the loaded scaler matches the golden. */
Test(grad_scaler, state_dict_round_trip_through_file) {
  tsr_tensor* ps[3];
  make_params(ps);
  tsr_optimizer *a = sgd_a(ps), *b = adam_b(ps);
  tsr_grad_scaler* s = golden_scaler();
  run_steps(s, a, b, ps, 0, 9, false);
  tsr_tensor_map* sd;
  TSR_ASSERT_OK(tsr_grad_scaler_state_dict(s, &sd));
  static const char* const kNames[5] = {"_growth_tracker", "backoff_factor", "growth_factor", "growth_interval",
                                        "scale"};
  cr_assert_eq(tsr_tensor_map_count(sd), 5);
  for (int i = 0; i < 5; ++i) cr_expect_str_eq(tsr_tensor_map_name(sd, i), kNames[i]);
  entries e;
  entries_of(sd, &e);
  cr_expect_eq(tsr_tensor_dtype(e.tensors[0]), TSR_INT64);
  cr_expect_eq(tsr_tensor_dtype(e.tensors[4]), TSR_FLOAT64);
  cr_expect_eq(tsr_tensor_ndim(e.tensors[4]), 0);

  char path[512];
  snprintf(path, sizeof path, "%s/grad_scaler_%d.safetensors", TSR_TEST_TMP_DIR, (int)getpid());
  const char* names[8] = {"model.p0", "model.p1", "model.p2"};
  tsr_tensor* ts[8] = {ps[0], ps[1], ps[2]};
  for (int64_t i = 0; i < e.n; ++i) {
    names[3 + i] = e.names[i];
    ts[3 + i] = e.tensors[i];
  }
  TSR_ASSERT_OK(tsr_save(path, e.n + 3, names, ts, NULL));
  tsr_tensor_map* loaded;
  TSR_ASSERT_OK(tsr_load(path, NULL, &loaded));
  unlink(path);
  entries le;
  entries_of(loaded, &le);
  tsr_grad_scaler* r;
  TSR_ASSERT_OK(tsr_grad_scaler_create(NULL, &r));
  TSR_ASSERT_OK(tsr_grad_scaler_load_state_dict(r, le.n, le.names, le.tensors));
  expect_state(r, tg_gs_scale[8], tg_gs_growth_factor, tg_gs_backoff_factor, tg_gs_growth_interval,
               tg_gs_tracker[8]);
  run_steps(r, a, b, ps, 9, TG_GS_STEPS, true);
  expect_state(r, tg_gs_sd_scale, tg_gs_sd_growth_factor, tg_gs_sd_backoff_factor, tg_gs_sd_growth_interval,
               tg_gs_sd_growth_tracker);
  /* loading into a scaler that has made its scale replaces the scale */
  TSR_ASSERT_OK(tsr_grad_scaler_load_state_dict(r, e.n, e.names, e.tensors));
  expect_state(r, tg_gs_scale[8], tg_gs_growth_factor, tg_gs_backoff_factor, tg_gs_growth_interval,
               tg_gs_tracker[8]);
  entries_release(&le);
  entries_release(&e);
  tsr_tensor_map_release(loaded);
  tsr_tensor_map_release(sd);
  tsr_grad_scaler_release(r);
  tsr_grad_scaler_release(s);
  tsr_optimizer_release(a);
  tsr_optimizer_release(b);
  release3(ps);
}

Test(grad_scaler, load_state_dict_errors_change_nothing) {
  tsr_grad_scaler* s;
  TSR_ASSERT_OK(tsr_grad_scaler_create(NULL, &s));
  const char* names[6] = {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker", "w"};
  tsr_tensor* ts[6];
  const double vals[6] = {128.0, 3.0, 0.25, 10.0, 4.0, 1.0};
  for (int i = 0; i < 6; ++i) TSR_ASSERT_OK(tsr_full(0, NULL, vals[i], TSR_FLOAT64, TSR_CPU, &ts[i]));
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "The source state dict is empty, possibly because it was saved from a disabled instance of "
                   "GradScaler.");
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 1, names + 5, ts + 5), TSR_ERR_INVALID_ARGUMENT,
                   "The source state dict is empty");
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 4, names, ts), TSR_ERR_INVALID_ARGUMENT,
                   "\"_growth_tracker\" is missing");
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, -1, names, ts), TSR_ERR_INVALID_ARGUMENT,
                   "n must be >= 0");
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 5, NULL, ts), TSR_ERR_INVALID_ARGUMENT,
                   "names or tensors is NULL");
  const char* with_null[2] = {"scale", NULL};
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 2, with_null, ts), TSR_ERR_INVALID_ARGUMENT,
                   "names[1] is NULL");
  tsr_tensor* null_ts[2] = {ts[0], NULL};
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 2, names, null_ts), TSR_ERR_INVALID_ARGUMENT,
                   "tensors[1] is NULL");
  /* an entry that is not one number */
  tsr_tensor* two;
  const int64_t n2 = 2;
  TSR_ASSERT_OK(tsr_full(1, &n2, 1.0, TSR_FLOAT64, TSR_CPU, &two));
  tsr_tensor* bad[5] = {ts[0], two, ts[2], ts[3], ts[4]};
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 5, names, bad), TSR_ERR_INVALID_ARGUMENT,
                   "\"growth_factor\" must hold one number");
  /* integer entries */
  tsr_tensor *half, *huge;
  TSR_ASSERT_OK(tsr_full(0, NULL, 2.5, TSR_FLOAT64, TSR_CPU, &half));
  TSR_ASSERT_OK(tsr_full(0, NULL, 3e9, TSR_FLOAT64, TSR_CPU, &huge));
  bad[1] = ts[1];
  bad[3] = half;
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 5, names, bad), TSR_ERR_INVALID_ARGUMENT,
                   "\"growth_interval\" must be an integer");
  bad[3] = ts[3];
  bad[4] = huge;
  TSR_ASSERT_FAILS(tsr_grad_scaler_load_state_dict(s, 5, names, bad), TSR_ERR_INVALID_ARGUMENT,
                   "\"_growth_tracker\" must be an integer from -2147483648 to 2147483647");
  expect_state(s, 65536.0, 2.0, 0.5, 2000, 0);
  /* all six (one ignored): loaded */
  TSR_ASSERT_OK(tsr_grad_scaler_load_state_dict(s, 6, names, ts));
  expect_state(s, 128.0, 3.0, 0.25, 10, 4);
  for (int i = 0; i < 6; ++i) tsr_tensor_release(ts[i]);
  tsr_tensor_release(two);
  tsr_tensor_release(half);
  tsr_tensor_release(huge);
  tsr_grad_scaler_release(s);
}
