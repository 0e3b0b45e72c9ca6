/* Gradient hooks (torch.Tensor.register_hook), saved-tensor hooks
 * (torch.autograd.graph.saved_tensors_hooks), inference mode
 * (torch.inference_mode) and anomaly detection, through the C API. */
#include <math.h>

#include "helpers.h"

static tsr_tensor* vec3(double a, double b, double c, bool requires_grad) {
  const double v[] = {a, b, c};
  const int64_t n = 3;
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 1, &n, TSR_FLOAT64, &t));
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

static void expect_vec3(const tsr_tensor* t, double a, double b, double c) {
  double v[3];
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, v, sizeof v, NULL));
  cr_expect(v[0] == a && v[1] == b && v[2] == c, "got [%g, %g, %g], expected [%g, %g, %g]", v[0], v[1],
            v[2], a, b, c);
}

static void expect_grad3(tsr_tensor* t, double a, double b, double c) {
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(t, &g));
  cr_assert_not_null(g);
  expect_vec3(g, a, b, c);
  tsr_tensor_release(g);
}

/* backward of sum(x * w) with w = [1, 2, 3]. */
static void backward_xw(tsr_tensor* x) {
  tsr_tensor *w = vec3(1, 2, 3, false), *xw, *s;
  TSR_ASSERT_OK(tsr_mul(x, w, &xw));
  TSR_ASSERT_OK(tsr_sum(xw, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  tsr_tensor_release(s);
  tsr_tensor_release(xw);
  tsr_tensor_release(w);
}

typedef struct {
  int calls, destroyed;
  double scale;
  tsr_status fail_with;
  double seen[3];
} hook_state;

static tsr_status scale_hook(void* ctx, const tsr_tensor* grad, tsr_tensor** replacement) {
  hook_state* h = ctx;
  h->calls++;
  TSR_ASSERT_OK(tsr_copy_to_buffer(grad, h->seen, sizeof h->seen, NULL));
  if (h->fail_with != TSR_OK) {
    tsr_tensor* bad;
    return tsr_view(grad, 1, (const int64_t[]){7}, &bad); /* fails, with tessera's message */
  }
  if (h->scale == 1.0) return TSR_OK; /* keep the gradient */
  return tsr_mul_scalar(grad, h->scale, replacement);
}

static void count_destroy(void* ctx) { ((hook_state*)ctx)->destroyed++; }

Test(hooks, leaf_hook_sees_and_replaces_the_gradient_until_removed) {
  tsr_tensor* x = vec3(0, 0, 0, true);
  hook_state h = {0, 0, 10.0, TSR_OK, {0}};
  int64_t id;
  TSR_ASSERT_OK(tsr_register_hook(x, scale_hook, &h, count_destroy, &id));
  backward_xw(x);
  cr_expect_eq(h.calls, 1);
  cr_expect(h.seen[0] == 1 && h.seen[1] == 2 && h.seen[2] == 3, "the hook sees the gradient");
  expect_grad3(x, 10, 20, 30);
  TSR_ASSERT_OK(tsr_remove_hook(x, id));
  cr_expect_eq(h.destroyed, 1, "removing a hook frees its context");
  backward_xw(x);
  expect_grad3(x, 11, 22, 33);
  cr_expect_eq(h.calls, 1);
  TSR_ASSERT_FAILS(tsr_remove_hook(x, id), TSR_ERR_INVALID_ARGUMENT, "has no hook");
  TSR_ASSERT_FAILS(tsr_register_hook(x, NULL, &h, count_destroy, &id), TSR_ERR_INVALID_ARGUMENT, "fn is NULL");
  cr_expect_eq(h.destroyed, 1);
  tsr_tensor_release(x);
}

/* torch: y = x * 3; y.register_hook(lambda g: g * 10); y.sum().backward() -> x.grad = 30. */
Test(hooks, non_leaf_hook_changes_what_flows_on) {
  tsr_tensor *x = vec3(1, 2, 3, true), *y, *s;
  TSR_ASSERT_OK(tsr_mul_scalar(x, 3.0, &y));
  hook_state h = {0, 0, 10.0, TSR_OK, {0}};
  int64_t id;
  TSR_ASSERT_OK(tsr_register_hook(y, scale_hook, &h, count_destroy, &id));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  expect_grad3(x, 30, 30, 30);
  cr_expect_eq(h.calls, 1);
  /* autograd.grad captures the hooked gradient too */
  tsr_tensor *y2, *s2, *g[1];
  TSR_ASSERT_OK(tsr_mul_scalar(x, 3.0, &y2));
  TSR_ASSERT_OK(tsr_sum(y2, 0, NULL, false, &s2));
  hook_state h2 = {0, 0, 2.0, TSR_OK, {0}};
  TSR_ASSERT_OK(tsr_register_hook(x, scale_hook, &h2, NULL, &id));
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s2, NULL, 1, &x, false, false, false, g));
  expect_vec3(g[0], 6, 6, 6);
  tsr_tensor_release(g[0]);
  tsr_tensor_release(s2);
  tsr_tensor_release(y2);
  tsr_tensor_release(s);
  tsr_tensor_release(y);
  cr_expect_eq(h.destroyed, 1, "the graph holding the hook is gone with y");
  tsr_tensor_release(x);
}

