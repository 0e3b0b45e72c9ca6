/* Custom differentiable functions (function.h): a swish over raw memory
 * with its hand-written backward against the composed ops and finite
 * differences (float64); several outputs and NULL gradients; mark_dirty
 * (version bump, leaf refused), mark_non_differentiable, materialize_grads
 * off; a saved tensor modified in place; errors from each callback with
 * their status and prefixed message and user_data released exactly once;
 * replay inside a checkpoint region bit-identical to running without it;
 * nested custom functions; double backward; the profiler's rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

static tsr_tensor* values64(int64_t n, const double* v) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &t));
  return t;
}

static double at(const tsr_tensor* t, int64_t i) {
  double v;
  TSR_ASSERT_OK(tsr_get_double(t, 1, &i, &v));
  return v;
}

/* ---- swish: y = x * sigmoid(x) over float64 memory -------------------------- */
typedef struct {
  int forward_calls;
  int backward_calls;
  int released;
  bool fail_forward, fail_backward;
} counters;

static void release_counters(void* p) { ((counters*)p)->released++; }

static tsr_status swish_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                int64_t* n_out, tsr_tensor** out, void* user) {
  counters* c = user;
  c->forward_calls++;
  if (c->fail_forward) {
    tsr_set_last_error(TSR_ERR_SHAPE_MISMATCH, "swish wants a vector");
    return TSR_ERR_SHAPE_MISMATCH;
  }
  (void)n_in;
  (void)max_out;
  tsr_tensor* x = NULL;
  tsr_status s = tsr_contiguous(in[0], TSR_CONTIGUOUS_FORMAT, &x);
  if (s != TSR_OK) return s;
  const int64_t n = tsr_tensor_numel(x);
  tsr_tensor* y = NULL;
  s = tsr_empty(1, &n, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &y);
  if (s != TSR_OK) {
    tsr_tensor_release(x);
    return s;
  }
  const double* xs = tsr_tensor_data_ptr(x);
  double* ys = tsr_tensor_data_ptr(y);
  for (int64_t i = 0; i < n; ++i) ys[i] = xs[i] / (1.0 + exp(-xs[i]));
  tsr_tensor_release(x);
  tsr_function_ctx_save_for_backward(ctx, 1, &in[0]);
  out[0] = y;
  *n_out = 1;
  return TSR_OK;
}

/* grad * (s + x * s * (1 - s)), s = sigmoid(x), written with tessera ops so
 * that it is itself differentiable. */
static tsr_status swish_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads, int64_t n_in,
                                 tsr_tensor** grad_in, void* user) {
  counters* c = user;
  c->backward_calls++;
  if (c->fail_backward) {
    tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "no gradient today");
    return TSR_ERR_INVALID_ARGUMENT;
  }
  (void)n_grads;
  (void)n_in;
  tsr_tensor* x = NULL;
  int64_t n = 0;
  tsr_status st = tsr_function_ctx_saved_tensors(ctx, 1, &n, &x);
  if (st != TSR_OK) return st;
  tsr_tensor *s = NULL, *one_minus = NULL, *xs = NULL, *t = NULL, *d = NULL, *g = NULL;
  tsr_sigmoid(x, &s);
  tsr_mul_scalar(s, -1.0, &t);
  tsr_add_scalar(t, 1.0, &one_minus);
  tsr_mul(x, s, &xs);
  tsr_tensor_release(t);
  tsr_mul(xs, one_minus, &t);
  tsr_add(s, t, &d);
  st = tsr_mul(grads[0], d, &g);
  tsr_tensor* all[] = {x, s, one_minus, xs, t, d};
  for (int i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  grad_in[0] = g;
  return st;
}

static tsr_function_def swish_def(counters* c) {
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = "Swish";
  def.forward = swish_forward;
  def.backward = swish_backward;
  def.user_data = c;
  def.release_user_data = release_counters;
  return def;
}

static tsr_tensor* apply1(const tsr_function_def* def, tsr_tensor* x) {
  tsr_tensor* y = NULL;
  int64_t n = 0;
  TSR_ASSERT_OK(tsr_function_apply(def, 1, &x, 1, &n, &y));
  cr_assert_eq(n, 1);
  return y;
}

