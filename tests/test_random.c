/* Seeded generators (random.h): reproducibility, rand in [0, 1) for every
 * floating dtype, randn's moments (loose bounds over 100k samples),
 * randperm a permutation, and the error paths (nothing drawn on failure). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "helpers.h"
#include "ops_program.h"

static const tsr_dtype kFloating[] = {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};

static tsr_generator* gen(uint64_t seed) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(seed, &g));
  return g;
}

/* Bitwise equality of two tensors' elements (same dtype and numel). */
static bool same_bits(const tsr_tensor* a, const tsr_tensor* b) {
  size_t n = (size_t)tsr_tensor_nbytes(a);
  if (n != (size_t)tsr_tensor_nbytes(b)) return false;
  char *x = malloc(n + 1), *y = malloc(n + 1);
  TSR_ASSERT_OK(tsr_copy_to_buffer(a, x, n, NULL));
  TSR_ASSERT_OK(tsr_copy_to_buffer(b, y, n, NULL));
  bool same = memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return same;
}

Test(random, same_seed_same_values) {
  const int64_t s[] = {7, 5};
  for (int k = 0; k < 4; ++k) {
    tsr_generator *g1 = gen(42), *g2 = gen(42);
    tsr_tensor *a, *b, *c, *d;
    TSR_ASSERT_OK(tsr_rand(2, s, kFloating[k], g1, &a));
    TSR_ASSERT_OK(tsr_rand(2, s, kFloating[k], g2, &b));
    TSR_ASSERT_OK(tsr_randn(2, s, kFloating[k], g1, &c));
    TSR_ASSERT_OK(tsr_randn(2, s, kFloating[k], g2, &d));
    cr_expect(same_bits(a, b), "rand %s", tsr_dtype_name(kFloating[k]));
    cr_expect(same_bits(c, d), "randn %s", tsr_dtype_name(kFloating[k]));
    cr_expect(!same_bits(a, c) || kFloating[k] == TSR_BFLOAT16, "the generator advanced");
    tsr_tensor* all[] = {a, b, c, d};
    for (int i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
    tsr_generator_release(g1);
    tsr_generator_release(g2);
  }
  /* manual_seed restarts the sequence; randperm is reproducible too. */
  tsr_generator* g = gen(7);
  tsr_tensor *p1, *p2, *r1, *r2;
  TSR_ASSERT_OK(tsr_randperm(50, g, &p1));
  TSR_ASSERT_OK(tsr_rand(1, s, TSR_FLOAT32, g, &r1));
  TSR_ASSERT_OK(tsr_generator_manual_seed(g, 7));
  TSR_ASSERT_OK(tsr_randperm(50, g, &p2));
  TSR_ASSERT_OK(tsr_rand(1, s, TSR_FLOAT32, g, &r2));
  cr_expect(same_bits(p1, p2));
  cr_expect(same_bits(r1, r2));
  tsr_tensor* all[] = {p1, p2, r1, r2};
  for (int i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
}

Test(random, different_seeds_differ) {
  const int64_t s[] = {64};
  tsr_generator *g1 = gen(1), *g2 = gen(2);
  tsr_tensor *a, *b, *p, *q;
  TSR_ASSERT_OK(tsr_randn(1, s, TSR_FLOAT64, g1, &a));
  TSR_ASSERT_OK(tsr_randn(1, s, TSR_FLOAT64, g2, &b));
  TSR_ASSERT_OK(tsr_randperm(64, g1, &p));
  TSR_ASSERT_OK(tsr_randperm(64, g2, &q));
  cr_expect(!same_bits(a, b));
  cr_expect(!same_bits(p, q));
  tsr_tensor* all[] = {a, b, p, q};
  for (int i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g1);
  tsr_generator_release(g2);
}

/* Every value in [0, 1), also after rounding to 16-bit floats; the mean of
 * 100k uniforms is 0.5 +- 0.005 (~5 sigma). */
Test(random, rand_in_unit_interval) {
  const int64_t n = 100000, s[] = {100, 1000};
  tsr_generator* g = gen(99);
  for (int k = 0; k < 4; ++k) {
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_rand(2, s, kFloating[k], g, &t));
    cr_expect_eq(tsr_tensor_dtype(t), kFloating[k]);
    tsr_assert_geometry(t, 2, s, (const int64_t[]){1000, 1});
    cr_expect(!tsr_requires_grad(t));
    double* v = tg_values(t);
    double lo = 1, hi = 0, sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      lo = fmin(lo, v[i]);
      hi = fmax(hi, v[i]);
      sum += v[i];
    }
    cr_expect(lo >= 0.0 && hi < 1.0, "%s: range [%g, %g]", tsr_dtype_name(kFloating[k]), lo, hi);
    cr_expect(fabs(sum / n - 0.5) < 0.005, "%s: mean %g", tsr_dtype_name(kFloating[k]), sum / n);
    cr_expect(hi > 0.99 && lo < 0.01, "%s: covers the interval", tsr_dtype_name(kFloating[k]));
    free(v);
    tsr_tensor_release(t);
  }
  tsr_generator_release(g);
}

/* 100k standard normals: mean 0 +- 0.02, std 1 +- 0.02 (~6 sigma), and
 * about 68.3% within one std (+-1%). Odd count: Box-Muller's last pair. */
