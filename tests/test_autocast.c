/* Autocast (autocast.h): torch 1.13's CPU bfloat16 policy against goldens
 * (tests/golden/gen_autocast.py: output dtypes, values and gradients of each
 * policy, with float32, bfloat16, float64 and mixed inputs); regions that
 * nest, turn autocast off and belong to one thread; float16 regions; the
 * weight-cast cache (one cast per weight, dropped at the outermost end and
 * on an in-place write); checkpoint replay under the forward's autocast
 * state with backward outside it; every error path. */
#include <math.h>
#include <pthread.h>

#include "helpers.h"
#include "ops_program.h"
#include "golden/autocast_golden.h"

/* The program's forward inside a bfloat16 CPU region, as the generator ran
 * torch's; backward after the region. */
static void run_in_region(const tg_case* c, tg_run* run) {
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  tg_run_program(c, run);
  TSR_ASSERT_OK(tsr_autocast_end());
}

TG_PARAMETERIZED(autocast, golden, tg_autocast, TG_AUTOCAST_N) {
  tg_run run;
  run_in_region(c, &run);
  tsr_tensor* out = run.regs[run.nregs - 1];
  tg_check_value(out, &c->out, c->check_strides, c->rtol, c->atol, c->name, "result");
  if (c->grads[0].values || c->grad_out) {
    tsr_tensor* gout = NULL;
    if (c->grad_out) {
      tsr_tensor* flat = tg_from_doubles(c->grad_out, c->out.numel, c->out.dtype);
      TSR_ASSERT_OK(tsr_reshape(flat, c->out.ndim, c->out.sizes, &gout));
      tsr_tensor_release(flat);
    }
    TSR_ASSERT_OK(tsr_backward(out, gout, false));
    for (int k = 0; k < c->ninputs; ++k) {
      if (!c->grads[k].values) continue;
      tsr_tensor* g = NULL;
      TSR_ASSERT_OK(tsr_grad(run.regs[k], &g));
      tg_check_value(g, &c->grads[k], c->check_strides, c->rtol, c->atol, c->name, "grad");
      tsr_tensor_release(g);
    }
    tsr_tensor_release(gout);
  }
  tg_release(&run, c->ninputs);
}

/* ---- regions ------------------------------------------------------------- */

Test(autocast, defaults_outside_any_region) {
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CPU));
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CUDA));
  cr_expect_eq(tsr_get_autocast_dtype(TSR_DEVICE_CPU), TSR_BFLOAT16);
  cr_expect_eq(tsr_get_autocast_dtype(TSR_DEVICE_CUDA), TSR_FLOAT16);
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CUDA_HOST));
  cr_expect_eq(tsr_get_autocast_dtype(TSR_DEVICE_CUDA_HOST), TSR_FLOAT32);
  cr_expect(!tsr_is_autocast_enabled((tsr_device_type)99)); /* any int from C */
  cr_expect_eq(tsr_get_autocast_dtype((tsr_device_type)99), TSR_FLOAT32);
  cr_expect(tsr_is_autocast_cache_enabled());
}

Test(autocast, regions_nest_and_restore) {
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  cr_expect(tsr_is_autocast_enabled(TSR_DEVICE_CPU));
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CUDA), "a CPU region leaves CUDA alone");
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_FLOAT16, false));
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CPU), "enabled=false turns it off");
  cr_expect_eq(tsr_get_autocast_dtype(TSR_DEVICE_CPU), TSR_FLOAT16);
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CUDA, TSR_BFLOAT16, true));
  cr_expect(tsr_is_autocast_enabled(TSR_DEVICE_CUDA));
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CPU));
  TSR_ASSERT_OK(tsr_autocast_end());
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CUDA));
  TSR_ASSERT_OK(tsr_autocast_end());
  cr_expect(tsr_is_autocast_enabled(TSR_DEVICE_CPU));
  cr_expect_eq(tsr_get_autocast_dtype(TSR_DEVICE_CPU), TSR_BFLOAT16);
  TSR_ASSERT_OK(tsr_autocast_end());
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CPU));
}

Test(autocast, bad_arguments_change_nothing) {
  TSR_ASSERT_FAILS(tsr_autocast_end(), TSR_ERR_INVALID_ARGUMENT, "without an open region");
  TSR_ASSERT_FAILS(tsr_autocast_begin(TSR_DEVICE_CUDA_HOST, TSR_BFLOAT16, true), TSR_ERR_INVALID_ARGUMENT,
                   "device_type must be");
  TSR_ASSERT_FAILS(tsr_autocast_begin((tsr_device_type)99, TSR_BFLOAT16, true), TSR_ERR_INVALID_ARGUMENT,
                   "got 99");
  TSR_ASSERT_FAILS(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_FLOAT32, true), TSR_ERR_INVALID_ARGUMENT,
                   "bfloat16 or float16, got float32");
  TSR_ASSERT_FAILS(tsr_autocast_begin(TSR_DEVICE_CPU, (tsr_dtype)99, true), TSR_ERR_INVALID_ARGUMENT,
                   "an invalid dtype");
  cr_expect(!tsr_is_autocast_enabled(TSR_DEVICE_CPU));
  /* nothing was opened: one end is still refused */
  TSR_ASSERT_FAILS(tsr_autocast_end(), TSR_ERR_INVALID_ARGUMENT, "without an open region");
}

