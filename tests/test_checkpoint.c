/* Checkpoint regions (checkpoint.h): a deep residual MLP with dropout gets
 * bit-identical gradients with and without regions, at a fraction of the
 * activation memory; the callback and sequential forms; selective keeping;
 * random replay; and every misuse: status, message, nothing changed. */
#include <stddef.h>
#include <math.h>
#include <stdlib.h>

#include "helpers.h"

enum { BLOCKS = 32, BATCH = 512, WIDTH = 32, HIDDEN = 128 };

/* One residual block: x + (dropout(relu(x W1 + b1)) W2 + b2). */
typedef struct {
  tsr_tensor *w1, *b1, *w2, *b2;
} block;

typedef struct {
  block blocks[BLOCKS];
  int n;
  tsr_generator* dropout_gen;
  double p;
} model;

static tsr_tensor* param(tsr_generator* g, int64_t rows, int64_t cols, double scale) {
  const int64_t sizes[] = {rows, cols};
  tsr_tensor *r, *p;
  TSR_ASSERT_OK(tsr_randn(cols ? 2 : 1, cols ? sizes : &rows, TSR_FLOAT32, g, &r));
  TSR_ASSERT_OK(tsr_mul_scalar(r, scale, &p));
  tsr_tensor_release(r);
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  return p;
}

static void model_init(model* m, int n, double p) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  m->n = n;
  m->p = p;
  for (int i = 0; i < n; ++i) {
    m->blocks[i].w1 = param(g, WIDTH, HIDDEN, 0.2);
    m->blocks[i].b1 = param(g, HIDDEN, 0, 0.1);
    m->blocks[i].w2 = param(g, HIDDEN, WIDTH, 0.1);
    m->blocks[i].b2 = param(g, WIDTH, 0, 0.1);
  }
  tsr_generator_release(g);
  TSR_ASSERT_OK(tsr_generator_create(99, &m->dropout_gen));
}

static void model_free(model* m) {
  for (int i = 0; i < m->n; ++i) {
    tsr_tensor_release(m->blocks[i].w1);
    tsr_tensor_release(m->blocks[i].b1);
    tsr_tensor_release(m->blocks[i].w2);
    tsr_tensor_release(m->blocks[i].b2);
  }
  tsr_generator_release(m->dropout_gen);
}

static tsr_tensor* block_forward(const model* m, const block* b, const tsr_tensor* x) {
  tsr_tensor *t1, *t2, *t3, *t4, *t5, *t6, *y;
  TSR_ASSERT_OK(tsr_matmul(x, b->w1, &t1));
  TSR_ASSERT_OK(tsr_add(t1, b->b1, &t2));
  tsr_tensor_release(t1);
  TSR_ASSERT_OK(tsr_relu(t2, &t3));
  tsr_tensor_release(t2);
  TSR_ASSERT_OK(tsr_dropout(t3, m->p, true, m->dropout_gen, &t4));
  tsr_tensor_release(t3);
  TSR_ASSERT_OK(tsr_matmul(t4, b->w2, &t5));
  tsr_tensor_release(t4);
  TSR_ASSERT_OK(tsr_add(t5, b->b2, &t6));
  tsr_tensor_release(t5);
  TSR_ASSERT_OK(tsr_add(x, t6, &y));
  tsr_tensor_release(t6);
  return y;
}

typedef enum { PLAIN, REGION_PER_BLOCK, NESTED, NO_EARLY_STOP, KEEP_MATMUL, FRESH_RNG } mode;

static tsr_checkpoint_options options_for(mode md) {
  tsr_checkpoint_options o = TSR_CHECKPOINT_OPTIONS_INIT;
  if (md == NO_EARLY_STOP) o.early_stop = false;
  if (md == KEEP_MATMUL) o.keep_ops = "matmul, add";
  if (md == FRESH_RNG) o.preserve_rng_state = false;
  return o;
}

