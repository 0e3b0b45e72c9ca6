/* Post-accumulate-grad hooks (torch 2.1's
 * Tensor.register_post_accumulate_grad_hook) and end-of-backward callbacks
 * (torch's Variable._execution_engine.queue_callback), the pieces
 * DistributedDataParallel is built on, through the C API. */
#include "helpers.h"

static tsr_tensor* vec3(double a, double b, double c, bool requires_grad) {
  const double v[] = {a, b, c};
  const int64_t n = 3;
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 1, &n, TSR_FLOAT64, &t));
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

static void read3(const tsr_tensor* t, double v[3]) { TSR_ASSERT_OK(tsr_copy_to_buffer(t, v, 3 * sizeof(double), NULL)); }

static void expect_grad3(const tsr_tensor* t, double a, double b, double c) {
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(t, &g));
  cr_assert_not_null(g);
  double v[3];
  read3(g, v);
  cr_expect(v[0] == a && v[1] == b && v[2] == c, "grad [%g, %g, %g], expected [%g, %g, %g]", v[0], v[1], v[2], a,
            b, c);
  tsr_tensor_release(g);
}

/* sum(x * [1, 2, 3] + 2 * x + z * z): x is used twice (its gradient
 * [3, 4, 5] arrives in two parts), z once (2 z). */
static tsr_tensor* loss_of(tsr_tensor* x, tsr_tensor* z) {
  tsr_tensor *w = vec3(1, 2, 3, false), *a, *b, *ab, *zz, *all, *s;
  TSR_ASSERT_OK(tsr_mul(x, w, &a));
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2.0, &b));
  TSR_ASSERT_OK(tsr_add(a, b, &ab));
  if (z) {
    TSR_ASSERT_OK(tsr_mul(z, z, &zz));
    TSR_ASSERT_OK(tsr_add(ab, zz, &all));
    tsr_tensor_release(zz);
  } else {
    all = ab;
    tsr_tensor_retain(all);
  }
  TSR_ASSERT_OK(tsr_sum(all, 0, NULL, false, &s));
  tsr_tensor* tmp[] = {w, a, b, ab, all};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(tmp[i]);
  return s;
}

/* What the hooks and callbacks below saw, in order: one letter per call. */
static char g_trace[64];
static int g_trace_len;
static void trace(char c) {
  if (g_trace_len < 63) g_trace[g_trace_len++] = c;
  g_trace[g_trace_len] = 0;
}
static void trace_reset(void) { g_trace_len = 0, g_trace[0] = 0; }

typedef struct probe probe;
typedef tsr_status (*action_fn)(probe*, tsr_tensor* param);
struct probe {
  char tag;           /* its letter in g_trace */
  int calls, destroyed;
  double grad[3];     /* param.grad when the hook ran */
  tsr_tensor* kept;   /* param, retained by the hook */
  tsr_tensor* other;  /* another leaf: was its .grad there yet? */
  int other_defined;
  action_fn action;   /* more to do in the hook (or NULL) */
};

static void probe_destroy(void* ctx) { ((probe*)ctx)->destroyed++; }

/* A post-accumulate-grad hook: records the call and param's .grad. */
static tsr_status post_hook(void* ctx, tsr_tensor* param) {
  probe* p = ctx;
  p->calls++;
  trace(p->tag);
  cr_expect(tsr_is_leaf(param) && tsr_requires_grad(param), "the hook gets the leaf itself");
  cr_expect(!tsr_is_grad_enabled(), "hooks run with grad mode off");
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(param, &g));
  cr_assert_not_null(g, "the gradient is accumulated before the hook runs");
  read3(g, p->grad);
  tsr_tensor_release(g);
  if (p->other) {
    TSR_ASSERT_OK(tsr_grad(p->other, &g));
    p->other_defined = g != NULL;
    tsr_tensor_release(g);
  }
  if (!p->kept) {
    tsr_tensor_retain(param); /* a hook may keep param */
    p->kept = param;
  }
  return p->action ? p->action(p, param) : TSR_OK;
}

static tsr_status fail_hook(probe* p, tsr_tensor* param) {
  (void)p;
  tsr_tensor* bad;
  return tsr_view(param, 1, (const int64_t[]){7}, &bad); /* fails with tessera's message */
}

static void drop_kept(probe* p) {
  tsr_tensor_release(p->kept);
  p->kept = NULL;
}

