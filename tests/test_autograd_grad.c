/* torch.autograd.grad (tsr_autograd_grad) with create_graph for higher-order
 * gradients, and the autograd defects fixed with the primitives rewrite:
 * neg's second backward, as_strided's backward on any input geometry,
 * locked accumulation into a shared leaf, split's grad_fn. Expected values
 * come from PyTorch 1.13 (the script in each test's comment). */
#include <math.h>
#include <pthread.h>

#include "helpers.h"

static tsr_tensor* f64_vector(int64_t n, double start) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_arange(start, start + (double)n, 1, TSR_FLOAT64, TSR_CPU, &t));
  return t;
}

static void assert_values(const tsr_tensor* t, int64_t n, const double* expected) {
  cr_assert_eq(tsr_tensor_numel(t), n);
  double got[16];
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, got, sizeof got, NULL));
  for (int64_t i = 0; i < n; ++i)
    cr_assert_float_eq(got[i], expected[i], 1e-12, "element %lld: %g, expected %g", (long long)i, got[i],
                       expected[i]);
}

static tsr_tensor* sum_all(const tsr_tensor* t) {
  tsr_tensor* s;
  TSR_ASSERT_OK(tsr_sum(t, 0, NULL, false, &s));
  return s;
}

/* x = [1,2,3]; y = sum(x*x*x); dy/dx = 3x^2; d(sum dy/dx)/dx = 6x. */
Test(autograd_grad, second_derivative_through_create_graph) {
  tsr_tensor *x = f64_vector(3, 1), *x2, *x3, *y;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_mul(x, x, &x2));
  TSR_ASSERT_OK(tsr_mul(x2, x, &x3));
  y = sum_all(x3);
  tsr_tensor* g[1];
  TSR_ASSERT_OK(tsr_autograd_grad(1, &y, NULL, 1, &x, true, true, false, g));
  const double first[] = {3, 12, 27};
  assert_values(g[0], 3, first);
  cr_assert(tsr_requires_grad(g[0]), "create_graph gives gradients with history");
  tsr_tensor* gs = sum_all(g[0]);
  tsr_tensor* gg[1];
  TSR_ASSERT_OK(tsr_autograd_grad(1, &gs, NULL, 1, &x, false, false, false, gg));
  const double second[] = {6, 12, 18};
  assert_values(gg[0], 3, second);
  cr_assert(!tsr_requires_grad(gg[0]));
  tsr_tensor* xg;
  TSR_ASSERT_OK(tsr_grad(x, &xg));
  cr_assert_null(xg, "autograd.grad must not write .grad");
  tsr_tensor* all[] = {x, x2, x3, y, g[0], gs, gg[0]};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* Third order through exp and a broadcast division: d3/dx3 sum(exp(x)/2) = exp(x)/2. */
Test(autograd_grad, third_derivative_of_exp_divided_by_broadcast) {
  tsr_tensor *x = f64_vector(3, 0), *e, *two, *q, *y;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_full(0, NULL, 2.0, TSR_FLOAT64, TSR_CPU, &two));
  TSR_ASSERT_OK(tsr_exp(x, &e));
  TSR_ASSERT_OK(tsr_div(e, two, &q));
  y = sum_all(q);
  tsr_tensor* cur = y;
  tsr_tensor* made[3];
  for (int order = 0; order < 3; ++order) {
    tsr_tensor* g[1];
    TSR_ASSERT_OK(tsr_autograd_grad(1, &cur, NULL, 1, &x, true, true, false, g));
    made[order] = g[0];
    if (order < 2) cur = sum_all(g[0]);
    if (order == 1) tsr_tensor_release(made[0]), made[0] = NULL;
  }
  const double expected[] = {0.5, 0.5 * 2.718281828459045, 0.5 * 7.38905609893065};
  assert_values(made[2], 3, expected);
  tsr_tensor_release(made[1]);
  tsr_tensor_release(made[2]);
  tsr_tensor_release(cur);
  tsr_tensor* all[] = {x, e, two, q, y};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* torch: a = x * 2; y = (a * a).sum(); grad(y, [a, x]) = (2a, 8x). */