/* d(sum(f(x)))/dx through backward. */
static tsr_tensor* grad_of_sum(tsr_tensor* y, tsr_tensor* x) {
  tsr_tensor *l, *g;
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_OK(tsr_backward(l, NULL, false));
  TSR_ASSERT_OK(tsr_grad(x, &g));
  TSR_ASSERT_OK(tsr_set_grad(x, NULL));
  tsr_tensor_release(l);
  return g;
}

static const double xs5[] = {-2.0, -0.5, 0.0, 0.75, 3.0};

Test(function, swish_matches_the_composed_ops_and_finite_differences) {
  counters c = {0};
  tsr_function_def def = swish_def(&c);
  tsr_tensor* x = values64(5, xs5);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_tensor* y = apply1(&def, x);
  cr_expect_str_eq(tsr_grad_fn_name(y), "SwishBackward");
  cr_expect(tsr_requires_grad(y));
  tsr_tensor* g = grad_of_sum(y, x);
  /* the composed version */
  tsr_tensor *s, *yc;
  TSR_ASSERT_OK(tsr_sigmoid(x, &s));
  TSR_ASSERT_OK(tsr_mul(x, s, &yc));
  tsr_tensor* gc = grad_of_sum(yc, x);
  for (int64_t i = 0; i < 5; ++i) {
    cr_expect(fabs(at(y, i) - at(yc, i)) < 1e-15, "value %ld", (long)i);
    cr_expect(fabs(at(g, i) - at(gc, i)) < 1e-14, "grad %ld: %g vs %g", (long)i, at(g, i), at(gc, i));
    /* central differences */
    const double h = 1e-6, v = xs5[i];
    const double fd = ((v + h) / (1 + exp(-(v + h))) - (v - h) / (1 + exp(-(v - h)))) / (2 * h);
    cr_expect(fabs(at(g, i) - fd) < 1e-8, "finite difference %ld", (long)i);
  }
  cr_expect_eq(c.forward_calls, 1);
  cr_expect_eq(c.backward_calls, 1);
  cr_expect_eq(c.released, 0); /* y's node still holds it */
  tsr_tensor* all[] = {y, g, s, yc, gc};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
  cr_expect_eq(c.released, 1);
  /* without grad: no node, user_data released at once */
  counters c2 = {0};
  tsr_function_def def2 = swish_def(&c2);
  tsr_tensor* x2 = values64(5, xs5);
  tsr_tensor* y2 = apply1(&def2, x2);
  cr_expect_null(tsr_grad_fn_name(y2));
  cr_expect_eq(c2.released, 1);
  tsr_tensor_release(y2);
  tsr_tensor_release(x2);
  tsr_tensor_release(x);
}

Test(function, double_backward_through_a_backward_of_ops) {
  counters c = {0};
  tsr_function_def def = swish_def(&c);
  tsr_tensor* x = values64(5, xs5);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_tensor *y = apply1(&def, x), *l, *g, *gg;
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_OK(tsr_autograd_grad(1, &l, NULL, 1, &x, true, true, false, &g));
  cr_expect(tsr_requires_grad(g)); /* create_graph: the backward's ops recorded history */
  tsr_tensor* l2;
  TSR_ASSERT_OK(tsr_sum(g, 0, NULL, false, &l2));
  TSR_ASSERT_OK(tsr_backward(l2, NULL, false));
  TSR_ASSERT_OK(tsr_grad(x, &gg));
  for (int64_t i = 0; i < 5; ++i) { /* swish'' = s(1-s)(2 + x(1-2s)) */
    const double v = xs5[i], s = 1 / (1 + exp(-v));
    cr_expect(fabs(at(gg, i) - s * (1 - s) * (2 + v * (1 - 2 * s))) < 1e-12, "%ld", (long)i);
  }
  tsr_tensor* all[] = {x, y, l, g, l2, gg};
  for (int i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  cr_expect_eq(c.released, 1);
}

/* ---- two outputs: (a * b, a + b); b's gradient NULL when not needed ---------- */
static tsr_status two_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                              int64_t* n_out, tsr_tensor** out, void* user) {
  (void)n_in;
  (void)user;
  if (max_out < 2) return TSR_ERR_INVALID_ARGUMENT;
  tsr_mul(in[0], in[1], &out[0]);
  tsr_add(in[0], in[1], &out[1]);
  tsr_function_ctx_save_for_backward(ctx, 2, in);
  *n_out = 2;
  return TSR_OK;
}

