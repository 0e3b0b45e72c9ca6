/* Autograd (autograd.h) against PyTorch 1.13 (tests/golden/gen_autograd.py):
 * gradients of every differentiable op (broadcasting summed back, mixed
 * dtypes, only one operand requiring grad), a small MLP with cross_entropy,
 * grad_fn names, and the engine's behaviour: accumulation, retain_graph,
 * zero_grad/set_grad, detach, no_grad (per thread), explicit gradients, and
 * every misuse with torch's message and no .grad changed. */
#include <pthread.h>
#include <stdint.h>

#include "golden/autograd_golden.h"
#include "helpers.h"
#include "ops_program.h"

TG_PARAMETERIZED(autograd, golden, tg_grads, TG_GRADS_N) { tg_check_backward(c); }

/* ---- helpers ----------------------------------------------------------- */

static tsr_tensor* vec(const double* v, int64_t n, tsr_dtype dtype, bool requires_grad) {
  tsr_tensor* t = tg_from_doubles(v, n, dtype);
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

static tsr_tensor* mat(const double* v, int64_t rows, int64_t cols, bool requires_grad) {
  tsr_tensor *flat = tg_from_doubles(v, rows * cols, TSR_FLOAT32), *t;
  const int64_t s[] = {rows, cols};
  TSR_ASSERT_OK(tsr_reshape(flat, 2, s, &t));
  tsr_tensor_release(flat);
  if (requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  return t;
}

static void expect_values(const tsr_tensor* t, const double* want, int64_t n, const char* what) {
  cr_assert_not_null(t, "%s is NULL", what);
  cr_assert_eq(tsr_tensor_numel(t), n, "%s: numel", what);
  double* v = tg_values(t);
  for (int64_t i = 0; i < n; ++i)
    cr_expect(tg_close(v[i], want[i], 1e-5, 1e-6), "%s[%lld] = %.9g, torch says %.9g", what,
              (long long)i, v[i], want[i]);
  free(v);
}

/* The current .grad of t (a new handle or NULL). */
static tsr_tensor* grad_of(const tsr_tensor* t) {
  tsr_tensor* g = SENTINEL;
  TSR_ASSERT_OK(tsr_grad(t, &g));
  return g;
}

/* y = sum(x * x * w), the graph of the accumulation scenario. */
static tsr_tensor* sum_xxw(tsr_tensor* x, tsr_tensor* w) {
  tsr_tensor *xx, *xxw, *y;
  TSR_ASSERT_OK(tsr_mul(x, x, &xx));
  TSR_ASSERT_OK(tsr_mul(xx, w, &xxw));
  TSR_ASSERT_OK(tsr_sum(xxw, 0, NULL, false, &y));
  tsr_tensor_release(xx);
  tsr_tensor_release(xxw);
  return y;
}

/* ---- .grad lifecycle --------------------------------------------------- */

Test(autograd, grad_is_null_before_backward) {
  const double v[] = {1, 2};
  tsr_tensor *x = vec(v, 2, TSR_FLOAT32, true), *plain = vec(v, 2, TSR_FLOAT32, false);
  cr_expect_null(grad_of(x));
  cr_expect_null(grad_of(plain));
  tsr_tensor* out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_grad(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "NULL");
  TSR_ASSERT_FAILS(tsr_grad(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  tsr_tensor_release(x);
  tsr_tensor_release(plain);
}

/* Two backward calls with retain_graph accumulate (torch: x.grad doubles),
 * in place: a handle taken after the first sees the sum. */
Test(autograd, accumulation_with_retain_graph) {
  tsr_tensor *x = mat(sc_acc_x, 2, 3, true), *w = mat(sc_acc_w, 2, 3, false);
  tsr_tensor* y = sum_xxw(x, w);
  expect_values(y, sc_acc_loss, 1, "y");
  TSR_ASSERT_OK(tsr_backward(y, NULL, true));
  tsr_tensor* g1 = grad_of(x);
  expect_values(g1, sc_acc_grad1, 6, "x.grad after one backward");
  cr_expect_eq(tsr_tensor_dtype(g1), TSR_FLOAT32);
  TSR_ASSERT_OK(tsr_backward(y, NULL, false));
  tsr_tensor* g2 = grad_of(x);
  expect_values(g2, sc_acc_grad2, 6, "x.grad after two");
  expect_values(g1, sc_acc_grad2, 6, "the first handle (accumulated in place)");
  cr_expect_null(grad_of(w), "w does not require grad");
  /* The graph's buffers are now freed: torch's message, nothing changes. */
  TSR_ASSERT_FAILS(tsr_backward(y, NULL, false), TSR_ERR_AUTOGRAD,
                   "Trying to backward through the graph a second time (or directly access saved "
                   "tensors after they have already been freed).");
  TSR_ASSERT_FAILS(tsr_backward(y, NULL, true), TSR_ERR_AUTOGRAD,
                   "Specify retain_graph=True");
  expect_values(g2, sc_acc_grad2, 6, "x.grad after the refused backward");
  tsr_tensor_release(g1);
  tsr_tensor_release(g2);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
}

Test(autograd, zero_grad_and_set_grad) {
  tsr_tensor *x = mat(sc_acc_x, 2, 3, true), *w = mat(sc_acc_w, 2, 3, false);
  TSR_ASSERT_OK(tsr_zero_grad(x));  /* no grad yet: a no-op */
  cr_expect_null(grad_of(x));
  tsr_tensor* y = sum_xxw(x, w);
  TSR_ASSERT_OK(tsr_backward(y, NULL, true));
  tsr_tensor* g = grad_of(x);
  TSR_ASSERT_OK(tsr_zero_grad(x));
  const double zeros[6] = {0};
  expect_values(g, zeros, 6, "x.grad after zero_grad (same tensor)");
  TSR_ASSERT_OK(tsr_backward(y, NULL, true));
  expect_values(g, sc_acc_grad1, 6, "x.grad after zero_grad + backward");
  tsr_tensor_release(g);

  /* set_grad(NULL) is `x.grad = None`: the next backward starts afresh. */
  TSR_ASSERT_OK(tsr_set_grad(x, NULL));
  cr_expect_null(grad_of(x));
  TSR_ASSERT_OK(tsr_backward(y, NULL, true));
  g = grad_of(x);
  expect_values(g, sc_acc_grad1, 6, "x.grad after set_grad(NULL) + backward");
  tsr_tensor_release(g);

  /* A grad set by hand is accumulated into. */
  tsr_tensor* mine = mat(sc_acc_grad1, 2, 3, false);
  TSR_ASSERT_OK(tsr_set_grad(x, mine));
  TSR_ASSERT_OK(tsr_backward(y, NULL, false));
  expect_values(mine, sc_acc_grad2, 6, "the assigned grad tensor");

  /* Wrong sizes / dtype: torch's "assigned grad has data of a different
   * size" / "... type"; the grad stays. */
  const int64_t s3[] = {3};
  tsr_tensor *bad_size, *bad_type;
  TSR_ASSERT_OK(tsr_zeros(1, s3, TSR_FLOAT32, TSR_CPU, &bad_size));
  TSR_ASSERT_OK(tsr_to_dtype(mine, TSR_FLOAT64, &bad_type));
  TSR_ASSERT_FAILS(tsr_set_grad(x, bad_size), TSR_ERR_SHAPE_MISMATCH,
                   "assigned grad has data of a different size");
  TSR_ASSERT_FAILS(tsr_set_grad(x, bad_type), TSR_ERR_DTYPE_MISMATCH,
                   "assigned grad has data of a different type");
  TSR_ASSERT_FAILS(tsr_set_grad(NULL, mine), TSR_ERR_INVALID_ARGUMENT, "NULL");
  TSR_ASSERT_FAILS(tsr_zero_grad(NULL), TSR_ERR_INVALID_ARGUMENT, "NULL");
  g = grad_of(x);
  expect_values(g, sc_acc_grad2, 6, "x.grad after refused set_grad");
  tsr_tensor_release(g);
  tsr_tensor* all[] = {x, w, y, mine, bad_size, bad_type};
  for (int k = 0; k < 6; ++k) tsr_tensor_release(all[k]);
}

/* ---- graph metadata ---------------------------------------------------- */

Test(autograd, leaves_requires_grad_and_detach) {
  const double v[] = {1, -2, 3};
  tsr_tensor *x = vec(v, 3, TSR_FLOAT32, false), *y, *d, *z, *i;
  cr_expect(tsr_is_leaf(x) && !tsr_requires_grad(x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  cr_expect(tsr_is_leaf(x) && tsr_requires_grad(x));
  cr_expect_null(tsr_grad_fn_name(x));
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2.0, &y));
  cr_expect(!tsr_is_leaf(y) && tsr_requires_grad(y));
  cr_expect_str_eq(tsr_grad_fn_name(y), "MulBackward0");
  /* requires_grad_(True) on a non-leaf is a no-op; False is refused. */
  TSR_ASSERT_OK(tsr_set_requires_grad(y, true));
  TSR_ASSERT_FAILS(tsr_set_requires_grad(y, false), TSR_ERR_AUTOGRAD,
                   "you can only change requires_grad flags of leaf variables.");
  cr_expect(tsr_requires_grad(y));
  /* detach: a leaf without history sharing storage and version counter. */
  TSR_ASSERT_OK(tsr_detach(y, &d));
  cr_expect(tsr_is_leaf(d) && !tsr_requires_grad(d));
  cr_expect_null(tsr_grad_fn_name(d));
  bool shares = false;
  TSR_ASSERT_OK(tsr_shares_storage(y, d, &shares));
  cr_expect(shares);
  cr_expect_eq(tsr_tensor_data_ptr(y), tsr_tensor_data_ptr(d));
  TSR_ASSERT_OK(tsr_fill_(d, 5.0));
  cr_expect_eq(tsr_version(y), 1, "detach shares the version counter");
  double e;
  const int64_t i0 = 0;
  TSR_ASSERT_OK(tsr_get_double(y, 1, &i0, &e));
  cr_expect_eq(e, 5.0, "and the data");
  /* Ops on detached tensors record nothing. */
  TSR_ASSERT_OK(tsr_exp(d, &z));
  cr_expect(!tsr_requires_grad(z) && tsr_is_leaf(z));
  /* Integer results never require grad (argmax of a tensor that does). */
  TSR_ASSERT_OK(tsr_argmax(x, 0, false, &i));
  cr_expect(!tsr_requires_grad(i));
  /* Only floating tensors can require grad (torch's message). */
  TSR_ASSERT_FAILS(tsr_set_requires_grad(i, true), TSR_ERR_DTYPE_MISMATCH,
                   "only Tensors of floating point dtype can require gradients");
  cr_expect(!tsr_requires_grad(i));
  /* NULL handles: the documented sentinels. */
  cr_expect(!tsr_is_leaf(NULL));
  cr_expect(!tsr_requires_grad(NULL));
  cr_expect_null(tsr_grad_fn_name(NULL));
  tsr_tensor* out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_detach(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "NULL");
  TSR_ASSERT_FAILS(tsr_set_requires_grad(NULL, true), TSR_ERR_INVALID_ARGUMENT, "NULL");
  cr_expect_eq(out, SENTINEL);
  tsr_tensor* all[] = {x, y, d, z, i};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

/* ---- no_grad ------------------------------------------------------------ */

static void* other_thread(void* arg) {
  const tsr_tensor* x = arg;
  bool* ok = malloc(sizeof *ok);
  /* A new thread starts with grad mode on, whatever the main thread set. */
  *ok = tsr_is_grad_enabled();
  tsr_tensor* y;
  *ok = *ok && tsr_mul_scalar(x, 3.0, &y) == TSR_OK;
  *ok = *ok && tsr_requires_grad(y) && tsr_grad_fn_name(y) != NULL;
  tsr_tensor_release(y);
  tsr_set_grad_enabled(false);  /* only this thread */
  *ok = *ok && !tsr_is_grad_enabled();
  return ok;
}

Test(autograd, no_grad_is_thread_local) {
  const double v[] = {1, 2};
  tsr_tensor *x = vec(v, 2, TSR_FLOAT32, true), *y;
  cr_expect(tsr_is_grad_enabled());
  bool prev = tsr_set_grad_enabled(false);
  cr_expect(prev && !tsr_is_grad_enabled());
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2.0, &y));
  cr_expect(!tsr_requires_grad(y) && tsr_is_leaf(y));
  cr_expect_null(tsr_grad_fn_name(y));
  tsr_tensor_release(y);

  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, other_thread, x), 0);
  void* res;
  pthread_join(th, &res);
  cr_expect(*(bool*)res, "the other thread saw its own grad mode");
  free(res);
  cr_expect(!tsr_is_grad_enabled(), "the main thread's mode is unchanged");

  cr_expect(!tsr_set_grad_enabled(prev));
  cr_expect(tsr_is_grad_enabled());
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2.0, &y));
  cr_expect(tsr_requires_grad(y));
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