Test(autograd_grad, non_leaf_inputs_and_grad_outputs) {
  tsr_tensor *x = f64_vector(3, 1), *a, *aa, *y;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_mul_scalar(x, 2, &a));
  TSR_ASSERT_OK(tsr_mul(a, a, &aa));
  y = sum_all(aa);
  tsr_tensor* ins[] = {a, x};
  tsr_tensor* g[2];
  TSR_ASSERT_OK(tsr_autograd_grad(1, &y, NULL, 2, ins, true, false, false, g));
  const double ga[] = {4, 8, 12}, gx[] = {8, 16, 24};
  assert_values(g[0], 3, ga);
  assert_values(g[1], 3, gx);
  tsr_tensor_release(g[0]);
  tsr_tensor_release(g[1]);
  /* A non-scalar output with grad_outputs: d(aa)/dx weighted by w = 8 x w. */
  tsr_tensor* w = f64_vector(3, 10);
  const tsr_tensor* gos[] = {w};
  TSR_ASSERT_OK(tsr_autograd_grad(1, &aa, gos, 1, &x, false, false, false, g));
  const double gw[] = {80, 176, 288};
  assert_values(g[0], 3, gw);
  tsr_tensor_release(g[0]);
  tsr_tensor* all[] = {x, a, aa, y, w};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

Test(autograd_grad, unused_inputs_and_misuse) {
  tsr_tensor *x = f64_vector(2, 1), *z = f64_vector(2, 5), *c = f64_vector(2, 0), *y;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_set_requires_grad(z, true));
  tsr_tensor* xx;
  TSR_ASSERT_OK(tsr_mul(x, x, &xx));
  y = sum_all(xx);
  tsr_tensor* ins[] = {x, z};
  tsr_tensor* g[2] = {SENTINEL, SENTINEL};
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &y, NULL, 2, ins, true, false, false, g), TSR_ERR_AUTOGRAD,
                   "appears to not have been used in the graph. Set allow_unused=True");
  cr_assert(g[0] == SENTINEL && g[1] == SENTINEL);
  TSR_ASSERT_OK(tsr_autograd_grad(1, &y, NULL, 2, ins, true, false, true, g));
  const double gx[] = {2, 4};
  assert_values(g[0], 2, gx);
  cr_assert_null(g[1]);
  tsr_tensor_release(g[0]);
  g[0] = SENTINEL;
  tsr_tensor* bad[] = {x, c};
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &y, NULL, 2, bad, true, false, true, g), TSR_ERR_AUTOGRAD,
                   "One of the differentiated Tensors does not require grad");
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &c, NULL, 1, &x, true, false, true, g), TSR_ERR_AUTOGRAD,
                   "element 0 of tensors does not require grad");
  TSR_ASSERT_FAILS(tsr_autograd_grad(0, &y, NULL, 1, &x, true, false, true, g), TSR_ERR_INVALID_ARGUMENT,
                   "must be >= 1");
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &y, NULL, 1, &x, true, false, true, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "grads is NULL");
  const tsr_tensor* wrong[] = {x};  /* [2] for a 0-dim output */
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &y, wrong, 1, &x, true, false, true, g), TSR_ERR_SHAPE_MISMATCH,
                   "Mismatch in shape");
  cr_assert(g[0] == SENTINEL);
  /* Without retain_graph the saved tensors go: a second call fails as backward does. */
  TSR_ASSERT_OK(tsr_autograd_grad(1, &y, NULL, 1, &x, false, false, false, g));
  tsr_tensor_release(g[0]);
  TSR_ASSERT_FAILS(tsr_autograd_grad(1, &y, NULL, 1, &x, false, false, false, g), TSR_ERR_AUTOGRAD,
                   "backward through the graph a second time");
  tsr_tensor* all[] = {x, z, c, xx, y};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* ---- defects fixed with the primitives rewrite ---------------------------- */