static tsr_status two_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads, int64_t n_in,
                               tsr_tensor** grad_in, void* user) {
  (void)n_grads;
  (void)n_in;
  int* materialized = user;
  tsr_tensor* saved[2];
  int64_t n;
  tsr_status s = tsr_function_ctx_saved_tensors(ctx, 2, &n, saved);
  if (s != TSR_OK) return s;
  *materialized = grads[1] != NULL;
  for (int i = 0; i < 2; ++i) {
    bool needs = false;
    tsr_function_ctx_needs_input_grad(ctx, i, &needs);
    if (!needs) continue;
    tsr_tensor* t;
    tsr_mul(grads[0], saved[1 - i], &t); /* d(ab)/da = b */
    if (grads[1]) {
      tsr_add(t, grads[1], &grad_in[i]);
      tsr_tensor_release(t);
    } else {
      grad_in[i] = t;
    }
  }
  tsr_tensor_release(saved[0]);
  tsr_tensor_release(saved[1]);
  return TSR_OK;
}

static tsr_status two_forward_no_materialize(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in,
                                             int64_t max_out, int64_t* n_out, tsr_tensor** out, void* user) {
  tsr_function_ctx_set_materialize_grads(ctx, false);
  return two_forward(ctx, n_in, in, max_out, n_out, out, user);
}

Test(function, two_outputs_needs_input_grad_and_materialize) {
  const double av[] = {1, 2}, bv[] = {3, 5};
  for (int materialize = 1; materialize >= 0; --materialize) {
    int seen_grad1 = -1;
    tsr_function_def def = TSR_FUNCTION_DEF_INIT;
    def.name = "MulAdd";
    def.forward = materialize ? two_forward : two_forward_no_materialize;
    def.backward = two_backward;
    def.user_data = &seen_grad1;
    tsr_tensor *a = values64(2, av), *b = values64(2, bv), *out[3], *l, *ga, *gb;
    TSR_ASSERT_OK(tsr_set_requires_grad(a, true));
    tsr_tensor* in[] = {a, b};
    int64_t n = 0;
    TSR_ASSERT_OK(tsr_function_apply(&def, 2, in, 3, &n, out));
    cr_assert_eq(n, 2);
    cr_expect_str_eq(tsr_grad_fn_name(out[1]), "MulAddBackward");
    /* only the first output is used: the second's gradient is zeros, or NULL */
    TSR_ASSERT_OK(tsr_sum(out[0], 0, NULL, false, &l));
    TSR_ASSERT_OK(tsr_backward(l, NULL, false));
    cr_expect_eq(seen_grad1, materialize);
    TSR_ASSERT_OK(tsr_grad(a, &ga));
    cr_expect(at(ga, 0) == 3 && at(ga, 1) == 5);
    TSR_ASSERT_OK(tsr_grad(b, &gb));
    cr_expect_null(gb); /* b does not require grad */
    tsr_tensor* all[] = {a, b, out[0], out[1], l, ga};
    for (int i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  }
}

/* ---- mark_dirty: x += 1 in place ------------------------------------------------ */
static tsr_status add_one_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                  int64_t* n_out, tsr_tensor** out, void* user) {
  (void)n_in;
  (void)max_out;
  (void)user;
  double* p = tsr_tensor_data_ptr(in[0]);
  for (int64_t i = 0; i < tsr_tensor_numel(in[0]); ++i) p[i * tsr_tensor_strides(in[0])[0]] += 1;
  tsr_function_ctx_mark_dirty(ctx, 1, &in[0]);
  tsr_tensor_retain(in[0]);
  out[0] = in[0];
  *n_out = 1;
  return TSR_OK;
}

static tsr_status identity_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads, int64_t n_in,
                                    tsr_tensor** grad_in, void* user) {
  (void)ctx;
  (void)n_grads;
  (void)n_in;
  (void)user;
  tsr_tensor_retain(grads[0]);
  grad_in[0] = grads[0];
  return TSR_OK;
}