Test(post_accumulate_grad_hook, runs_once_per_backward_in_order_after_accumulation) {
  tsr_tensor *x = vec3(1, 1, 1, true), *z = vec3(1, 2, 3, true);
  tsr_tensor* start = vec3(100, 100, 100, false);
  TSR_ASSERT_OK(tsr_set_grad(x, start)); /* accumulation adds to an existing .grad */
  probe first = {.tag = 'a'}, second = {.tag = 'b'};
  int64_t h1 = -1, h2 = -1;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &first, probe_destroy, &h1));
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &second, probe_destroy, &h2));
  cr_expect_neq(h1, h2);
  trace_reset();
  tsr_tensor* s = loss_of(x, z);
  TSR_ASSERT_OK(tsr_backward(s, NULL, true));
  cr_expect_str_eq(g_trace, "ab", "once per backward, in registration order");
  cr_expect(first.grad[0] == 103 && first.grad[1] == 104 && first.grad[2] == 105,
            "both parts summed and added to .grad before the hook: [%g, %g, %g]", first.grad[0], first.grad[1],
            first.grad[2]);
  cr_expect(second.grad[0] == 103 && second.grad[2] == 105);
  cr_expect_eq(tsr_tensor_data_ptr(first.kept), tsr_tensor_data_ptr(x), "param is x (another handle to it)");
  double v[3];
  read3(start, v); /* accumulated in place into the .grad set above */
  cr_expect(v[0] == 103 && v[1] == 104 && v[2] == 105);
  /* retain_graph: a second backward runs the hooks again on the new sum */
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  cr_expect_str_eq(g_trace, "abab");
  cr_expect(first.grad[0] == 106 && first.grad[1] == 108 && first.grad[2] == 110);
  cr_expect_eq(first.destroyed + second.destroyed, 0);
  drop_kept(&first);
  drop_kept(&second);
  tsr_tensor_release(s);
  tsr_tensor_release(start);
  tsr_tensor_release(z);
  tsr_tensor_release(x);
  cr_expect(first.destroyed == 1 && second.destroyed == 1, "freeing the leaf frees its hooks' contexts once");
}

/* torch: x.register_hook(lambda g: g * 10) runs first; the post hook sees
 * the replaced gradient in .grad. */
static tsr_status times_ten(void* ctx, const tsr_tensor* grad, tsr_tensor** replacement) {
  (void)ctx;
  trace('g');
  return tsr_mul_scalar(grad, 10.0, replacement);
}

Test(post_accumulate_grad_hook, runs_after_register_hook_hooks_and_until_removed) {
  tsr_tensor* x = vec3(1, 1, 1, true);
  probe p = {.tag = 'p'};
  int64_t post = -1, pre = -1;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &p, probe_destroy, &post));
  TSR_ASSERT_OK(tsr_register_hook(x, times_ten, NULL, NULL, &pre));
  trace_reset();
  tsr_tensor* s = loss_of(x, NULL);
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  tsr_tensor_release(s);
  cr_expect_str_eq(g_trace, "gp");
  cr_expect(p.grad[0] == 30 && p.grad[1] == 40 && p.grad[2] == 50);
  /* One handle space: tsr_remove_hook removes either kind. */
  TSR_ASSERT_OK(tsr_remove_hook(x, post));
  cr_expect_eq(p.destroyed, 1, "removing a hook frees its context");
  TSR_ASSERT_FAILS(tsr_remove_hook(x, post), TSR_ERR_INVALID_ARGUMENT, "has no hook");
  TSR_ASSERT_OK(tsr_remove_hook(x, pre));
  s = loss_of(x, NULL);
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  tsr_tensor_release(s);
  cr_expect_str_eq(g_trace, "gp", "neither hook runs once removed");
  expect_grad3(x, 33, 44, 55);
  cr_expect_eq(p.calls, 1);
  cr_expect_eq(p.destroyed, 1);
  drop_kept(&p);
  tsr_tensor_release(x);
}