/* neg saves nothing, so a second backward through it (retain_graph) works. */
Test(autograd_defects, second_backward_through_neg) {
  tsr_tensor *x = f64_vector(2, 1), *n, *y, *g;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_neg(x, &n));
  y = sum_all(n);
  TSR_ASSERT_OK(tsr_backward(y, NULL, true));
  TSR_ASSERT_OK(tsr_backward(y, NULL, false));
  TSR_ASSERT_OK(tsr_backward(y, NULL, false)); /* nothing saved, nothing freed: torch allows it too */
  TSR_ASSERT_OK(tsr_grad(x, &g));
  const double expected[] = {-3, -3};
  assert_values(g, 2, expected);
  tsr_tensor* all[] = {x, n, y, g};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* x: arange(n) float64 leaf; v = view(x) as given; y = v.as_strided(...);
 * (y * weights).sum().backward(); x.grad compared with torch's. */
static void check_as_strided_grad(tsr_tensor* x, tsr_tensor* v, int64_t nd, const int64_t* sizes,
                                  const int64_t* strides, int64_t offset, const double* weights,
                                  const double* expected) {
  tsr_tensor *y, *w, *yw, *s, *g;
  TSR_ASSERT_OK(tsr_as_strided(v, nd, sizes, strides, offset, &y));
  TSR_ASSERT_OK(tsr_from_data(weights, (size_t)tsr_tensor_numel(y) * sizeof(double), nd, sizes, TSR_FLOAT64,
                              &w));
  TSR_ASSERT_OK(tsr_mul(y, w, &yw));
  s = sum_all(yw);
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  TSR_ASSERT_OK(tsr_grad(x, &g));
  assert_values(g, tsr_tensor_numel(x), expected);
  tsr_tensor* all[] = {y, w, yw, s, g};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* torch:
 *   x = torch.arange(6.).requires_grad_(); x.view(2,3).t().as_strided([1],[1],1).sum().backward()
 *     -> [0,1,0,0,0,0]
 *   x[0:2].as_strided([4],[1],0) weighted [1,2,3,4]  -> [1,2,0,0,0,0]
 *   x[2:5].as_strided([3],[1],1) weighted [1,2,3]    -> [0,0,2,3,0,0]
 *   x3 = arange(3); x3.expand(2,3).as_strided([2,2],[1,1],0) weighted [[1,2],[3,4]] -> [1,5,4] */
Test(autograd_defects, as_strided_backward_on_any_input_geometry) {
  const int64_t one[] = {1}, unit[] = {1}, two3[] = {2, 3}, four[] = {4}, three[] = {3};
  const double w1[] = {1}, w4[] = {1, 2, 3, 4}, w3[] = {1, 2, 3};
  {
    tsr_tensor *x = f64_vector(6, 0), *v, *t;
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_view(x, 2, two3, &v));
    TSR_ASSERT_OK(tsr_t(v, &t));
    const double e[] = {0, 1, 0, 0, 0, 0};
    check_as_strided_grad(x, t, 1, one, unit, 1, w1, e);
    tsr_tensor_release(t);
    tsr_tensor_release(v);
    tsr_tensor_release(x);
  }
  {
    tsr_tensor *x = f64_vector(6, 0), *n;
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_narrow(x, 0, 0, 2, &n));
    const double e[] = {1, 2, 0, 0, 0, 0};
    check_as_strided_grad(x, n, 1, four, unit, 0, w4, e);
    tsr_tensor_release(n);
    tsr_tensor_release(x);
  }
  {
    tsr_tensor *x = f64_vector(6, 0), *n;
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_narrow(x, 0, 2, 3, &n));
    const double e[] = {0, 0, 2, 3, 0, 0};
    check_as_strided_grad(x, n, 1, three, unit, 1, w3, e);
    tsr_tensor_release(n);
    tsr_tensor_release(x);
  }
  {
    tsr_tensor *x = f64_vector(3, 0), *e2;
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_expand(x, 2, two3, &e2));
    const int64_t s22[] = {2, 2}, st11[] = {1, 1};
    const double e[] = {1, 5, 4};
    check_as_strided_grad(x, e2, 2, s22, st11, 0, w4, e);
    tsr_tensor_release(e2);
    tsr_tensor_release(x);
  }
}