/* ---- backward arguments ------------------------------------------------ */

Test(autograd, explicit_gradient) {
  tsr_tensor *x = vec(sc_explicit_x, 3, TSR_FLOAT32, true), *e, *z;
  TSR_ASSERT_OK(tsr_exp(x, &e));
  TSR_ASSERT_OK(tsr_mul_scalar(e, 2.0, &z));
  /* Non-scalar root without a gradient: torch's message, no grad. */
  TSR_ASSERT_FAILS(tsr_backward(z, NULL, true), TSR_ERR_AUTOGRAD,
                   "grad can be implicitly created only for scalar outputs");
  const int64_t s2[] = {2};
  tsr_tensor* wrong;
  TSR_ASSERT_OK(tsr_ones(1, s2, TSR_FLOAT32, TSR_CPU, &wrong));
  /* torch: "Mismatch in shape: grad_output[0] has a shape of torch.Size([2])
   * and output[0] has a shape of torch.Size([3])." */
  TSR_ASSERT_FAILS(tsr_backward(z, wrong, true), TSR_ERR_SHAPE_MISMATCH,
                   "Mismatch in shape: grad_output[0] has a shape of");
  cr_expect_null(grad_of(x));
  /* A gradient of another dtype is converted, as torch does. */
  tsr_tensor* v = vec(sc_explicit_v, 3, TSR_FLOAT64, false);
  TSR_ASSERT_OK(tsr_backward(z, v, false));
  tsr_tensor* g = grad_of(x);
  expect_values(g, sc_explicit_grad, 3, "x.grad");
  cr_expect_eq(tsr_tensor_dtype(g), TSR_FLOAT32);
  cr_expect_eq(tsr_version(v), 0, "the gradient argument is only read");
  TSR_ASSERT_FAILS(tsr_backward(NULL, NULL, false), TSR_ERR_INVALID_ARGUMENT, "root is NULL");
  tsr_tensor* all[] = {x, e, z, wrong, v, g};
  for (int k = 0; k < 6; ++k) tsr_tensor_release(all[k]);
}