/* mean(blocks(x)) with regions as `md` says; returns the loss. */
static tsr_tensor* forward(const model* m, const tsr_tensor* x0, mode md) {
  tsr_checkpoint_options o = options_for(md);
  tsr_tensor* x = (tsr_tensor*)x0;
  tsr_tensor_retain(x);
  if (md == NESTED) TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  for (int i = 0; i < m->n; ++i) {
    if (md != PLAIN) TSR_ASSERT_OK(tsr_checkpoint_begin(&o));
    tsr_tensor* y = block_forward(m, &m->blocks[i], x);
    if (md != PLAIN) TSR_ASSERT_OK(tsr_checkpoint_end());
    tsr_tensor_release(x);
    x = y;
  }
  if (md == NESTED) TSR_ASSERT_OK(tsr_checkpoint_end());
  tsr_tensor* loss;
  TSR_ASSERT_OK(tsr_mean(x, 0, NULL, false, &loss));
  tsr_tensor_release(x);
  return loss;
}

static tsr_tensor* input(bool requires_grad) {
  tsr_generator* g;
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_generator_create(3, &g));
  const int64_t sizes[] = {BATCH, WIDTH};
  TSR_ASSERT_OK(tsr_randn(2, sizes, TSR_FLOAT32, g, &x));
  tsr_generator_release(g);
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  return x;
}

/* Every parameter's gradient, as bytes, in one malloc'ed buffer. */
static float* collect_grads(const model* m, size_t* count) {
  size_t n = 0;
  float* all = NULL;
  for (int i = 0; i < m->n; ++i) {
    tsr_tensor* ps[] = {m->blocks[i].w1, m->blocks[i].b1, m->blocks[i].w2, m->blocks[i].b2};
    for (int k = 0; k < 4; ++k) {
      tsr_tensor* g;
      TSR_ASSERT_OK(tsr_grad(ps[k], &g));
      cr_assert_not_null(g, "block %d param %d has no gradient", i, k);
      size_t len = (size_t)tsr_tensor_numel(g);
      all = realloc(all, (n + len) * sizeof(float));
      TSR_ASSERT_OK(tsr_copy_to_buffer(g, all + n, len * sizeof(float), NULL));
      n += len;
      tsr_tensor_release(g);
      TSR_ASSERT_OK(tsr_set_grad(ps[k], NULL));
    }
  }
  *count = n;
  return all;
}

typedef struct {
  float* grads;
  size_t n;
  int64_t peak;  /* max allocated above what was allocated before the step */
} step_result;

static step_result train_step(model* m, const tsr_tensor* x, mode md) {
  TSR_ASSERT_OK(tsr_generator_set_state(m->dropout_gen, 99, 0));
  int64_t base, peak;
  TSR_ASSERT_OK(tsr_memory_allocated(TSR_CPU, &base));
  TSR_ASSERT_OK(tsr_reset_peak_memory_stats(TSR_CPU));
  tsr_tensor* loss = forward(m, x, md);
  TSR_ASSERT_OK(tsr_backward(loss, NULL, false));
  TSR_ASSERT_OK(tsr_max_memory_allocated(TSR_CPU, &peak));
  tsr_tensor_release(loss);
  step_result r = {NULL, 0, peak - base};
  r.grads = collect_grads(m, &r.n);
  return r;
}

static void assert_same_grads(step_result a, step_result b, const char* what) {
  cr_assert_eq(a.n, b.n);
  cr_assert(memcmp(a.grads, b.grads, a.n * sizeof(float)) == 0,
            "%s: gradients differ from the unchecked run", what);
}

Test(checkpoint, region_per_block_gives_identical_gradients_at_a_third_of_the_memory) {
  model m;
  model_init(&m, BLOCKS, 0.1);
  tsr_tensor* x = input(false);
  step_result plain = train_step(&m, x, PLAIN);
  step_result ck = train_step(&m, x, REGION_PER_BLOCK);
  assert_same_grads(plain, ck, "one region per block");
  cr_log_info("peak above parameters: %lld bytes plain, %lld with regions", (long long)plain.peak, (long long)ck.peak);
  cr_assert(ck.peak * 3 <= plain.peak, "peak above the parameters: %lld bytes with regions, %lld without",
            (long long)ck.peak, (long long)plain.peak);
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  free(plain.grads);
  free(ck.grads);
  tsr_tensor_release(x);
  model_free(&m);
}

Test(checkpoint, nesting_early_stop_and_selective_keeping_give_identical_gradients) {
  model m;
  model_init(&m, 6, 0.25);
  tsr_tensor* x = input(true);
  step_result plain = train_step(&m, x, PLAIN);
  mode modes[] = {NESTED, NO_EARLY_STOP, KEEP_MATMUL};
  const char* names[] = {"nested", "early_stop false", "keep_ops matmul,add"};
  for (int i = 0; i < 3; ++i) {
    step_result r = train_step(&m, x, modes[i]);
    assert_same_grads(plain, r, names[i]);
    free(r.grads);
  }
  free(plain.grads);
  tsr_tensor_release(x);
  model_free(&m);
}