enum { THREADS = 4, ROUNDS = 500 };

static void* backward_many(void* arg) {
  tsr_tensor* w = arg;
  for (int i = 0; i < ROUNDS; ++i) {
    tsr_tensor *y, *s;
    if (tsr_mul_scalar(w, 1.0, &y) != TSR_OK) return "mul";
    if (tsr_sum(y, 0, NULL, false, &s) != TSR_OK) return "sum";
    if (tsr_backward(s, NULL, false) != TSR_OK) return "backward";
    tsr_tensor_release(s);
    tsr_tensor_release(y);
  }
  return NULL;
}

/* PyTorch locks AccumulateGrad: concurrent backwards into one leaf lose no update. */
Test(autograd_defects, concurrent_backward_into_one_leaf_loses_no_update) {
  const int64_t n = 64;
  tsr_tensor *w, *g;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT64, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; ++i) cr_assert_eq(pthread_create(&th[i], NULL, backward_many, w), 0);
  for (int i = 0; i < THREADS; ++i) {
    void* err;
    pthread_join(th[i], &err);
    cr_assert_null(err, "a thread failed in %s", (const char*)err);
  }
  TSR_ASSERT_OK(tsr_grad(w, &g));
  for (int64_t i = 0; i < n; ++i) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(g, 1, &i, &v));
    cr_assert_eq(v, (double)(THREADS * ROUNDS), "element %lld: %g of %d updates", (long long)i, v,
                 THREADS * ROUNDS);
  }
  tsr_tensor_release(g);
  tsr_tensor_release(w);
}