Test(autograd, root_without_grad) {
  const double v[] = {1, 2, 3};
  tsr_tensor *x = vec(v, 3, TSR_FLOAT32, false), *s;
  TSR_ASSERT_OK(tsr_sum(x, 0, NULL, false, &s));
  TSR_ASSERT_FAILS(tsr_backward(s, NULL, false), TSR_ERR_AUTOGRAD,
                   "element 0 of tensors does not require grad and does not have a grad_fn");
  cr_expect_null(grad_of(x));
  tsr_tensor_release(s);
  tsr_tensor_release(x);
}

/* A saved tensor written in place (under no_grad, so the write itself is
 * allowed) fails backward with torch's message, and no .grad changes: not
 * x's earlier one, not x2's, whose gradient is computed before the failure. */
Test(autograd, modified_saved_tensor) {
  const double v[] = {0.5, -1, 2}, one[] = {1, 1, 1};
  tsr_tensor *x = vec(v, 3, TSR_FLOAT32, true), *x2 = vec(v, 3, TSR_FLOAT32, true);
  tsr_tensor* prior = vec(one, 3, TSR_FLOAT32, false);
  TSR_ASSERT_OK(tsr_set_grad(x, prior));
  tsr_tensor *a, *s1, *b, *s2, *loss;
  TSR_ASSERT_OK(tsr_exp(x, &a));             /* ExpBackward0 saves its result a */
  TSR_ASSERT_OK(tsr_sum(a, 0, NULL, false, &s1));
  TSR_ASSERT_OK(tsr_mul_scalar(x2, 3.0, &b));
  TSR_ASSERT_OK(tsr_sum(b, 0, NULL, false, &s2));
  TSR_ASSERT_OK(tsr_add(s1, s2, &loss));
  bool prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_add_(a, prior, 1.0));
  tsr_set_grad_enabled(prev);
  cr_expect_eq(tsr_version(a), 1);
  /* torch: "one of the variables needed for gradient computation has been
   * modified by an inplace operation: [torch.FloatTensor [3]], which is
   * output 0 of ExpBackward0, is at version 1; expected version 0 instead." */
  TSR_ASSERT_FAILS(tsr_backward(loss, NULL, true), TSR_ERR_AUTOGRAD,
                   "one of the variables needed for gradient computation has been modified by an "
                   "inplace operation");
  cr_expect(strstr(tsr_last_error_message(),
                   "which is output 0 of ExpBackward0, is at version 1; expected version 0 "
                   "instead") != NULL,
            "%s", tsr_last_error_message());
  tsr_tensor* g = grad_of(x);
  cr_expect_eq(tsr_tensor_data_ptr(g), tsr_tensor_data_ptr(prior),
               "x.grad is still the tensor set before");
  expect_values(g, one, 3, "x.grad");
  tsr_tensor_release(g);
  cr_expect_null(grad_of(x2), "x2.grad untouched although its branch ran first");

  /* A saved leaf that does not require grad (w in x * w) may be written in
   * grad mode; backward then fails the same way (torch: "[torch.FloatTensor
   * [3]] is at version 1; expected version 0 instead."). */
  tsr_tensor *w = vec(v, 3, TSR_FLOAT32, false), *xw, *s3;
  TSR_ASSERT_OK(tsr_mul(x2, w, &xw));
  TSR_ASSERT_OK(tsr_sum(xw, 0, NULL, false, &s3));
  TSR_ASSERT_OK(tsr_mul_scalar_(w, 2.0));
  TSR_ASSERT_FAILS(tsr_backward(s3, NULL, false), TSR_ERR_AUTOGRAD,
                   "is at version 1; expected version 0 instead");
  cr_expect_null(grad_of(x2));
  tsr_tensor* all[] = {x, x2, prior, a, s1, b, s2, loss, w, xw, s3};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