Test(random, randn_moments) {
  const int64_t n = 100001;
  tsr_generator* g = gen(2024);
  for (int k = 0; k < 4; ++k) {
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_randn(1, &n, kFloating[k], g, &t));
    double* v = tg_values(t);
    double sum = 0, sq = 0;
    int64_t within = 0;
    for (int64_t i = 0; i < n; ++i) {
      cr_assert(isfinite(v[i]));
      sum += v[i];
      sq += v[i] * v[i];
      within += fabs(v[i]) < 1.0;
    }
    double mean = sum / n, std = sqrt(sq / n - mean * mean);
    const char* name = tsr_dtype_name(kFloating[k]);
    cr_expect(fabs(mean) < 0.02, "%s: mean %g", name, mean);
    cr_expect(fabs(std - 1) < 0.02, "%s: std %g", name, std);
    cr_expect(fabs((double)within / n - 0.6827) < 0.01, "%s: P(|x|<1) %g", name,
              (double)within / n);
    free(v);
    tsr_tensor_release(t);
  }
  tsr_generator_release(g);
}

Test(random, randperm_is_a_permutation) {
  tsr_generator* g = gen(5);
  const int64_t ns[] = {0, 1, 2, 1000};
  for (int k = 0; k < 4; ++k) {
    const int64_t n = ns[k];
    tsr_tensor* p;
    TSR_ASSERT_OK(tsr_randperm(n, g, &p));
    cr_expect_eq(tsr_tensor_dtype(p), TSR_INT64);
    tsr_assert_geometry(p, 1, &n, NULL);
    int64_t* v = malloc((size_t)(n + 1) * sizeof(int64_t));
    char* seen = calloc((size_t)n + 1, 1);
    TSR_ASSERT_OK(tsr_copy_to_buffer(p, v, (size_t)n * sizeof(int64_t), NULL));
    int64_t fixed = 0;
    for (int64_t i = 0; i < n; ++i) {
      cr_assert(v[i] >= 0 && v[i] < n && !seen[v[i]], "randperm(%lld)[%lld] = %lld",
                (long long)n, (long long)i, (long long)v[i]);
      seen[v[i]] = 1;
      fixed += v[i] == i;
    }
    if (n == 1000) cr_expect(fixed < 10, "%lld fixed points: not shuffled", (long long)fixed);
    free(v);
    free(seen);
    tsr_tensor_release(p);
  }
  tsr_generator_release(g);
}

/* Failures draw nothing: the next value equals a fresh generator's first. */
Test(random, errors_change_nothing) {
  const int64_t s[] = {4}, neg[] = {-1};
  tsr_generator *g = gen(3), *fresh = gen(3);
  tsr_tensor* out = SENTINEL;
  /* torch refuses too ("check_uniform_bounds" not implemented for 'Int';
   * "normal_kernel_cpu" not implemented for 'Bool'). */
  TSR_ASSERT_FAILS(tsr_rand(1, s, TSR_INT32, g, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected a floating point dtype, got int32");
  TSR_ASSERT_FAILS(tsr_randn(1, s, TSR_BOOL, g, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected a floating point dtype, got bool");
  TSR_ASSERT_FAILS(tsr_rand(1, s, (tsr_dtype)99, g, &out), TSR_ERR_INVALID_ARGUMENT,
                   "invalid dtype value 99");
  TSR_ASSERT_FAILS(tsr_rand(1, s, TSR_FLOAT32, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "generator is NULL");
  TSR_ASSERT_FAILS(tsr_randn(1, s, TSR_FLOAT32, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "generator is NULL");
  TSR_ASSERT_FAILS(tsr_randperm(3, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "generator is NULL");
  TSR_ASSERT_FAILS(tsr_rand(1, s, TSR_FLOAT32, g, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TSR_ASSERT_FAILS(tsr_randperm(3, g, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_rand(1, neg, TSR_FLOAT32, g, &out), TSR_ERR_INVALID_ARGUMENT,
                   "non-negative");
  TSR_ASSERT_FAILS(tsr_rand(1, NULL, TSR_FLOAT32, g, &out), TSR_ERR_INVALID_ARGUMENT, "NULL");
  TSR_ASSERT_FAILS(tsr_randperm(-2, g, &out), TSR_ERR_INVALID_ARGUMENT,
                   "n must be non-negative, got -2");
  TSR_ASSERT_FAILS(tsr_generator_manual_seed(NULL, 1), TSR_ERR_INVALID_ARGUMENT,
                   "generator is NULL");
  tsr_generator* none = (tsr_generator*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_generator_create(1, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  cr_expect_eq(none, (tsr_generator*)SENTINEL);
  tsr_tensor *a, *b;
  TSR_ASSERT_OK(tsr_rand(1, s, TSR_FLOAT64, g, &a));
  TSR_ASSERT_OK(tsr_rand(1, s, TSR_FLOAT64, fresh, &b));
  cr_expect(same_bits(a, b), "a failed call advanced the generator");
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  /* retain/release pair; NULL is ignored. */
  tsr_generator_retain(g);
  tsr_generator_release(g);
  tsr_generator_release(NULL);
  tsr_generator_release(g);
  tsr_generator_release(fresh);
}

/* A 0-dim and an empty request. */
Test(random, scalar_and_empty) {
  tsr_generator* g = gen(8);
  const int64_t z[] = {0, 3};
  tsr_tensor *s, *e;
  TSR_ASSERT_OK(tsr_randn(0, NULL, TSR_FLOAT32, g, &s));
  cr_expect_eq(tsr_tensor_ndim(s), 0);
  double v;
  TSR_ASSERT_OK(tsr_item_double(s, &v));
  cr_expect(isfinite(v));
  TSR_ASSERT_OK(tsr_rand(2, z, TSR_FLOAT16, g, &e));
  cr_expect_eq(tsr_tensor_numel(e), 0);
  tsr_tensor_release(s);
  tsr_tensor_release(e);
  tsr_generator_release(g);
}