Test(checkpoint, without_preserve_rng_state_the_replayed_mask_differs) {
  model m;
  model_init(&m, 2, 0.5);
  tsr_tensor* x = input(false);
  step_result plain = train_step(&m, x, PLAIN);
  step_result fresh = train_step(&m, x, FRESH_RNG);
  cr_assert_eq(plain.n, fresh.n);
  cr_assert(memcmp(plain.grads, fresh.grads, plain.n * sizeof(float)) != 0,
            "a replay drawing fresh numbers should give other masks, hence other gradients");
  free(plain.grads);
  free(fresh.grads);
  tsr_tensor_release(x);
  model_free(&m);
}

/* w * 3 computed in a region from an input that needs no grad: w gets its
 * gradient (parameters inside a region are differentiated). */
Test(checkpoint, parameters_inside_get_gradients_when_no_input_requires_grad) {
  const int64_t n = 4;
  tsr_tensor *w, *x, *y, *s, *g;
  TSR_ASSERT_OK(tsr_full(1, &n, 2.0, TSR_FLOAT64, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT64, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_mul(w, x, &y));
  TSR_ASSERT_OK(tsr_mul(y, y, &s));  /* saves y: dropped, replayed */
  TSR_ASSERT_OK(tsr_checkpoint_end());
  tsr_tensor_release(y);
  tsr_tensor* total;
  TSR_ASSERT_OK(tsr_sum(s, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  TSR_ASSERT_OK(tsr_grad(w, &g));
  for (int64_t i = 0; i < n; ++i) {  /* d/dw sum((w x)^2) = 2 w x^2 */
    double v;
    TSR_ASSERT_OK(tsr_get_double(g, 1, &i, &v));
    cr_assert_float_eq(v, 2 * 2.0 * (double)(i * i), 1e-12);
  }
  tsr_tensor_release(g);
  tsr_tensor_release(total);
  tsr_tensor_release(s);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
}

/* An in-place op on a tensor made inside the region is replayed. */
Test(checkpoint, in_place_ops_on_region_tensors_are_replayed) {
  const int64_t n = 3;
  tsr_tensor *w, *x, *m, *y, *total, *g;
  TSR_ASSERT_OK(tsr_full(1, &n, 1.5, TSR_FLOAT64, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_arange(1, 4, 1, TSR_FLOAT64, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_add_scalar(x, 1.0, &m)); /* made here: m = x + 1 */
  TSR_ASSERT_OK(tsr_mul_scalar_(m, 10.0));   /* m = 10 (x + 1), replayed */
  TSR_ASSERT_OK(tsr_mul(w, m, &y));          /* saves m */
  TSR_ASSERT_OK(tsr_checkpoint_end());
  tsr_tensor_release(m);
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  TSR_ASSERT_OK(tsr_grad(w, &g));
  for (int64_t i = 0; i < n; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(g, 1, &i, &v));
    cr_assert_float_eq(v, 10.0 * (double)(i + 2), 1e-12);
  }
  /* x, from outside, was only read: never written by the replay. */
  for (int64_t i = 0; i < n; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(x, 1, &i, &v));
    cr_assert_float_eq(v, (double)(i + 1), 0);
  }
  tsr_tensor_release(g);
  tsr_tensor_release(total);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
}

Test(checkpoint, input_modified_in_place_after_the_region_is_pytorchs_version_error) {
  const int64_t n = 3;
  tsr_tensor *w, *x, *a, *y, *total, *g;
  TSR_ASSERT_OK(tsr_full(1, &n, 2.0, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_mul(w, x, &a));
  TSR_ASSERT_OK(tsr_mul(a, a, &y));
  TSR_ASSERT_OK(tsr_checkpoint_end());
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_mul_scalar_(x, 2.0));
  TSR_ASSERT_FAILS(tsr_backward(total, NULL, false), TSR_ERR_AUTOGRAD,
                   "modified by an inplace operation: [float32 [3]] is at version 1; expected version 0");
  TSR_ASSERT_OK(tsr_grad(w, &g));
  cr_assert_null(g, "a failed backward must leave .grad unset");
  tsr_tensor_release(total);
  tsr_tensor_release(y);
  tsr_tensor_release(a);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
}

Test(checkpoint, misuse_is_refused_and_changes_nothing) {
  TSR_ASSERT_FAILS(tsr_checkpoint_end(), TSR_ERR_AUTOGRAD, "no checkpoint region is open");
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  cr_assert_eq(tsr_checkpoint_depth(), 2);
  TSR_ASSERT_OK(tsr_checkpoint_end());
  TSR_ASSERT_OK(tsr_checkpoint_end());
  TSR_ASSERT_FAILS(tsr_checkpoint_end(), TSR_ERR_AUTOGRAD, "no checkpoint region is open");
  cr_assert_eq(tsr_checkpoint_depth(), 0);

  /* backward with a region open: refused, nothing written, region intact */
  const int64_t n = 2;
  tsr_tensor *w, *y, *total, *g;
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_mul(w, w, &y));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &total));
  TSR_ASSERT_FAILS(tsr_backward(total, NULL, false), TSR_ERR_AUTOGRAD, "open checkpoint region");
  tsr_tensor* gs[1] = {SENTINEL};
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &total, NULL, 1, &w, false, false, false, gs), TSR_ERR_AUTOGRAD,
                   "open checkpoint region");
  cr_assert_eq(gs[0], SENTINEL);
  cr_assert_eq(tsr_checkpoint_depth(), 1);
  TSR_ASSERT_OK(tsr_checkpoint_end());
  TSR_ASSERT_OK(tsr_grad(w, &g));
  cr_assert_null(g);
  TSR_ASSERT_OK(tsr_backward(total, NULL, false)); /* works once the region is closed */
  TSR_ASSERT_OK(tsr_grad(w, &g));
  cr_assert_not_null(g);
  tsr_tensor_release(g);
  tsr_tensor_release(total);
  tsr_tensor_release(y);
  tsr_tensor_release(w);
}

