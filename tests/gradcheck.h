/* torch.autograd.gradcheck's test for one function, in C: the analytic
 * gradient of s = sum(f(inputs) * w), w a fixed random weighting of f's
 * output (so every output element counts with its own weight), against
 * central differences in float64 (eps 1e-6, atol 1e-5, rtol 1e-3), for
 * every element of every input that requires grad. f may take views of
 * its inputs and broadcast them: the check covers those paths too. */
#ifndef TSR_TESTS_GRADCHECK_H
#define TSR_TESTS_GRADCHECK_H

#include <math.h>
#include <stdlib.h>

#include "helpers.h"
#include "ops_program.h"

#define TG_EPS 1e-6
#define TG_ATOL 1e-5
#define TG_RTOL 1e-3

/* Every intermediate of one evaluation, released together. */
typedef struct {
  tsr_tensor* t[512];
  int n;
} tg_arena;

static inline tsr_tensor* tg_keep(tg_arena* ar, tsr_tensor* t) {
  cr_assert(ar->n < 512);
  ar->t[ar->n++] = t;
  return t;
}

/* Runs `call`, which writes its result to o_, and keeps the result in the
 * arena `ar` of the enclosing scope. */
#define T(call)            \
  ({                       \
    tsr_tensor* o_ = NULL; \
    TSR_ASSERT_OK(call);   \
    tg_keep(ar, o_);       \
  })

static inline void tg_arena_release(tg_arena* ar) {
  for (int i = 0; i < ar->n; ++i) tsr_tensor_release(ar->t[i]);
  ar->n = 0;
}

/* The function under test: builds its output from the inputs (and ctx). */
typedef tsr_tensor* (*tg_fn)(tg_arena* ar, tsr_tensor* const* in, const void* ctx);

static inline tsr_tensor* tg_weighted_sum(tg_arena* ar, tsr_tensor* y, const tsr_tensor* w) {
  return T(tsr_sum(T(tsr_mul(y, w, &o_)), 0, NULL, false, &o_));
}

static inline double tg_eval(tg_fn f, tsr_tensor* const* in, const void* ctx, const tsr_tensor* w) {
  tg_arena a = {.n = 0}, *ar = &a;
  bool prev = tsr_set_grad_enabled(false);
  double v;
  TSR_ASSERT_OK(tsr_item_double(tg_weighted_sum(ar, f(ar, in, ctx), w), &v));
  tsr_set_grad_enabled(prev);
  tg_arena_release(ar);
  return v;
}

static inline void tg_unravel(const tsr_tensor* t, int64_t k, int64_t* idx) {
  for (int64_t d = tsr_tensor_ndim(t) - 1; d >= 0; --d) {
    idx[d] = k % tsr_tensor_sizes(t)[d];
    k /= tsr_tensor_sizes(t)[d];
  }
}

static inline void tg_set(tsr_tensor* t, const int64_t* idx, double v) {
  bool prev = tsr_set_grad_enabled(false); /* writes to a leaf need no_grad */
  TSR_ASSERT_OK(tsr_set_double(t, tsr_tensor_ndim(t), idx, v));
  tsr_set_grad_enabled(prev);
}

/* Checks every input that requires grad; returns the number of elements
 * checked. Inputs must be float64 leaves (others are passed through). */