/* One SGD step, as an optimizer does it: backward, then w -= lr * grad
 * under no_grad; w stays a leaf. */
Test(autograd, sgd_step) {
  tsr_tensor *w = vec(sc_sgd_w, 4, TSR_FLOAT32, true), *t = vec(sc_sgd_t, 4, TSR_FLOAT32, false);
  tsr_tensor *d, *sq, *loss;
  TSR_ASSERT_OK(tsr_sub(w, t, &d));
  TSR_ASSERT_OK(tsr_mul(d, d, &sq));
  TSR_ASSERT_OK(tsr_mean(sq, 0, NULL, false, &loss));
  cr_expect_str_eq(tsr_grad_fn_name(loss), "MeanBackward0");
  TSR_ASSERT_OK(tsr_backward(loss, NULL, false));
  tsr_tensor* g = grad_of(w);
  expect_values(g, sc_sgd_grad, 4, "w.grad");
  bool prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_add_(w, g, -0.1));
  tsr_set_grad_enabled(prev);
  expect_values(w, sc_sgd_w_after, 4, "w after the step");
  cr_expect(tsr_is_leaf(w) && tsr_requires_grad(w));
  tsr_tensor* all[] = {w, t, d, sq, loss, g};
  for (int k = 0; k < 6; ++k) tsr_tensor_release(all[k]);
}