Test(hooks, hook_errors) {
  tsr_tensor* c = vec3(1, 2, 3, false);
  hook_state h = {0, 0, 1.0, TSR_OK, {0}};
  int64_t id = -5;
  TSR_ASSERT_FAILS(tsr_register_hook(c, scale_hook, &h, count_destroy, &id), TSR_ERR_AUTOGRAD,
                   "cannot register a hook on a tensor that doesn't require gradient");
  cr_expect_eq(id, -5);
  cr_expect_eq(h.destroyed, 1, "a refused hook's context is freed");
  tsr_tensor* x = vec3(0, 0, 0, true);
  h.fail_with = TSR_ERR_SHAPE_MISMATCH;
  TSR_ASSERT_OK(tsr_register_hook(x, scale_hook, &h, NULL, &id));
  tsr_tensor *w = vec3(1, 2, 3, false), *xw, *s;
  TSR_ASSERT_OK(tsr_mul(x, w, &xw));
  TSR_ASSERT_OK(tsr_sum(xw, 0, NULL, false, &s));
  TSR_ASSERT_FAILS(tsr_backward(s, NULL, true), TSR_ERR_SHAPE_MISMATCH, "is invalid for input of size 3");
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(x, &g));
  cr_expect_null(g);
  tsr_tensor* all[] = {c, x, w, xw, s};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

/* A hook may keep the tensor it is given (tsr_tensor_retain), as a Python
 * hook appending its argument to a list does. */
static tsr_status keep_grad(void* ctx, const tsr_tensor* grad, tsr_tensor** replacement) {
  (void)replacement;
  tsr_tensor_retain((tsr_tensor*)grad);
  *(const tsr_tensor**)ctx = grad;
  return TSR_OK;
}

Test(hooks, a_hook_may_keep_the_gradient_it_is_given) {
  tsr_tensor* x = vec3(0, 0, 0, true);
  const tsr_tensor* kept = NULL;
  int64_t id;
  TSR_ASSERT_OK(tsr_register_hook(x, keep_grad, &kept, NULL, &id));
  backward_xw(x);
  cr_assert_not_null(kept);
  expect_vec3(kept, 1, 2, 3);
  tsr_tensor_release((tsr_tensor*)kept);
  tsr_tensor_release(x);
}

/* ---- saved tensor hooks ------------------------------------------------- */

typedef struct {
  int packs, unpacks, frees, destroyed;
  bool fail_pack;
} saved_state;