Test(checkpoint, options_struct_size_and_keep_ops_are_checked) {
  tsr_checkpoint_options o = TSR_CHECKPOINT_OPTIONS_INIT;
  o.struct_size = 0;
  TSR_ASSERT_FAILS(tsr_checkpoint_begin(&o), TSR_ERR_INVALID_ARGUMENT, "struct_size is 0");
  o.struct_size = sizeof(size_t); /* not even the first field */
  TSR_ASSERT_FAILS(tsr_checkpoint_begin(&o), TSR_ERR_INVALID_ARGUMENT, "expected at least");
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  o.struct_size = sizeof o;
  o.keep_ops = "matmul,no_such_op";
  TSR_ASSERT_FAILS(tsr_checkpoint_begin(&o), TSR_ERR_INVALID_ARGUMENT, "'no_such_op', which is not an op name");
  o.keep_ops = "matmul,,add";
  TSR_ASSERT_FAILS(tsr_checkpoint_begin(&o), TSR_ERR_INVALID_ARGUMENT, "'', which is not an op name");
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  /* An older caller: the struct up to early_stop, without keep_ops (whose
   * bytes here are garbage that must not be read). */
  o.keep_ops = (const char*)(uintptr_t)0x1;
  o.struct_size = offsetof(tsr_checkpoint_options, keep_ops);
  TSR_ASSERT_OK(tsr_checkpoint_begin(&o));
  TSR_ASSERT_OK(tsr_checkpoint_end());
  /* The first version's smallest struct: preserve_rng_state only. */
  o.struct_size = offsetof(tsr_checkpoint_options, preserve_rng_state) + sizeof(bool);
  TSR_ASSERT_OK(tsr_checkpoint_begin(&o));
  TSR_ASSERT_OK(tsr_checkpoint_end());
}

