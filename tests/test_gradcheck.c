/* torch.autograd.gradcheck's test, in C: analytic gradients from backward
 * against central differences in float64 (eps 1e-6, atol 1e-5, rtol 1e-3),
 * for one scalar function that uses every differentiable op and view of the
 * C API. Inputs come from a seeded generator, away from the kinks of relu
 * and max with probability ~1. */
#include <stdint.h>
#include <stdlib.h>

#include "helpers.h"
#include "ops_program.h"

#define EPS 1e-6
#define ATOL 1e-5
#define RTOL 1e-3

/* Every intermediate of one evaluation, released together. */
typedef struct {
  tsr_tensor* t[256];
  int n;
} arena;

static tsr_tensor* keep(arena* ar, tsr_tensor* t) {
  cr_assert(ar->n < 256);
  ar->t[ar->n++] = t;
  return t;
}

/* Runs `call`, which writes its result to o_, and keeps the result. */
#define T(call)                 \
  ({                            \
    tsr_tensor* o_ = NULL;      \
    TSR_ASSERT_OK(call);        \
    keep(ar, o_);               \
  })

static void release_all(arena* ar) {
  for (int i = 0; i < ar->n; ++i) tsr_tensor_release(ar->t[i]);
  ar->n = 0;
}

enum { NIN = 4 };

/* f(A[3,4], B[4,3], c[3] > 0, W[2,3,4]; target[3]) -> 0-dim float64. */
static tsr_tensor* f(arena* ar, tsr_tensor* const* in, const tsr_tensor* target) {
  tsr_tensor *A = in[0], *B = in[1], *c = in[2], *W = in[3];
  /* Elementwise and matmul: h = (A B + c) * (A B + c)^T / exp(c)[:, None] */
  tsr_tensor* h = T(tsr_add(T(tsr_matmul(A, B, &o_)), c, &o_));
  tsr_tensor* h2 = T(tsr_mul(h, T(tsr_t(h, &o_)), &o_));
  tsr_tensor* h3 = T(tsr_div(h2, T(tsr_unsqueeze(T(tsr_exp(c, &o_)), 1, &o_)), &o_));
  /* relu(h3) + 0.5 h3, then softplus = log(exp(.) + 1) */
  tsr_tensor* h4 =
      T(tsr_sub(T(tsr_relu(h3, &o_)), T(tsr_mul_scalar(T(tsr_neg(h3, &o_)), 0.5, &o_)), &o_));
  tsr_tensor* sp = T(tsr_log(T(tsr_add_scalar(T(tsr_exp(h4, &o_)), 1.0, &o_)), &o_));
  const int64_t d1[] = {1}, d0[] = {0}, dm1[] = {-1};
  tsr_tensor* r1 = T(tsr_mean(sp, 1, d1, false, &o_));
  tsr_tensor* r2 = T(tsr_sum(sp, 1, d0, true, &o_));
  tsr_tensor* r3 = NULL;
  TSR_ASSERT_OK(tsr_max_dim(sp, 0, false, &r3, NULL));
  keep(ar, r3);

  /* Views of W and A. */
  const int64_t s64[] = {6, 4}, s23[] = {2, 3}, s43[] = {4, 3}, perm[] = {2, 0, 1}, src[] = {0},
                dst[] = {2}, asz[] = {3, 3}, ast[] = {2, 1}, flat[] = {-1};
  tsr_tensor* u = T(tsr_unfold(T(tsr_flatten(A, 0, 1, &o_)), 0, 4, 2, &o_));   /* [5,4] */
  tsr_tensor* dg = T(tsr_diagonal(T(tsr_reshape(W, 2, s64, &o_)), 1, 0, 1, &o_));
  tsr_tensor* nw = T(tsr_narrow(W, 2, 1, 2, &o_));
  tsr_tensor* sl = T(tsr_slice(W, 1, 0, 3, 2, &o_));
  tsr_tensor* se = T(tsr_select(W, 0, -1, &o_));
  tsr_tensor* ex = T(tsr_expand(T(tsr_unsqueeze(c, 0, &o_)), 2, s43, &o_));
  tsr_tensor* pw = T(tsr_permute(W, 3, perm, &o_));
  tsr_tensor* as = T(tsr_as_strided(T(tsr_clone(A, TSR_CONTIGUOUS_FORMAT, &o_)), 2, asz, ast, 1,
                                    &o_));
  tsr_tensor* uf = T(tsr_unflatten(T(tsr_view(W, 2, s64, &o_)), 0, 2, s23, &o_));
  tsr_tensor* mv = T(tsr_movedim(W, 1, src, dst, &o_));
  tsr_tensor* sq = T(tsr_squeeze(T(tsr_unsqueeze(se, 0, &o_)), &o_));
  tsr_tensor* sqd = T(tsr_squeeze_dim(T(tsr_unsqueeze(c, 1, &o_)), 1, &o_));
  tsr_tensor* rc = T(tsr_reshape(T(tsr_transpose(W, 0, 2, &o_)), 1, flat, &o_)); /* copies */
  tsr_tensor* ct = T(tsr_contiguous(T(tsr_t(A, &o_)), TSR_CONTIGUOUS_FORMAT, &o_));

  /* Batched and 1-D matmul, log_softmax, cross_entropy, max. */
  tsr_tensor* bm = T(tsr_matmul(W, ct, &o_));                 /* [2,3,4]@[4,3] */
  tsr_tensor* vm = T(tsr_matmul(sqd, h, &o_));                /* [3]@[3,3] */
  tsr_tensor* ls = T(tsr_log_softmax(pw, -1, &o_));
  tsr_tensor* ce = T(tsr_cross_entropy(T(tsr_mul_scalar(A, 1.5, &o_)), target, &o_));
  tsr_tensor* mx = T(tsr_max(u, &o_));

  /* A scalar from all of them: sums of products so every view matters. */
  tsr_tensor* terms[] = {
      r1, r2, r3, T(tsr_mul(u, u, &o_)), dg, T(tsr_mul(nw, nw, &o_)), T(tsr_mul(sl, sl, &o_)),
      T(tsr_mul(ex, T(tsr_t(se, &o_)), &o_)), T(tsr_mul(se, sq, &o_)), T(tsr_mul(pw, ls, &o_)),
      T(tsr_mul(as, as, &o_)), T(tsr_mul(uf, uf, &o_)), T(tsr_mul(mv, mv, &o_)),
      T(tsr_mul(rc, rc, &o_)), T(tsr_mul_scalar(bm, 0.3, &o_)), vm, ce, mx};
  tsr_tensor* total = NULL;
  for (size_t i = 0; i < sizeof terms / sizeof terms[0]; ++i) {
    tsr_tensor* s = T(tsr_mean(terms[i], 1, dm1, false, &o_));
    s = T(tsr_sum(s, 0, NULL, false, &o_));
    total = total ? T(tsr_add(total, s, &o_)) : s;
  }
  return total;
}