/* Packs a clone ("offloading" a copy), unpacks it. */
static tsr_status pack_clone(void* ctx, const tsr_tensor* t, void** packed) {
  saved_state* s = ctx;
  if (s->fail_pack) return tsr_view(t, 1, (const int64_t[]){99}, (tsr_tensor**)packed);
  s->packs++;
  return tsr_clone(t, TSR_CONTIGUOUS_FORMAT, (tsr_tensor**)packed);
}
static tsr_status unpack_clone(void* ctx, void* packed, tsr_tensor** out) {
  ((saved_state*)ctx)->unpacks++;
  tsr_tensor_retain(packed);
  *out = packed;
  return TSR_OK;
}
static void free_clone(void* ctx, void* packed) {
  ((saved_state*)ctx)->frees++;
  tsr_tensor_release(packed);
}
static void saved_destroy(void* ctx) { ((saved_state*)ctx)->destroyed++; }

Test(hooks, saved_tensors_go_through_pack_and_unpack) {
  saved_state st = {0};
  tsr_tensor *x = vec3(1, 2, 3, true), *y, *e, *s;
  TSR_ASSERT_OK(tsr_saved_tensors_hooks_push(pack_clone, unpack_clone, free_clone, &st, saved_destroy));
  TSR_ASSERT_OK(tsr_mul(x, x, &y)); /* saves x twice */
  TSR_ASSERT_OK(tsr_exp(y, &e));    /* saves its result */
  TSR_ASSERT_OK(tsr_saved_tensors_hooks_pop());
  cr_expect_eq(st.packs, 3);
  TSR_ASSERT_OK(tsr_sum(e, 0, NULL, false, &s)); /* after the pop: saves nothing anyway */
  cr_expect_eq(st.destroyed, 0, "the hooks live while what they packed does");
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  cr_expect_eq(st.unpacks, 3);
  cr_expect_eq(st.frees, 3, "backward frees what it unpacked");
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(x, &g));
  double v[3];
  TSR_ASSERT_OK(tsr_copy_to_buffer(g, v, sizeof v, NULL));
  for (int i = 0; i < 3; ++i) { /* d/dx exp(x^2) = 2x exp(x^2) */
    double xi = i + 1;
    cr_expect_float_eq(v[i], 2 * xi * exp(xi * xi), 1e-9 * v[i]);
  }
  tsr_tensor_release(g);
  tsr_tensor_release(s);
  tsr_tensor_release(e);
  tsr_tensor_release(y);
  cr_expect_eq(st.destroyed, 1);
  TSR_ASSERT_FAILS(tsr_saved_tensors_hooks_pop(), TSR_ERR_AUTOGRAD, "no saved tensor hooks are pushed");
  TSR_ASSERT_FAILS(tsr_saved_tensors_hooks_push(NULL, unpack_clone, NULL, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "pack is NULL");
  /* A failing pack fails the op that saved, with the pack's message. */
  st.fail_pack = true;
  TSR_ASSERT_OK(tsr_saved_tensors_hooks_push(pack_clone, unpack_clone, free_clone, &st, NULL));
  tsr_tensor* out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_mul(x, x, &out), TSR_ERR_SHAPE_MISMATCH, "is invalid for input of size 3");
  cr_expect_eq(out, SENTINEL);
  TSR_ASSERT_OK(tsr_saved_tensors_hooks_pop());
  tsr_tensor_release(x);
}

/* A pack hook that keeps the saved tensor itself (its handle). */
static tsr_status pack_self(void* ctx, const tsr_tensor* t, void** packed) {
  ((saved_state*)ctx)->packs++;
  tsr_tensor_retain((tsr_tensor*)t);
  *packed = (void*)t;
  return TSR_OK;
}

Test(hooks, a_pack_hook_may_keep_the_tensor_itself) {
  saved_state st = {0};
  tsr_tensor *x = vec3(1, 2, 3, true), *y, *s;
  TSR_ASSERT_OK(tsr_saved_tensors_hooks_push(pack_self, unpack_clone, free_clone, &st, saved_destroy));
  TSR_ASSERT_OK(tsr_mul(x, x, &y)); /* saves x twice */
  TSR_ASSERT_OK(tsr_saved_tensors_hooks_pop());
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  cr_expect(st.packs == 2 && st.unpacks == 2 && st.frees == 2);
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(x, &g));
  expect_vec3(g, 2, 4, 6);
  tsr_tensor_release(g);
  tsr_tensor_release(s);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
  cr_expect_eq(st.destroyed, 1);
}

