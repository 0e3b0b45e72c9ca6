/* The Philox4x32-10 stream behind generators (random.h): values against an
 * independent Python implementation of the definition
 * (tests/golden/gen_philox.py), the (seed, offset) state, and tsr_dropout
 * (torch 1.13's CPU formula: x * bernoulli(1-p) / (1-p), MulBackward0). */
#include <math.h>

#include "golden/philox_golden.h"
#include "helpers.h"

Test(philox, rand_draws_the_documented_words) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(42, &g));
  const int64_t six = 6, three = 3;
  tsr_tensor *a, *b;
  TSR_ASSERT_OK(tsr_rand(1, &six, TSR_FLOAT32, g, &a));
  uint64_t seed, offset;
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &offset));
  cr_assert_eq(seed, 42);
  cr_assert_eq(offset, 6, "float32 takes one word per element");
  TSR_ASSERT_OK(tsr_rand(1, &three, TSR_FLOAT64, g, &b));
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &offset));
  cr_assert_eq(offset, 12, "float64 takes two words per element");
  for (int64_t i = 0; i < 6; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(a, 1, &i, &v));
    cr_assert_eq(v, RAND_F32[i], "rand f32[%lld] = %.17g, expected %.17g", (long long)i, v, RAND_F32[i]);
  }
  for (int64_t i = 0; i < 3; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(b, 1, &i, &v));
    cr_assert_eq(v, RAND_F64[i]);
  }
  /* set_state rewinds: the same position gives the same numbers */
  tsr_tensor* again;
  TSR_ASSERT_OK(tsr_generator_set_state(g, 42, 0));
  TSR_ASSERT_OK(tsr_rand(1, &six, TSR_FLOAT32, g, &again));
  cr_assert(memcmp(tsr_tensor_data_ptr(a), tsr_tensor_data_ptr(again), 6 * sizeof(float)) == 0);
  TSR_ASSERT_FAILS(tsr_generator_get_state(g, NULL, &offset), TSR_ERR_INVALID_ARGUMENT, "seed is NULL");
  TSR_ASSERT_FAILS(tsr_generator_set_state(NULL, 1, 2), TSR_ERR_INVALID_ARGUMENT, "generator is NULL");
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(again);
  tsr_generator_release(g);
}

Test(philox, dropout_mask_scale_history_and_gradient) {
  const int64_t n = 16;
  tsr_generator* g;
  tsr_tensor *x, *y, *s, *grad;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  TSR_ASSERT_OK(tsr_generator_set_state(g, 7, 100));
  TSR_ASSERT_OK(tsr_arange(1, 17, 1, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_dropout(x, 0.5, true, g, &y));
  cr_assert_str_eq(tsr_grad_fn_name(y), "MulBackward0");
  uint64_t seed, offset;
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &offset));
  cr_assert_eq(offset, 116);
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  TSR_ASSERT_OK(tsr_grad(x, &grad));
  for (int64_t i = 0; i < n; ++i) {
    double v, gv;
    TSR_ASSERT_OK(tsr_get_double(y, 1, &i, &v));
    TSR_ASSERT_OK(tsr_get_double(grad, 1, &i, &gv));
    cr_assert_eq(v, DROPOUT_KEEP[i] ? 2.0 * (double)(i + 1) : 0.0, "y[%lld] = %g", (long long)i, v);
    cr_assert_eq(gv, DROPOUT_KEEP[i] ? 2.0 : 0.0);
  }
  tsr_tensor_release(grad);
  tsr_tensor_release(s);
  tsr_tensor_release(y);

  /* Not training, or p == 0: x itself, generator untouched. */
  TSR_ASSERT_OK(tsr_dropout(x, 0.5, false, g, &y));
  cr_assert_eq(tsr_tensor_data_ptr(y), tsr_tensor_data_ptr(x));
  cr_assert(tsr_is_leaf(y));
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_dropout(x, 0.0, true, g, &y));
  cr_assert_eq(tsr_tensor_data_ptr(y), tsr_tensor_data_ptr(x));
  tsr_tensor_release(y);
  /* p == 1: zeros. */
  TSR_ASSERT_OK(tsr_dropout(x, 1.0, true, g, &y));
  for (int64_t i = 0; i < n; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(y, 1, &i, &v));
    cr_assert_eq(v, 0.0);
  }
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &offset));
  cr_assert_eq(offset, 132);

  /* Errors: nothing returned, generator not advanced. */
  y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_dropout(x, 1.5, true, g, &y), TSR_ERR_INVALID_ARGUMENT,
                   "dropout probability has to be between 0 and 1, but got 1.5");
  TSR_ASSERT_FAILS(tsr_dropout(x, NAN, true, g, &y), TSR_ERR_INVALID_ARGUMENT, "dropout probability");
  TSR_ASSERT_FAILS(tsr_dropout(x, 0.5, true, NULL, &y), TSR_ERR_INVALID_ARGUMENT, "generator is NULL");
  tsr_tensor* ints;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_INT64, TSR_CPU, &ints));
  TSR_ASSERT_FAILS(tsr_dropout(ints, 0.5, true, g, &y), TSR_ERR_DTYPE_MISMATCH, "floating point");
  cr_assert_eq(y, SENTINEL);
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &offset));
  cr_assert_eq(offset, 132);
  tsr_tensor_release(ints);
  tsr_tensor_release(x);
  tsr_generator_release(g);
}

/* A long mask from an offset inside a Philox block: the vectorised word
 * fill and its chunking give the words the definition gives. */
Test(philox, dropout_mask_from_an_unaligned_offset_across_chunks) {
  const int64_t n = 5000;
  tsr_generator* g;
  tsr_tensor *x, *y;
  TSR_ASSERT_OK(tsr_generator_create(11, &g));
  TSR_ASSERT_OK(tsr_generator_set_state(g, 11, 3));
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT64, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_dropout(x, 0.3, true, g, &y));
  const double* v = tsr_tensor_data_ptr(y);
  int wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool kept = DROPOUT_LONG_MASK[i / 8] >> (i % 8) & 1;
    wrong += (v[i] != 0) != kept;
    if (kept) cr_expect_float_eq(v[i], 1 / 0.7, 1e-15);
  }
  cr_expect_eq(wrong, 0, "%d of %lld mask elements differ from the definition", wrong, (long long)n);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
  tsr_generator_release(g);
}