static inline int tg_gradcheck(const char* name, tg_fn f, int nin, tsr_tensor* const* in,
                               const void* ctx) {
  /* The weighting: random, shaped like the output. */
  tsr_generator* gen;
  TSR_ASSERT_OK(tsr_generator_create(4321, &gen));
  tsr_tensor* w;
  {
    tg_arena a = {.n = 0}, *ar = &a;
    bool prev = tsr_set_grad_enabled(false);
    tsr_tensor* y = f(ar, in, ctx);
    TSR_ASSERT_OK(tsr_randn(tsr_tensor_ndim(y), tsr_tensor_sizes(y), TSR_FLOAT64, gen, &w));
    tsr_set_grad_enabled(prev);
    tg_arena_release(ar);
  }
  for (int i = 0; i < nin; ++i)
    if (tsr_requires_grad(in[i])) TSR_ASSERT_OK(tsr_set_grad(in[i], NULL));
  {
    tg_arena a = {.n = 0}, *ar = &a;
    tsr_tensor* s = tg_weighted_sum(ar, f(ar, in, ctx), w);
    TSR_ASSERT_OK(tsr_backward(s, NULL, false));
    tg_arena_release(ar);
  }
  int checked = 0;
  for (int i = 0; i < nin; ++i) {
    if (!tsr_requires_grad(in[i])) continue;
    cr_assert_eq(tsr_tensor_dtype(in[i]), TSR_FLOAT64, "%s: input %d is not float64", name, i);
    tsr_tensor* grad;
    TSR_ASSERT_OK(tsr_grad(in[i], &grad));
    cr_assert_not_null(grad, "%s: input %d has no grad", name, i);
    double* analytic = tg_values(grad);
    int bad = 0;
    for (int64_t k = 0; k < tsr_tensor_numel(in[i]); ++k) {
      int64_t idx[TG_MAXDIM];
      tg_unravel(in[i], k, idx);
      double x0;
      TSR_ASSERT_OK(tsr_get_double(in[i], tsr_tensor_ndim(in[i]), idx, &x0));
      tg_set(in[i], idx, x0 + TG_EPS);
      double fp = tg_eval(f, in, ctx, w);
      tg_set(in[i], idx, x0 - TG_EPS);
      double fm = tg_eval(f, in, ctx, w);
      tg_set(in[i], idx, x0);
      double numeric = (fp - fm) / (2 * TG_EPS);
      if (!(fabs(analytic[k] - numeric) <= TG_ATOL + TG_RTOL * fabs(numeric)) && bad++ < 5)
        cr_expect_fail("%s: input %d element %lld: analytic %.10g, numeric %.10g", name, i,
                       (long long)k, analytic[k], numeric);
      ++checked;
    }
    free(analytic);
    tsr_tensor_release(grad);
  }
  tsr_tensor_release(w);
  tsr_generator_release(gen);
  return checked;
}

/* A float64 leaf of the given sizes, values from randn(seed) scaled and
 * shifted (v * scale + shift), requiring grad. */
static inline tsr_tensor* tg_leaf(int64_t ndim, const int64_t* sizes, uint64_t seed, double scale,
                                  double shift) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(seed, &g));
  tsr_tensor *r, *m, *x;
  TSR_ASSERT_OK(tsr_randn(ndim, sizes, TSR_FLOAT64, g, &r));
  TSR_ASSERT_OK(tsr_mul_scalar(r, scale, &m));
  TSR_ASSERT_OK(tsr_add_scalar(m, shift, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_tensor_release(r);
  tsr_tensor_release(m);
  tsr_generator_release(g);
  return x;
}

/* Asserts a tensor still holds `n` values equal to `want`, at version 0. */
static inline void tg_expect_unchanged(const tsr_tensor* t, const double* want, int64_t n) {
  cr_expect_eq(tsr_version(t), 0, "version changed to %lld", (long long)tsr_version(t));
  cr_assert_eq(tsr_tensor_numel(t), n);
  double* v = tg_values(t);
  for (int64_t i = 0; i < n; ++i)
    cr_expect(v[i] == want[i] || (isnan(v[i]) && isnan(want[i])), "element %lld changed: %g != %g",
              (long long)i, v[i], want[i]);
  free(v);
}

/* An error test's input: a tensor of `dtype` with every element v. */
static inline tsr_tensor* filled(int64_t ndim, const int64_t* sizes, tsr_dtype dtype, double v) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_full(ndim, sizes, v, dtype, TSR_CPU, &t));
  return t;
}

/* After a failed call: t still holds v everywhere and was never written. */
static inline void expect_filled(const tsr_tensor* t, double v) {
  cr_expect_eq(tsr_version(t), 0);
  double* got = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i) cr_expect_eq(got[i], v);
  free(got);
}

#endif