static void* other_thread(void* arg) {
  *(bool*)arg = tsr_is_autocast_enabled(TSR_DEVICE_CPU);
  return NULL;
}

Test(autocast, regions_belong_to_their_thread) {
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  bool seen = true;
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, other_thread, &seen), 0);
  pthread_join(t, NULL);
  TSR_ASSERT_OK(tsr_autocast_end());
  cr_expect(!seen, "another thread saw this thread's region");
}

/* ---- ops in regions ------------------------------------------------------- */

static tsr_tensor* randn(int64_t rows, int64_t cols, tsr_dtype dtype, bool requires_grad) {
  static uint64_t seed = 31;
  int64_t sizes[2] = {rows, cols};
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(seed++, &g));
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_randn(2, sizes, dtype, g, &t));
  tsr_generator_release(g);
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

Test(autocast, float16_region_and_disabled_region) {
  tsr_tensor *a = randn(3, 4, TSR_FLOAT32, false), *b = randn(4, 2, TSR_FLOAT32, false), *y;
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_FLOAT16, true));
  TSR_ASSERT_OK(tsr_matmul(a, b, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT16);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_FLOAT16, false));
  TSR_ASSERT_OK(tsr_matmul(a, b, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT32, "a disabled region runs the op as given");
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_autocast_end());
  TSR_ASSERT_OK(tsr_autocast_end());
  TSR_ASSERT_OK(tsr_matmul(a, b, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT32);
  cr_expect_null(tsr_grad_fn_name(y));
  tsr_tensor_release(y);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

static int64_t allocations(void) {
  tsr_memory_stats_t s = {.struct_size = sizeof s};
  TSR_ASSERT_OK(tsr_memory_stats(TSR_DEVICE_CPU, 0, &s));
  return s.allocation.allocated;
}

/* Two products with one weight: the allocations of the region with the
 * cache on and off differ by exactly the weight's second cast. */
static int64_t allocations_of_two_products(bool cache) {
  tsr_tensor *x = randn(8, 16, TSR_FLOAT32, false), *w = randn(16, 16, TSR_FLOAT32, true), *y1, *y2;
  const bool prev = tsr_set_autocast_cache_enabled(cache);
  const int64_t before = allocations();
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  TSR_ASSERT_OK(tsr_matmul(x, w, &y1));
  TSR_ASSERT_OK(tsr_matmul(x, w, &y2));
  TSR_ASSERT_OK(tsr_autocast_end());
  const int64_t n = allocations() - before;
  tsr_set_autocast_cache_enabled(prev);
  cr_expect_eq(tsr_tensor_dtype(y2), TSR_BFLOAT16);
  tsr_tensor_release(y1);
  tsr_tensor_release(y2);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
  return n;
}

Test(autocast, weight_casts_are_cached_within_a_region) {
  const int64_t cached = allocations_of_two_products(true);
  const int64_t uncached = allocations_of_two_products(false);
  cr_expect_eq(uncached - cached, 1, "cache on: %lld allocations, off: %lld", (long long)cached,
               (long long)uncached);
}

Test(autocast, an_in_place_write_invalidates_the_cached_cast) {
  tsr_tensor *x = randn(2, 3, TSR_FLOAT32, false), *w = randn(3, 3, TSR_FLOAT32, true), *y1, *y2, *one;
  int64_t sizes[2] = {3, 3};
  TSR_ASSERT_OK(tsr_full(2, sizes, 1.0, TSR_FLOAT32, TSR_DEVICE_CPU, 0, &one));
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  TSR_ASSERT_OK(tsr_matmul(x, w, &y1));
  bool prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_add_(w, one, 1.0)); /* an optimizer step inside the region */
  tsr_set_grad_enabled(prev);
  TSR_ASSERT_OK(tsr_matmul(x, w, &y2));
  TSR_ASSERT_OK(tsr_autocast_end());
  /* y2 - y1 = x @ ones: the row sums of x, in every column */
  tsr_tensor *diff, *d32, *xs;
  TSR_ASSERT_OK(tsr_sub(y2, y1, &diff));
  TSR_ASSERT_OK(tsr_to_dtype(diff, TSR_FLOAT32, &d32));
  int64_t dim = 1;
  TSR_ASSERT_OK(tsr_sum(x, 1, &dim, true, &xs));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      int64_t at[2] = {i, j}, at0[2] = {i, 0};
      double got, want;
      TSR_ASSERT_OK(tsr_get_double(d32, 2, at, &got));
      TSR_ASSERT_OK(tsr_get_double(xs, 2, at0, &want));
      cr_expect(fabs(got - want) <= 0.1 + 0.02 * fabs(want), "[%lld,%lld] %g vs %g", (long long)i,
                (long long)j, got, want);
    }
  tsr_tensor *handles[] = {x, w, y1, y2, one, diff, d32, xs};
  for (size_t k = 0; k < sizeof handles / sizeof handles[0]; ++k) tsr_tensor_release(handles[k]);
}