Test(function, mark_dirty_bumps_the_version_and_records_in_place) {
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = "AddOne";
  def.forward = add_one_forward;
  def.backward = identity_backward;
  const double v[] = {1, 2, 3};
  tsr_tensor *leaf = values64(3, v), *h, *y, *l, *g;
  TSR_ASSERT_OK(tsr_set_requires_grad(leaf, true));
  TSR_ASSERT_OK(tsr_mul_scalar(leaf, 2.0, &h)); /* a non-leaf */
  const int64_t before = tsr_version(h);
  y = apply1(&def, h);
  cr_expect_eq(tsr_version(h), before + 1);
  cr_expect_str_eq(tsr_grad_fn_name(h), "AddOneBackward"); /* h's history was rebased */
  cr_expect(at(h, 0) == 3 && at(h, 2) == 7);
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_OK(tsr_backward(l, NULL, false));
  TSR_ASSERT_OK(tsr_grad(leaf, &g));
  cr_expect(at(g, 0) == 2 && at(g, 2) == 2);
  /* a leaf that requires grad cannot be written in place */
  tsr_tensor* out = SENTINEL;
  int64_t n = -1;
  TSR_ASSERT_FAILS(tsr_function_apply(&def, 1, &leaf, 1, &n, &out), TSR_ERR_AUTOGRAD,
                   "a leaf Variable that requires grad is being used in an in-place operation");
  cr_expect_eq(out, SENTINEL);
  cr_expect_eq(n, -1);
  tsr_tensor* all[] = {leaf, h, y, l, g};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

/* ---- an input returned unchanged is an alias, not the input itself ------------- */
static tsr_status identity_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                   int64_t* n_out, tsr_tensor** out, void* user) {
  (void)ctx;
  (void)n_in;
  (void)max_out;
  (void)user;
  tsr_tensor_retain(in[0]);
  out[0] = in[0];
  *n_out = 1;
  return TSR_OK;
}

Test(function, input_returned_unchanged_comes_back_as_an_alias) {
  counters c = {0};
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = "Id";
  def.forward = identity_forward;
  def.backward = identity_backward;
  def.user_data = &c;
  def.release_user_data = release_counters;
  tsr_tensor *x = values64(5, xs5), *y, *g;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  y = apply1(&def, x);
  cr_expect(tsr_is_leaf(x), "the input took the node's history");
  cr_expect_null(tsr_grad_fn_name(x));
  cr_expect_str_eq(tsr_grad_fn_name(y), "IdBackward");
  bool shares = false;
  TSR_ASSERT_OK(tsr_shares_storage(x, y, &shares));
  cr_expect(shares);
  g = grad_of_sum(y, x);
  cr_expect(at(g, 0) == 1.0);
  tsr_tensor_release(y);
  tsr_tensor_release(g);
  cr_expect_eq(c.released, 1); /* no cycle through x keeps the node */
  tsr_tensor_release(x);
}

/* ---- mark_non_differentiable: (x * 2, argmax) ---------------------------------- */
static tsr_status with_index_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                     int64_t* n_out, tsr_tensor** out, void* user) {
  (void)n_in;
  (void)max_out;
  (void)user;
  tsr_mul_scalar(in[0], 2.0, &out[0]);
  tsr_argmax(in[0], 0, false, &out[1]);
  tsr_function_ctx_mark_non_differentiable(ctx, 1, &out[1]);
  *n_out = 2;
  return TSR_OK;
}

static tsr_status double_backward_fn(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads,
                                     int64_t n_in, tsr_tensor** grad_in, void* user) {
  (void)ctx;
  (void)n_grads;
  (void)n_in;
  (void)user;
  return tsr_mul_scalar(grads[0], 2.0, &grad_in[0]);
}