/* The in-place error names the op that produced the saved tensor, as torch:
 * "[..], which is output 0 of ExpBackward0, is at version 1" for exp's saved
 * result, and no such clause for a leaf (a plain input x of w * x). */
Test(autograd_messages, modified_saved_tensor_names_its_producer) {
  const int64_t s[1] = {3};
  tsr_tensor *w, *x, *y, *ys, *a, *e, *es;
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_OK(tsr_mul(w, x, &y));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &ys));
  bool prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_add_scalar(x, 1.0, &a)); /* not in place: keep x's version */
  TSR_ASSERT_OK(tsr_fill_(x, 2.0));
  tsr_set_grad_enabled(prev);
  TSR_ASSERT_FAILS(tsr_backward(ys, NULL, false), TSR_ERR_AUTOGRAD,
                   "[float32 [3]] is at version 1; expected version 0 instead.");
  cr_assert_null(strstr(tsr_last_error_message(), "which is output"));

  tsr_tensor_release(a);
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_set_requires_grad(a, true));
  TSR_ASSERT_OK(tsr_exp(a, &e));
  TSR_ASSERT_OK(tsr_sum(e, 0, NULL, false, &es));
  prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_mul_scalar_(e, 2.0));
  tsr_set_grad_enabled(prev);
  TSR_ASSERT_FAILS(tsr_backward(es, NULL, false), TSR_ERR_AUTOGRAD,
                   "[float32 [3]], which is output 0 of ExpBackward0, is at version 1; expected "
                   "version 0 instead.");
  tsr_tensor* all[] = {w, x, y, ys, a, e, es};
  for (int i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
}