/* loss = sum(gelu(x @ w1) @ w2) with the products under autocast. */
static void block_grads(bool checkpointed, tsr_tensor* x, tsr_tensor* w1, tsr_tensor* w2, tsr_tensor** g1,
                        tsr_tensor** g2) {
  tsr_tensor *h, *a, *y, *loss;
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  if (checkpointed) TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_matmul(x, w1, &h));
  TSR_ASSERT_OK(tsr_gelu(h, TSR_GELU_NONE, &a));
  TSR_ASSERT_OK(tsr_matmul(a, w2, &y));
  if (checkpointed) TSR_ASSERT_OK(tsr_checkpoint_end());
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &loss));
  TSR_ASSERT_OK(tsr_autocast_end());
  cr_expect_eq(tsr_tensor_dtype(y), TSR_BFLOAT16);
  /* backward outside the region: the replay must still run in bfloat16 */
  TSR_ASSERT_OK(tsr_backward(loss, NULL, false));
  TSR_ASSERT_OK(tsr_grad(w1, g1));
  TSR_ASSERT_OK(tsr_grad(w2, g2));
  cr_expect_eq(tsr_tensor_dtype(*g1), TSR_FLOAT32);
  tsr_tensor *handles[] = {h, a, y, loss};
  for (size_t k = 0; k < 4; ++k) tsr_tensor_release(handles[k]);
  TSR_ASSERT_OK(tsr_set_grad(w1, NULL)); /* the next run starts a fresh .grad */
  TSR_ASSERT_OK(tsr_set_grad(w2, NULL));
}

Test(autocast, checkpoint_replay_runs_under_the_recorded_state) {
  tsr_tensor *x = randn(4, 8, TSR_FLOAT32, false), *w1 = randn(8, 8, TSR_FLOAT32, true),
             *w2 = randn(8, 3, TSR_FLOAT32, true);
  tsr_tensor *p1, *p2, *c1, *c2;
  block_grads(false, x, w1, w2, &p1, &p2);
  block_grads(true, x, w1, w2, &c1, &c2);
  bool same1 = false, same2 = false;
  TSR_ASSERT_OK(tsr_allclose(p1, c1, 0, 0, false, &same1));
  TSR_ASSERT_OK(tsr_allclose(p2, c2, 0, 0, false, &same2));
  cr_expect(same1 && same2, "checkpointed gradients differ from the plain ones");
  tsr_tensor *handles[] = {x, w1, w2, p1, p2, c1, c2};
  for (size_t k = 0; k < 7; ++k) tsr_tensor_release(handles[k]);
}

Test(autocast, promote_refuses_the_other_lower_precision) {
  tsr_tensor *a = randn(2, 2, TSR_FLOAT16, false), *b = randn(2, 2, TSR_BFLOAT16, false), *y = NULL;
  const tsr_tensor* list[2] = {a, b};
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  TSR_ASSERT_FAILS(tsr_cat(2, list, 0, &y), TSR_ERR_DTYPE_MISMATCH, "in at::autocast::prioritize");
  TSR_ASSERT_OK(tsr_autocast_end());
  cr_expect_null(y);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* einsum is not listed; its contractions run through bmm, which is (torch
 * 1.13: 'ij,jk->ik' gives bfloat16, 'ii->i' and 'ij->' stay float32). */
Test(autocast, einsum_casts_only_what_runs_through_bmm) {
  tsr_tensor *a = randn(3, 3, TSR_FLOAT32, false), *b = randn(3, 4, TSR_FLOAT32, false), *y;
  const tsr_tensor* two[2] = {a, b};
  const tsr_tensor* one[1] = {a};
  TSR_ASSERT_OK(tsr_autocast_begin(TSR_DEVICE_CPU, TSR_BFLOAT16, true));
  TSR_ASSERT_OK(tsr_einsum("ij,jk->ik", 2, two, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_BFLOAT16);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_einsum("ii->i", 1, one, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT32);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_einsum("ij->", 1, one, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT32);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_autocast_end());
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}