Test(post_accumulate_grad_hook, refused_on_non_leaves_and_tensors_without_grad) {
  tsr_tensor *c = vec3(1, 2, 3, false), *x = vec3(1, 2, 3, true), *y;
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2.0, &y));
  probe p = {.tag = 'p'};
  int64_t h = -5;
  TSR_ASSERT_FAILS(tsr_register_post_accumulate_grad_hook(c, post_hook, &p, probe_destroy, &h), TSR_ERR_AUTOGRAD,
                   "cannot register a hook on a tensor that doesn't require gradient");
  cr_expect_eq(p.destroyed, 1, "a refused hook's context is freed");
  TSR_ASSERT_FAILS(tsr_register_post_accumulate_grad_hook(y, post_hook, &p, probe_destroy, &h), TSR_ERR_AUTOGRAD,
                   "post accumulate grad hooks cannot be registered on non-leaf tensors");
  cr_expect_eq(p.destroyed, 2);
  TSR_ASSERT_FAILS(tsr_register_post_accumulate_grad_hook(x, NULL, &p, probe_destroy, &h), TSR_ERR_INVALID_ARGUMENT,
                   "fn is NULL");
  TSR_ASSERT_FAILS(tsr_register_post_accumulate_grad_hook(x, post_hook, &p, probe_destroy, NULL),
                   TSR_ERR_INVALID_ARGUMENT, "handle is NULL");
  TSR_ASSERT_FAILS(tsr_register_post_accumulate_grad_hook(NULL, post_hook, &p, probe_destroy, &h),
                   TSR_ERR_INVALID_ARGUMENT, "is NULL");
  cr_expect_eq(p.destroyed, 2, "argument errors leave ctx to the caller");
  cr_expect_eq(h, -5, "handle untouched on failure");
  tsr_tensor_release(y);
  tsr_tensor_release(c);
  tsr_tensor_release(x);
  cr_expect_eq(p.calls, 0);
}

Test(post_accumulate_grad_hook, a_failing_hook_fails_backward_with_its_status) {
  tsr_tensor* x = vec3(0, 0, 0, true);
  probe bad = {.tag = 'f', .action = fail_hook}, later = {.tag = 'l'};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &bad, NULL, &h));
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &later, NULL, &h));
  trace_reset();
  tsr_tensor* s = loss_of(x, NULL);
  TSR_ASSERT_FAILS(tsr_backward(s, NULL, false), TSR_ERR_SHAPE_MISMATCH, "is invalid for input of size 3");
  cr_expect_str_eq(g_trace, "f", "the hooks after the failing one do not run");
  expect_grad3(x, 3, 4, 5); /* accumulated before the hook failed, as in torch */
  drop_kept(&bad);
  tsr_tensor_release(s);
  tsr_tensor_release(x);
}

Test(post_accumulate_grad_hook, autograd_grad_accumulates_nothing_and_runs_none) {
  tsr_tensor* x = vec3(1, 1, 1, true);
  probe p = {.tag = 'p'};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &p, NULL, &h));
  tsr_tensor *s = loss_of(x, NULL), *g[1];
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s, NULL, 1, &x, false, false, false, g));
  cr_expect_eq(p.calls, 0);
  expect_no_grad(x);
  tsr_tensor_release(g[0]);
  tsr_tensor_release(s);
  tsr_tensor_release(x);
}

/* ---- end-of-backward callbacks ------------------------------------------ */

typedef struct {
  char tag;
  int calls, destroyed;
  tsr_tensor* x;    /* read x.grad when run */
  double grad[3];
  bool fail;        /* return a failure */
  bool queue_more;  /* queue `more` from the callback */
  void* more;
} callback_state;

static void callback_destroy(void* ctx) { ((callback_state*)ctx)->destroyed++; }

static tsr_status final_callback(void* ctx) {
  callback_state* c = ctx;
  c->calls++;
  trace(c->tag);
  if (c->x) {
    tsr_tensor* g;
    TSR_ASSERT_OK(tsr_grad(c->x, &g));
    cr_assert_not_null(g);
    read3(g, c->grad);
    tsr_tensor_release(g);
  }
  if (c->queue_more) TSR_ASSERT_OK(tsr_queue_backward_callback(final_callback, c->more, callback_destroy));
  if (c->fail) {
    tsr_tensor* bad;
    return tsr_view(c->x, 1, (const int64_t[]){4}, &bad);
  }
  return TSR_OK;
}

/* A post hook's action: queues g_to_queue[0..g_n_to_queue) (once). */
static callback_state* g_to_queue[4];
static int g_n_to_queue;
static tsr_status queue_callbacks(probe* p, tsr_tensor* param) {
  (void)p, (void)param;
  for (int i = 0; i < g_n_to_queue; ++i)
    TSR_ASSERT_OK(tsr_queue_backward_callback(final_callback, g_to_queue[i], callback_destroy));
  g_n_to_queue = 0;
  return TSR_OK;
}