/* torch: (x + 2).sum() can be backwarded twice (nothing saved; x.grad
 * accumulates to [2, 2]), (x * 2).sum() cannot (mul saves the scalar). */
Test(autograd_messages, second_backward_through_scalar_ops_like_torch) {
  const int64_t s[1] = {2};
  tsr_tensor *x, *y, *ys, *g;
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_add_scalar(x, 2.0, &y));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &ys));
  TSR_ASSERT_OK(tsr_backward(ys, NULL, false));
  TSR_ASSERT_OK(tsr_backward(ys, NULL, false));
  TSR_ASSERT_OK(tsr_grad(x, &g));
  const int64_t i0[1] = {0};
  double v = 0;
  TSR_ASSERT_OK(tsr_get_double(g, 1, i0, &v));
  cr_assert_eq(v, 2.0);
  tsr_tensor_release(g);
  tsr_tensor_release(ys);
  tsr_tensor_release(y);

  TSR_ASSERT_OK(tsr_mul_scalar(x, 2.0, &y));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &ys));
  TSR_ASSERT_OK(tsr_backward(ys, NULL, false));
  TSR_ASSERT_FAILS(tsr_backward(ys, NULL, false), TSR_ERR_AUTOGRAD,
                   "Trying to backward through the graph a second time");
  TSR_ASSERT_OK(tsr_grad(x, &g));
  TSR_ASSERT_OK(tsr_get_double(g, 1, i0, &v));
  cr_assert_eq(v, 4.0, "the failed second backward changed .grad: %g", v);
  tsr_tensor_release(g);
  tsr_tensor_release(ys);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}