/* torch 1.13: x.split(2, 1) and x.chunk(2, 0) pieces have grad_fn SplitBackward0. */
Test(autograd_defects, split_and_chunk_pieces_are_split_backward) {
  const int64_t sizes[] = {3, 4};
  tsr_tensor *x, *pieces[4];
  int64_t count;
  TSR_ASSERT_OK(tsr_zeros(2, sizes, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_split(x, 3, 1, pieces, 4, &count));
  cr_assert_eq(count, 2);
  for (int i = 0; i < 2; ++i) {
    cr_assert_str_eq(tsr_grad_fn_name(pieces[i]), "SplitBackward0");
    tsr_tensor_release(pieces[i]);
  }
  TSR_ASSERT_OK(tsr_chunk(x, 2, 0, pieces, 4, &count));
  cr_assert_eq(count, 2);
  /* gradient of the second piece only: zeros flow to the first */
  tsr_tensor* s = sum_all(pieces[1]);
  TSR_ASSERT_OK(tsr_backward(s, NULL, false));
  tsr_tensor* g;
  TSR_ASSERT_OK(tsr_grad(x, &g));
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 4; ++c) {
      const int64_t at[] = {r, c};
      double v;
      TSR_ASSERT_OK(tsr_get_double(g, 2, at, &v));
      cr_assert_eq(v, r >= 2 ? 1.0 : 0.0);
    }
  cr_assert_str_eq(tsr_grad_fn_name(pieces[0]), "SplitBackward0");
  tsr_tensor* all[] = {x, pieces[0], pieces[1], s, g};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* ---- second derivatives of the activation primitives ----------------------
 * g(x) = d/dx sum(f(x)) through tsr_autograd_grad(create_graph); then
 * d/dx sum(g(x)) = f''(x) is compared with central differences of g,
 * (g(x+h) - g(x-h)) / 2h, in float64: torch.autograd.gradgradcheck's test. */

typedef tsr_status (*unary_fn)(const tsr_tensor* x, tsr_tensor** out);

static tsr_status gelu_none(const tsr_tensor* x, tsr_tensor** out) { return tsr_gelu(x, TSR_GELU_NONE, out); }
static tsr_status gelu_tanh(const tsr_tensor* x, tsr_tensor** out) { return tsr_gelu(x, TSR_GELU_TANH, out); }
static tsr_status cube(const tsr_tensor* x, tsr_tensor** out) { return tsr_pow_scalar(x, 3.0, out); }
static tsr_status softmax0(const tsr_tensor* x, tsr_tensor** out) { return tsr_softmax(x, 0, out); }
static tsr_status log_softmax0(const tsr_tensor* x, tsr_tensor** out) { return tsr_log_softmax(x, 0, out); }

/* g = d/dx sum(w * f(x)) (w breaks the symmetry of softmax's sum); with
 * create_graph when `graph`. */
static tsr_tensor* first_derivative(unary_fn f, tsr_tensor* x, bool graph) {
  const double wv[] = {0.3, -1.1, 0.7, 2.0, -0.4};
  const int64_t n = 5;
  tsr_tensor *w, *y, *yw, *s, *g[1];
  TSR_ASSERT_OK(tsr_from_data(wv, sizeof wv, 1, &n, TSR_FLOAT64, &w));
  TSR_ASSERT_OK(f(x, &y));
  TSR_ASSERT_OK(tsr_mul(y, w, &yw));
  TSR_ASSERT_OK(tsr_sum(yw, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s, NULL, 1, &x, graph, graph, false, g));
  tsr_tensor* all[] = {w, y, yw, s};
  for (int i = 0; i < 4; ++i) tsr_tensor_release(all[i]);
  return g[0];
}

static double g_at(unary_fn f, const double* xv, int64_t i, double shift, int64_t k) {
  double v[5];
  memcpy(v, xv, sizeof v);
  v[i] += shift;
  const int64_t n = 5;
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 1, &n, TSR_FLOAT64, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_tensor* g = first_derivative(f, x, false);
  double out;
  TSR_ASSERT_OK(tsr_get_double(g, 1, &k, &out));
  tsr_tensor_release(g);
  tsr_tensor_release(x);
  return out;
}

Test(autograd_grad, second_derivatives_match_finite_differences) {
  struct { const char* name; unary_fn f; } fs[] = {
      {"tanh", tsr_tanh}, {"sigmoid", tsr_sigmoid}, {"gelu", gelu_none}, {"gelu tanh", gelu_tanh},
      {"pow 3", cube}, {"exp", tsr_exp}, {"log", tsr_log}, {"sqrt", tsr_sqrt},
      {"softmax", softmax0}, {"log_softmax", log_softmax0}, {"relu", tsr_relu}};
  const double xv[] = {0.4, 1.3, 0.9, 2.1, 0.25};  /* > 0 for log/sqrt, away from relu's kink */
  const int64_t n = 5;
  const double h = 1e-6;
  for (size_t c = 0; c < sizeof fs / sizeof *fs; ++c) {
    tsr_tensor *x, *gs, *hess[1];
    TSR_ASSERT_OK(tsr_from_data(xv, sizeof xv, 1, &n, TSR_FLOAT64, &x));
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    tsr_tensor* g = first_derivative(fs[c].f, x, true);
    cr_assert(tsr_requires_grad(g), "%s: create_graph gives a differentiable gradient", fs[c].name);
    TSR_ASSERT_OK(tsr_sum(g, 0, NULL, false, &gs));
    TSR_ASSERT_OK(tsr_autograd_grad(1, &gs, NULL, 1, &x, false, false, true, hess));
    for (int64_t i = 0; i < n; ++i) {
      /* d/dx_i sum_k g_k = sum_k (g_k(x + h e_i) - g_k(x - h e_i)) / 2h */
      double numeric = 0;
      for (int64_t k = 0; k < n; ++k)
        numeric += (g_at(fs[c].f, xv, i, h, k) - g_at(fs[c].f, xv, i, -h, k)) / (2 * h);
      double analytic = 0;
      if (hess[0]) TSR_ASSERT_OK(tsr_get_double(hess[0], 1, &i, &analytic));
      cr_expect(fabs(analytic - numeric) <= 1e-5 + 1e-3 * fabs(numeric),
                "%s: second derivative [%lld] = %.9g, finite differences %.9g", fs[c].name, (long long)i,
                analytic, numeric);
    }
    tsr_tensor_release(hess[0]);
    tsr_tensor_release(gs);
    tsr_tensor_release(g);
    tsr_tensor_release(x);
  }
}