Test(checkpoint, retain_graph_replays_once_and_a_second_backward_without_it_fails) {
  const int64_t n = 3;
  tsr_tensor *w, *a, *y, *total, *g;
  TSR_ASSERT_OK(tsr_arange(1, 4, 1, TSR_FLOAT64, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_exp(w, &a));
  TSR_ASSERT_OK(tsr_mul(a, a, &y));
  TSR_ASSERT_OK(tsr_checkpoint_end());
  tsr_tensor_release(a);
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &total));
  TSR_ASSERT_OK(tsr_backward(total, NULL, true));
  TSR_ASSERT_OK(tsr_backward(total, NULL, false));
  TSR_ASSERT_FAILS(tsr_backward(total, NULL, false), TSR_ERR_AUTOGRAD, "backward through the graph a second time");
  TSR_ASSERT_OK(tsr_grad(w, &g));
  for (int64_t i = 0; i < n; ++i) { /* twice d/dw exp(w)^2 = 2 * 2 exp(2w) */
    double v;
    TSR_ASSERT_OK(tsr_get_double(g, 1, &i, &v));
    cr_assert_float_eq(v, 4.0 * exp(2.0 * (double)(i + 1)), 1e-9 * v);
  }
  tsr_tensor_release(g);
  tsr_tensor_release(total);
  tsr_tensor_release(y);
  tsr_tensor_release(w);
}

/* ---- the callback form --------------------------------------------------- */

typedef struct {
  const model* m;
  int fail_at;      /* block index whose call fails (-1: none) */
  int extra_begin;  /* leave a region open */
  int64_t report;   /* outputs reported (-1: the real count) */
} blocks_ctx;

static tsr_status run_blocks(void* ctx, int64_t n_inputs, tsr_tensor* const* inputs, int64_t max_outputs,
                             int64_t* n_outputs, tsr_tensor** outputs) {
  blocks_ctx* c = ctx;
  cr_assert_eq(n_inputs, 1);
  cr_assert_eq(tsr_checkpoint_depth(), 1);
  tsr_tensor* y = block_forward(c->m, &c->m->blocks[0], inputs[0]);
  if (c->fail_at == 0) {
    tsr_tensor_release(y);
    const int64_t bad[] = {5};
    tsr_tensor* r;
    return tsr_view(inputs[0], 1, bad, &r); /* fails: the callback's status and message */
  }
  if (c->extra_begin) tsr_checkpoint_begin(NULL);
  if (max_outputs < 1) {
    tsr_tensor_release(y);
    return TSR_ERR_INVALID_ARGUMENT;
  }
  outputs[0] = y;
  *n_outputs = c->report >= 0 ? c->report : 1;
  return TSR_OK;
}

Test(checkpoint, callback_form_matches_regions_and_cleans_up_on_failure) {
  model m;
  model_init(&m, 1, 0.2);
  tsr_tensor* x = input(true);
  step_result plain = train_step(&m, x, PLAIN);

  blocks_ctx c = {&m, -1, 0, -1};
  TSR_ASSERT_OK(tsr_generator_set_state(m.dropout_gen, 99, 0));
  tsr_tensor* outs[2] = {SENTINEL, SENTINEL};
  int64_t n_out = -7;
  TSR_ASSERT_OK(tsr_checkpoint(run_blocks, &c, 1, &x, NULL, 2, &n_out, outs));
  cr_assert_eq(n_out, 1);
  cr_assert_eq(outs[1], SENTINEL);
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  tsr_tensor* loss;
  TSR_ASSERT_OK(tsr_mean(outs[0], 0, NULL, false, &loss));
  tsr_tensor_release(outs[0]);
  TSR_ASSERT_OK(tsr_backward(loss, NULL, false));
  tsr_tensor_release(loss);
  step_result cb = {NULL, 0, 0};
  cb.grads = collect_grads(&m, &cb.n);
  assert_same_grads(plain, cb, "tsr_checkpoint callback");

  /* Failures: outputs untouched, regions closed, allocations released. */
  int64_t before;
  TSR_ASSERT_OK(tsr_memory_allocated(TSR_CPU, &before));
  tsr_tensor* keep[1] = {SENTINEL};
  n_out = -7;
  c.fail_at = 0;
  TSR_ASSERT_FAILS(tsr_checkpoint(run_blocks, &c, 1, &x, NULL, 1, &n_out, keep), TSR_ERR_SHAPE_MISMATCH,
                   "is invalid for input of size");
  c.fail_at = -1;
  c.extra_begin = 1;
  TSR_ASSERT_FAILS(tsr_checkpoint(run_blocks, &c, 1, &x, NULL, 1, &n_out, keep), TSR_ERR_AUTOGRAD,
                   "left checkpoint regions open");
  c.extra_begin = 0;
  c.report = 3;
  TSR_ASSERT_FAILS(tsr_checkpoint(run_blocks, &c, 1, &x, NULL, 1, &n_out, keep), TSR_ERR_INVALID_ARGUMENT,
                   "reported 3 outputs; max_outputs is 1");
  cr_assert_eq(keep[0], SENTINEL);
  cr_assert_eq(n_out, -7);
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  int64_t after;
  TSR_ASSERT_OK(tsr_memory_allocated(TSR_CPU, &after));
  cr_assert_eq(after, before, "a failed tsr_checkpoint leaked %lld bytes", (long long)(after - before));
  TSR_ASSERT_FAILS(tsr_checkpoint(NULL, &c, 1, &x, NULL, 1, &n_out, keep), TSR_ERR_INVALID_ARGUMENT, "fn is NULL");
  TSR_ASSERT_FAILS(tsr_checkpoint(run_blocks, &c, -1, &x, NULL, 1, &n_out, keep), TSR_ERR_INVALID_ARGUMENT,
                   "must be >= 0");
  cr_assert_eq(tsr_checkpoint_depth(), 0);

  free(plain.grads);
  free(cb.grads);
  tsr_tensor_release(x);
  model_free(&m);
}