Test(function, mark_non_differentiable_outputs_need_no_grad) {
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = "WithIndex";
  def.forward = with_index_forward;
  def.backward = double_backward_fn;
  tsr_tensor *x = values64(5, xs5), *out[2];
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  int64_t n;
  TSR_ASSERT_OK(tsr_function_apply(&def, 1, &x, 2, &n, out));
  cr_expect(tsr_requires_grad(out[0]));
  cr_expect_not(tsr_requires_grad(out[1]));
  cr_expect_null(tsr_grad_fn_name(out[1]));
  int64_t idx;
  TSR_ASSERT_OK(tsr_item_int64(out[1], &idx));
  cr_expect_eq(idx, 4);
  tsr_tensor* g = grad_of_sum(out[0], x);
  cr_expect(at(g, 0) == 2);
  tsr_tensor* all[] = {x, out[0], out[1], g};
  for (int i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
}

Test(function, saved_input_modified_in_place_is_torchs_error) {
  counters c = {0};
  tsr_function_def def = swish_def(&c);
  tsr_tensor* leaf = values64(5, xs5);
  TSR_ASSERT_OK(tsr_set_requires_grad(leaf, true));
  tsr_tensor *x, *y, *l;
  TSR_ASSERT_OK(tsr_mul_scalar(leaf, 1.0, &x));
  y = apply1(&def, x);
  TSR_ASSERT_OK(tsr_mul_scalar_(x, 3.0));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_FAILS(tsr_backward(l, NULL, false), TSR_ERR_AUTOGRAD, "modified by an inplace operation");
  cr_expect_eq(c.backward_calls, 0);
  tsr_tensor* all[] = {leaf, x, y, l};
  for (int i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
  cr_expect_eq(c.released, 1);
}

Test(function, callback_errors_reach_the_caller_with_the_name) {
  counters c = {0};
  c.fail_forward = true;
  tsr_function_def def = swish_def(&c);
  tsr_tensor *x = values64(5, xs5), *y = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  int64_t n = -1;
  TSR_ASSERT_FAILS(tsr_function_apply(&def, 1, &x, 1, &n, &y), TSR_ERR_SHAPE_MISMATCH,
                   "Swish.forward: swish wants a vector");
  cr_expect_eq(y, SENTINEL);
  cr_expect_eq(c.released, 1); /* a failed apply releases user_data */
  counters c2 = {0};
  c2.fail_backward = true;
  def = swish_def(&c2);
  y = apply1(&def, x);
  tsr_tensor* l;
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_FAILS(tsr_backward(l, NULL, false), TSR_ERR_INVALID_ARGUMENT, "Swish.backward: no gradient today");
  tsr_tensor* g = SENTINEL;
  TSR_ASSERT_OK(tsr_grad(x, &g));
  cr_expect_null(g); /* nothing accumulated */
  tsr_tensor_release(l);
  tsr_tensor_release(y);
  cr_expect_eq(c2.released, 1);
  tsr_tensor_release(x);
}

static tsr_status no_outputs(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                             int64_t* n_out, tsr_tensor** out, void* user) {
  (void)ctx;
  (void)n_in;
  (void)in;
  (void)max_out;
  (void)out;
  (void)user;
  *n_out = 0;
  return TSR_OK;
}

static tsr_status null_output(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                              int64_t* n_out, tsr_tensor** out, void* user) {
  (void)ctx;
  (void)n_in;
  (void)max_out;
  (void)user;
  tsr_tensor_retain(in[0]);
  out[0] = in[0];
  out[1] = NULL;
  *n_out = 2;
  return TSR_OK;
}

static tsr_status wrong_grad_shape(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads, int64_t n_in,
                                   tsr_tensor** grad_in, void* user) {
  (void)ctx;
  (void)n_grads;
  (void)grads;
  (void)n_in;
  (void)user;
  const int64_t two = 2;
  return tsr_zeros(1, &two, TSR_FLOAT64, TSR_CPU, &grad_in[0]);
}

static tsr_status outside_calls(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                int64_t* n_out, tsr_tensor** out, void* user) {
  (void)n_in;
  (void)max_out;
  (void)user;
  int64_t n;
  tsr_tensor* t;
  if (tsr_function_ctx_saved_tensors(ctx, 1, &n, &t) != TSR_ERR_INVALID_ARGUMENT) return TSR_ERR_INTERNAL;
  bool b;
  if (tsr_function_ctx_needs_input_grad(ctx, 5, &b) != TSR_ERR_INVALID_ARGUMENT) return TSR_ERR_INTERNAL;
  tsr_tensor* other;
  tsr_mul_scalar(in[0], 1.0, &other);
  const tsr_status s = tsr_function_ctx_mark_dirty(ctx, 1, &other);
  tsr_tensor_release(other);
  if (s != TSR_ERR_INVALID_ARGUMENT) return TSR_ERR_INTERNAL;
  *n_out = 1;
  return tsr_mul_scalar(in[0], 1.0, &out[0]);
}

Test(function, bad_definitions_and_outputs_are_refused) {
  tsr_tensor *x = values64(5, xs5), *out[2] = {SENTINEL, SENTINEL};
  int64_t n = -1;
  counters c = {0};
  tsr_function_def def = swish_def(&c);
  def.name = "";
  TSR_ASSERT_FAILS(tsr_function_apply(&def, 1, &x, 1, &n, out), TSR_ERR_INVALID_ARGUMENT, "name is NULL or empty");
  cr_expect_eq(c.released, 1);
  def = swish_def(&c);
  def.forward = NULL;
  TSR_ASSERT_FAILS(tsr_function_apply(&def, 1, &x, 1, &n, out), TSR_ERR_INVALID_ARGUMENT, "forward is NULL");
  def = swish_def(&c);
  TSR_ASSERT_FAILS(tsr_function_apply(&def, 1, &x, 0, &n, out), TSR_ERR_INVALID_ARGUMENT, "max_outputs");
  TSR_ASSERT_FAILS(tsr_function_apply(&def, -1, &x, 1, &n, out), TSR_ERR_INVALID_ARGUMENT, "n_inputs");
  TSR_ASSERT_FAILS(tsr_function_apply(NULL, 1, &x, 1, &n, out), TSR_ERR_INVALID_ARGUMENT, "def is NULL");
  def.struct_size = 4;
  TSR_ASSERT_FAILS(tsr_function_apply(&def, 1, &x, 1, &n, out), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  cr_expect_eq(c.released, 4); /* each failed apply released it (the bad struct_size could not be read) */
  tsr_function_def bad = TSR_FUNCTION_DEF_INIT;
  bad.name = "Bad";
  bad.forward = no_outputs;
  TSR_ASSERT_FAILS(tsr_function_apply(&bad, 1, &x, 2, &n, out), TSR_ERR_INVALID_ARGUMENT,
                   "Bad.forward: returned 0 outputs; expected 1 to 2");
  bad.forward = null_output;
  TSR_ASSERT_FAILS(tsr_function_apply(&bad, 1, &x, 2, &n, out), TSR_ERR_INVALID_ARGUMENT, "output 1 is NULL");
  cr_expect(out[0] == SENTINEL && out[1] == SENTINEL && n == -1);
  bad.forward = outside_calls;
  TSR_ASSERT_OK(tsr_function_apply(&bad, 1, &x, 1, &n, out));
  tsr_tensor_release(out[0]);
  /* a backward returning a gradient of the wrong shape */
  tsr_function_def shape = TSR_FUNCTION_DEF_INIT;
  shape.name = "Shape";
  shape.forward = swish_forward;
  shape.backward = wrong_grad_shape;
  counters c3 = {0};
  shape.user_data = &c3;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_tensor *y = apply1(&shape, x), *l;
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  TSR_ASSERT_FAILS(tsr_backward(l, NULL, false), TSR_ERR_SHAPE_MISMATCH,
                   "Function ShapeBackward returned an invalid gradient at index 0 - got [2] but expected shape "
                   "compatible with [5]");
  /* no backward at all */
  tsr_function_def nob = swish_def(&c);
  nob.backward = NULL;
  nob.release_user_data = NULL;
  tsr_tensor *y2 = apply1(&nob, x), *l2;
  TSR_ASSERT_OK(tsr_sum(y2, 0, NULL, false, &l2));
  TSR_ASSERT_FAILS(tsr_backward(l2, NULL, false), TSR_ERR_AUTOGRAD, "Swish: the function has no backward");
  TSR_ASSERT_FAILS(tsr_set_last_error(TSR_OK, "x"), TSR_ERR_INVALID_ARGUMENT, "failure status");
  TSR_ASSERT_FAILS(tsr_function_ctx_set_materialize_grads(NULL, true), TSR_ERR_INVALID_ARGUMENT, "ctx is NULL");
  tsr_tensor* all[] = {x, y, l, y2, l2};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

/* ---- a custom function inside a checkpoint region, nested functions ---------------- */
static tsr_status outer_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in, int64_t max_out,
                                int64_t* n_out, tsr_tensor** out, void* user) {
  /* calls the swish (a nested custom function) and doubles it */
  (void)n_in;
  (void)max_out;
  tsr_function_def def = swish_def(user);
  def.release_user_data = NULL;
  tsr_tensor* y = NULL;
  int64_t n;
  tsr_status s = tsr_function_apply(&def, 1, in, 1, &n, &y);
  if (s != TSR_OK) return s;
  s = tsr_mul_scalar(y, 2.0, &out[0]);
  tsr_tensor_release(y);
  tsr_function_ctx_save_for_backward(ctx, 1, in);
  *n_out = 1;
  return s;
}

static tsr_status outer_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads, int64_t n_in,
                                 tsr_tensor** grad_in, void* user) {
  tsr_tensor* two;
  tsr_status s = tsr_mul_scalar(grads[0], 2.0, &two);
  if (s != TSR_OK) return s;
  tsr_tensor* g[] = {two};
  s = swish_backward(ctx, n_grads, g, n_in, grad_in, user);
  tsr_tensor_release(two);
  return s;
}

static void checkpointed_grad(bool region, counters* c, tsr_tensor** grad) {
  tsr_tensor* x = values64(5, xs5);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = "Outer";
  def.forward = outer_forward;
  def.backward = outer_backward;
  def.user_data = c;
  tsr_tensor *h, *y, *z;
  if (region) TSR_ASSERT_OK(tsr_checkpoint_begin(NULL));
  TSR_ASSERT_OK(tsr_sin(x, &h));
  y = apply1(&def, h);
  TSR_ASSERT_OK(tsr_mul(y, y, &z));
  if (region) TSR_ASSERT_OK(tsr_checkpoint_end());
  tsr_tensor* l;
  TSR_ASSERT_OK(tsr_sum(z, 0, NULL, false, &l));
  /* the region's values are gone before backward: it has to replay them */
  tsr_tensor* all[] = {h, y, z};
  for (int i = 0; i < 3; ++i) tsr_tensor_release(all[i]);
  TSR_ASSERT_OK(tsr_backward(l, NULL, false));
  TSR_ASSERT_OK(tsr_grad(x, grad));
  tsr_tensor_release(l);
  tsr_tensor_release(x);
}

Test(function, replay_in_a_checkpoint_region_is_bit_identical) {
  counters plain = {0}, replayed = {0};
  tsr_tensor *g0, *g1;
  checkpointed_grad(false, &plain, &g0);
  checkpointed_grad(true, &replayed, &g1);
  for (int64_t i = 0; i < 5; ++i) cr_expect(at(g0, i) == at(g1, i), "%ld: %.17g vs %.17g", (long)i, at(g0, i), at(g1, i));
  /* the nested swish ran inside Outer's forward; the region replayed Outer once */
  cr_expect_eq(plain.forward_calls, 1);
  cr_expect_eq(replayed.forward_calls, 2);
  tsr_tensor_release(g0);
  tsr_tensor_release(g1);
}

Test(function, profiler_rows_under_the_functions_name) {
  counters c = {0};
  tsr_function_def def = swish_def(&c);
  tsr_tensor* x = values64(5, xs5);
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  TSR_ASSERT_OK(tsr_profiler_start(&o));
  tsr_tensor *y = apply1(&def, x), *g = grad_of_sum(y, x);
  tsr_profiler_result* r;
  TSR_ASSERT_OK(tsr_profiler_stop(&r));
  char* text;
  TSR_ASSERT_OK(tsr_profiler_table(r, "count", -1, &text));
  cr_expect(strstr(text, " Swish ") != NULL, "%s", text);
  cr_expect(strstr(text, "SwishBackward") != NULL, "%s", text);
  cr_expect(strstr(text, "aten::sigmoid") != NULL, "%s", text); /* the backward's ops */
  tsr_free_string(text);
  tsr_profiler_result_release(r);
  tsr_tensor_release(y);
  tsr_tensor_release(g);
  tsr_tensor_release(x);
}