Test(backward_callback, runs_once_after_every_leaf_is_accumulated_in_queue_order) {
  tsr_tensor *x = vec3(1, 1, 1, true), *z = vec3(1, 2, 3, true);
  /* The first post hook to run queues the callbacks; the other leaf's
   * gradient is not there yet, and is when they run. */
  probe px = {.tag = 'x', .other = z, .action = queue_callbacks};
  probe pz = {.tag = 'z', .other = x, .action = queue_callbacks};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &px, NULL, &h));
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(z, post_hook, &pz, NULL, &h));
  callback_state third = {.tag = '3', .x = z};
  callback_state first = {.tag = '1', .x = x, .queue_more = true, .more = &third};
  callback_state second = {.tag = '2', .x = z};
  g_to_queue[0] = &first;
  g_to_queue[1] = &second;
  g_n_to_queue = 2;
  trace_reset();
  tsr_tensor* s = loss_of(x, z);
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  cr_expect(strcmp(g_trace, "xz123") == 0 || strcmp(g_trace, "zx123") == 0,
            "callbacks after the pass, in queue order, one queued by a callback last: %s", g_trace);
  cr_expect_eq(px.other_defined + pz.other_defined, 1, "queued while the other leaf was still to come");
  cr_expect(first.grad[0] == 3 && first.grad[1] == 4 && first.grad[2] == 5);
  cr_expect(second.grad[0] == 2 && second.grad[1] == 4 && second.grad[2] == 6);
  cr_expect(third.grad[0] == 2 && third.calls == 1);
  cr_expect(first.calls == 1 && second.calls == 1);
  cr_expect(first.destroyed == 1 && second.destroyed == 1 && third.destroyed == 1, "destroyed once each, after running");
  /* The pass is over: queueing now is refused. */
  callback_state late = {.tag = 'L'};
  TSR_ASSERT_FAILS(tsr_queue_backward_callback(final_callback, &late, callback_destroy), TSR_ERR_AUTOGRAD,
                   "Final callbacks can only be installed during backward pass.");
  cr_expect(late.calls == 0 && late.destroyed == 1, "a refused callback is destroyed, not run");
  TSR_ASSERT_FAILS(tsr_queue_backward_callback(NULL, &late, callback_destroy), TSR_ERR_INVALID_ARGUMENT, "fn is NULL");
  cr_expect_eq(late.destroyed, 1);
  drop_kept(&px);
  drop_kept(&pz);
  tsr_tensor_release(s);
  tsr_tensor_release(z);
  tsr_tensor_release(x);
}

Test(backward_callback, a_failing_callback_fails_backward_and_the_rest_are_dropped) {
  tsr_tensor* x = vec3(1, 1, 1, true);
  probe p = {.tag = 'p', .action = queue_callbacks};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &p, NULL, &h));
  callback_state bad = {.tag = 'B', .x = x, .fail = true}, after = {.tag = 'A'};
  g_to_queue[0] = &bad;
  g_to_queue[1] = &after;
  g_n_to_queue = 2;
  trace_reset();
  tsr_tensor* s = loss_of(x, NULL);
  TSR_ASSERT_FAILS(tsr_backward(s, NULL, false), TSR_ERR_SHAPE_MISMATCH, "is invalid for input of size 3");
  cr_expect_str_eq(g_trace, "pB");
  cr_expect(bad.calls == 1 && bad.destroyed == 1);
  cr_expect(after.calls == 0 && after.destroyed == 1, "dropped: destroyed without running");
  expect_grad3(x, 3, 4, 5);
  drop_kept(&p);
  tsr_tensor_release(s);
  tsr_tensor_release(x);
}

Test(backward_callback, dropped_when_backward_fails_before_they_run) {
  tsr_tensor *x = vec3(1, 1, 1, true), *z = vec3(1, 2, 3, true);
  /* A pass that succeeds runs what its hooks queue... */
  probe px = {.tag = 'x', .action = queue_callbacks}, pz = {.tag = 'z', .action = queue_callbacks};
  probe fx = {.tag = 'f', .action = fail_hook}, fz = {.tag = 'f', .action = fail_hook};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &px, NULL, &h));
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(z, post_hook, &pz, NULL, &h));
  callback_state cb = {.tag = 'C'};
  g_to_queue[0] = &cb;
  g_n_to_queue = 1;
  trace_reset();
  tsr_tensor* s = loss_of(x, z);
  TSR_ASSERT_OK(tsr_backward(s, NULL, true));
  cr_expect_eq(cb.calls, 1);
  /* ... one whose hook fails after queueing runs none of it. */
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &fx, NULL, &h));
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(z, post_hook, &fz, NULL, &h));
  callback_state dropped = {.tag = 'D'};
  g_to_queue[0] = &dropped;
  g_n_to_queue = 1;
  TSR_ASSERT_FAILS(tsr_backward(s, NULL, false), TSR_ERR_SHAPE_MISMATCH, "is invalid for input of size 3");
  cr_expect(dropped.calls == 0 && dropped.destroyed == 1, "queued, then the pass failed: destroyed, not run");
  drop_kept(&px);
  drop_kept(&pz);
  drop_kept(&fx);
  drop_kept(&fz);
  tsr_tensor_release(s);
  tsr_tensor_release(z);
  tsr_tensor_release(x);
}