static double eval(tsr_tensor* const* in, const tsr_tensor* target) {
  arena a = {.n = 0}, *ar = &a;
  bool prev = tsr_set_grad_enabled(false);
  double v;
  TSR_ASSERT_OK(tsr_item_double(f(ar, in, target), &v));
  tsr_set_grad_enabled(prev);
  release_all(ar);
  return v;
}

/* Flat index k of t as a multi-index. */
static void unravel(const tsr_tensor* t, int64_t k, int64_t* idx) {
  for (int64_t d = tsr_tensor_ndim(t) - 1; d >= 0; --d) {
    idx[d] = k % tsr_tensor_sizes(t)[d];
    k /= tsr_tensor_sizes(t)[d];
  }
}

Test(gradcheck, every_op_float64) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(1234, &g));
  const int64_t sA[] = {3, 4}, sB[] = {4, 3}, sc[] = {3}, sW[] = {2, 3, 4};
  const int64_t* sizes[NIN] = {sA, sB, sc, sW};
  const int64_t ndims[NIN] = {2, 2, 1, 3};
  tsr_tensor* in[NIN];
  for (int i = 0; i < NIN; ++i) {
    TSR_ASSERT_OK(tsr_randn(ndims[i], sizes[i], TSR_FLOAT64, g, &in[i]));
    if (i == 2) { /* c > 0: it goes through log via exp anyway, keep it tame */
      tsr_tensor* r;
      TSR_ASSERT_OK(tsr_rand(1, sc, TSR_FLOAT64, g, &r));
      tsr_tensor_release(in[i]);
      TSR_ASSERT_OK(tsr_add_scalar(r, 0.5, &in[i]));
      tsr_tensor_release(r);
    }
    TSR_ASSERT_OK(tsr_set_requires_grad(in[i], true));
  }
  const int64_t tv[] = {3, 0, 2}, nt = 3;
  tsr_tensor* target;
  TSR_ASSERT_OK(tsr_from_data(tv, sizeof tv, 1, &nt, TSR_INT64, &target));

  arena a = {.n = 0}, *ar = &a;
  tsr_tensor* y = f(ar, in, target);
  cr_assert_eq(tsr_tensor_ndim(y), 0);
  TSR_ASSERT_OK(tsr_backward(y, NULL, false));
  release_all(ar);

  int checked = 0;
  for (int i = 0; i < NIN; ++i) {
    tsr_tensor* grad;
    TSR_ASSERT_OK(tsr_grad(in[i], &grad));
    cr_assert_not_null(grad, "input %d has no grad", i);
    double* analytic = tg_values(grad);
    for (int64_t k = 0; k < tsr_tensor_numel(in[i]); ++k) {
      int64_t idx[8];
      unravel(in[i], k, idx);
      double x0;
      TSR_ASSERT_OK(tsr_get_double(in[i], ndims[i], idx, &x0));
      bool prev = tsr_set_grad_enabled(false); /* writes to a leaf need no_grad */
      TSR_ASSERT_OK(tsr_set_double(in[i], ndims[i], idx, x0 + EPS));
      tsr_set_grad_enabled(prev);
      double fp = eval(in, target);
      prev = tsr_set_grad_enabled(false);
      TSR_ASSERT_OK(tsr_set_double(in[i], ndims[i], idx, x0 - EPS));
      tsr_set_grad_enabled(prev);
      double fm = eval(in, target);
      prev = tsr_set_grad_enabled(false);
      TSR_ASSERT_OK(tsr_set_double(in[i], ndims[i], idx, x0));
      tsr_set_grad_enabled(prev);
      double numeric = (fp - fm) / (2 * EPS);
      cr_expect(fabs(analytic[k] - numeric) <= ATOL + RTOL * fabs(numeric),
                "input %d element %lld: analytic %.10g, numeric %.10g", i, (long long)k,
                analytic[k], numeric);
      ++checked;
    }
    free(analytic);
    tsr_tensor_release(grad);
  }
  cr_expect_eq(checked, 12 + 12 + 3 + 24);
  for (int i = 0; i < NIN; ++i) tsr_tensor_release(in[i]);
  tsr_tensor_release(target);
  tsr_generator_release(g);
}