/* ---- inference mode ----------------------------------------------------- */

Test(hooks, inference_mode_records_nothing_and_guards_its_tensors) {
  tsr_tensor *w = vec3(1, 2, 3, true), *a, *b, *n, *y, *out = SENTINEL;
  cr_expect(!tsr_set_inference_mode(true));
  cr_expect(tsr_is_inference_mode_enabled() && !tsr_is_grad_enabled());
  TSR_ASSERT_OK(tsr_mul(w, w, &a));
  cr_expect(tsr_is_inference(a) && !tsr_requires_grad(a), "made inside: an inference tensor without history");
  TSR_ASSERT_OK(tsr_mul_scalar_(a, 2.0));
  cr_expect_eq(tsr_version(a), 0, "inference tensors count no writes");
  cr_expect(tsr_set_inference_mode(false));
  cr_expect(tsr_is_grad_enabled(), "grad mode comes back");
  cr_expect(!tsr_is_inference(w));
  expect_vec3(a, 2, 8, 18);
  /* torch: add saves nothing, so an inference input is fine; mul saves it. */
  TSR_ASSERT_OK(tsr_add(a, w, &b));
  cr_expect(tsr_requires_grad(b) && !tsr_is_inference(b));
  TSR_ASSERT_FAILS(tsr_mul(a, w, &out), TSR_ERR_AUTOGRAD, "Inference tensors cannot be saved for backward.");
  cr_expect_eq(out, SENTINEL);
  TSR_ASSERT_FAILS(tsr_mul_scalar_(a, 2.0), TSR_ERR_AUTOGRAD,
                   "Inplace update to inference tensor outside InferenceMode is not allowed");
  expect_vec3(a, 2, 8, 18);
  TSR_ASSERT_FAILS(tsr_set_requires_grad(a, true), TSR_ERR_AUTOGRAD,
                   "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  /* A clone is a normal tensor; a normal tensor's view made in inference mode stays normal. */
  TSR_ASSERT_OK(tsr_clone(a, TSR_CONTIGUOUS_FORMAT, &n));
  cr_expect(!tsr_is_inference(n));
  TSR_ASSERT_OK(tsr_mul(n, w, &y));
  tsr_tensor* v;
  tsr_set_inference_mode(true);
  TSR_ASSERT_OK(tsr_narrow(n, 0, 0, 2, &v));
  tsr_set_inference_mode(false);
  cr_expect(!tsr_is_inference(v));
  cr_expect(!tsr_is_inference(NULL));
  tsr_tensor* all[] = {w, a, b, n, y, v};
  for (int i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
}

/* ---- anomaly detection -------------------------------------------------- */

/* torch: x = zeros(1, requires_grad); with detect_anomaly: (x / x).sum().backward()
 *   -> "Function 'DivBackward0' returned nan values in its 1th output." */
Test(hooks, anomaly_mode_names_the_node_and_forward_op_that_made_nan) {
  const int64_t one = 1;
  tsr_tensor *x, *q, *s;
  TSR_ASSERT_OK(tsr_zeros(1, &one, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_div(x, x, &q));
  TSR_ASSERT_OK(tsr_sum(q, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_backward(s, NULL, true)); /* off: NaN flows into .grad silently */
  TSR_ASSERT_OK(tsr_set_grad(x, NULL));
  cr_expect(!tsr_set_detect_anomaly(true));
  cr_expect(tsr_is_anomaly_enabled());
  TSR_ASSERT_FAILS(tsr_backward(s, NULL, true), TSR_ERR_AUTOGRAD,
                   "Function 'DivBackward0' returned nan values in its 1th output. It is the backward "
                   "of the forward op 'div'.");
  cr_expect(tsr_set_detect_anomaly(false));
  tsr_tensor_release(s);
  tsr_tensor_release(q);
  tsr_tensor_release(x);
}