/* autograd.grad is a backward pass too (torch runs its final callbacks),
 * though it accumulates nothing: a register_hook hook queues here. */
static callback_state* g_from_grad_hook;
static tsr_status queue_from_grad_hook(void* ctx, const tsr_tensor* grad, tsr_tensor** replacement) {
  (void)ctx, (void)grad, (void)replacement;
  return tsr_queue_backward_callback(final_callback, g_from_grad_hook, callback_destroy);
}

Test(backward_callback, queued_during_autograd_grad_runs_at_its_end) {
  tsr_tensor* x = vec3(1, 1, 1, true);
  int64_t h;
  TSR_ASSERT_OK(tsr_register_hook(x, queue_from_grad_hook, NULL, NULL, &h));
  callback_state cb = {.tag = 'G'};
  g_from_grad_hook = &cb;
  tsr_tensor *s = loss_of(x, NULL), *g[1];
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s, NULL, 1, &x, false, false, false, g));
  cr_expect(cb.calls == 1 && cb.destroyed == 1);
  tsr_tensor_release(g[0]);
  tsr_tensor_release(s);
  tsr_tensor_release(x);
}

/* A backward started inside a hook is a pass of its own: what is queued
 * during it runs when it ends, before the outer pass goes on. */
static tsr_tensor* g_inner_leaf;
static tsr_status inner_backward(probe* p, tsr_tensor* param) {
  (void)p, (void)param;
  bool prev = tsr_set_grad_enabled(true); /* off in hooks, as in torch: torch.enable_grad() */
  tsr_tensor* s = loss_of(g_inner_leaf, NULL);
  tsr_set_grad_enabled(prev);
  tsr_status st = tsr_backward(s, NULL, false);
  tsr_tensor_release(s);
  trace('/');
  return st;
}

Test(backward_callback, a_backward_inside_a_hook_runs_its_own_callbacks) {
  tsr_tensor *outer = vec3(1, 1, 1, true), *inner = vec3(1, 1, 1, true);
  g_inner_leaf = inner;
  probe po = {.tag = 'o', .action = inner_backward}, pi = {.tag = 'i', .action = queue_callbacks};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(outer, post_hook, &po, NULL, &h));
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(inner, post_hook, &pi, NULL, &h));
  callback_state cb = {.tag = 'c'};
  g_to_queue[0] = &cb;
  g_n_to_queue = 1;
  trace_reset();
  tsr_tensor* s = loss_of(outer, NULL);
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  cr_expect_str_eq(g_trace, "oic/");
  cr_expect_eq(cb.destroyed, 1);
  expect_grad3(inner, 3, 4, 5);
  drop_kept(&po);
  drop_kept(&pi);
  tsr_tensor_release(s);
  tsr_tensor_release(inner);
  tsr_tensor_release(outer);
}

/* Under a checkpoint region the hooks see the same gradients: the
 * recomputation during backward runs no hook, and the leaf used inside and
 * outside the region is accumulated (and hooked) once. */
Test(backward_callback, under_checkpointing) {
  tsr_tensor *x = vec3(1, 2, 3, true), *y, *sq, *lin, *sum, *s;
  probe p = {.tag = 'p', .action = queue_callbacks};
  int64_t h;
  TSR_ASSERT_OK(tsr_register_post_accumulate_grad_hook(x, post_hook, &p, NULL, &h));
  TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_mul_scalar(x, 1.0, &y));
  TSR_ASSERT_OK(tsr_mul(y, y, &sq)); /* saves y: dropped, recomputed in backward */
  TSR_ASSERT_OK(tsr_checkpoint_end());
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_mul_scalar(x, 3.0, &lin));
  TSR_ASSERT_OK(tsr_add(sq, lin, &sum));
  TSR_ASSERT_OK(tsr_sum(sum, 0, NULL, false, &s));
  callback_state cb = {.tag = 'c', .x = x};
  g_to_queue[0] = &cb;
  g_n_to_queue = 1;
  trace_reset();
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  cr_expect_str_eq(g_trace, "pc");
  cr_expect(p.grad[0] == 5 && p.grad[1] == 7 && p.grad[2] == 9, "2 x + 3: [%g, %g, %g]", p.grad[0], p.grad[1],
            p.grad[2]);
  cr_expect(cb.grad[0] == 5 && cb.grad[2] == 9 && cb.destroyed == 1);
  drop_kept(&p);
  tsr_tensor* all[] = {sq, lin, sum, s, x};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}