/* ---- checkpoint_sequential ---------------------------------------------- */

typedef struct {
  const model* m;
  int index;
} layer_ctx;

static tsr_status layer(void* ctx, const tsr_tensor* in, tsr_tensor** out) {
  layer_ctx* c = ctx;
  *out = block_forward(c->m, &c->m->blocks[c->index], in);
  return TSR_OK;
}

static tsr_status failing_layer(void* ctx, const tsr_tensor* in, tsr_tensor** out) {
  const int64_t bad[] = {-3};
  return tsr_view(in, 1, bad, out);
}

Test(checkpoint, sequential_matches_the_plain_model) {
  enum { N = 8 };
  model m;
  model_init(&m, N, 0.1);
  tsr_tensor* x = input(false);
  step_result plain = train_step(&m, x, PLAIN);
  tsr_layer_fn fns[N];
  layer_ctx ctxs[N];
  void* ctx_ptrs[N];
  for (int i = 0; i < N; ++i) {
    fns[i] = layer;
    ctxs[i] = (layer_ctx){&m, i};
    ctx_ptrs[i] = &ctxs[i];
  }
  for (int segments = 1; segments <= 3; ++segments) {
    TSR_ASSERT_OK(tsr_generator_set_state(m.dropout_gen, 99, 0));
    tsr_tensor *y, *loss;
    TSR_ASSERT_OK(tsr_checkpoint_sequential(N, fns, ctx_ptrs, segments, x, NULL, &y));
    cr_assert_eq(tsr_checkpoint_depth(), 0);
    TSR_ASSERT_OK(tsr_mean(y, 0, NULL, false, &loss));
    TSR_ASSERT_OK(tsr_backward(loss, NULL, false));
    tsr_tensor_release(loss);
    tsr_tensor_release(y);
    step_result r = {NULL, 0, 0};
    r.grads = collect_grads(&m, &r.n);
    assert_same_grads(plain, r, "checkpoint_sequential");
    free(r.grads);
  }
  tsr_tensor* y = SENTINEL;
  TSR_ASSERT_FAILS(tsr_checkpoint_sequential(N, fns, ctx_ptrs, 0, x, NULL, &y), TSR_ERR_INVALID_ARGUMENT,
                   "need 1 <= segments <= n_layers");
  TSR_ASSERT_FAILS(tsr_checkpoint_sequential(N, fns, ctx_ptrs, N + 1, x, NULL, &y), TSR_ERR_INVALID_ARGUMENT,
                   "need 1 <= segments <= n_layers");
  fns[2] = failing_layer;
  TSR_ASSERT_FAILS(tsr_checkpoint_sequential(N, fns, ctx_ptrs, 4, x, NULL, &y), TSR_ERR_INVALID_ARGUMENT,
                   "invalid shape dimension -3");
  fns[2] = NULL;
  TSR_ASSERT_FAILS(tsr_checkpoint_sequential(N, fns, ctx_ptrs, 4, x, NULL, &y), TSR_ERR_INVALID_ARGUMENT,
                   "layers[2] is NULL");
  cr_assert_eq(y, SENTINEL);
  cr_assert_eq(tsr_checkpoint_depth(), 0);
  free(plain.grads);
  tsr_tensor_release(x);
  model_free(&m);
}
