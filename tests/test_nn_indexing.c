/* tsr_where, tsr_index_select, tsr_gather and tsr_embedding against
 * PyTorch 1.13 (tests/golden/gen_nn.py): values, dtypes (promotion) and
 * strides; gradients (index_add / scatter_add) and grad_fn names; float64
 * gradcheck through views and broadcasting; every error path, out-of-range
 * indices included. */
#include <stdint.h>

#include "golden/nn_indexing_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(indexing, forward, tg_index_fwd, TG_INDEX_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(indexing, grads, tg_index_grad, TG_INDEX_GRAD_N) { tg_check_backward(c); }

static tsr_tensor* filled(int64_t ndim, const int64_t* sizes, tsr_dtype dtype, double v) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_full(ndim, sizes, v, dtype, TSR_CPU, &t));
  return t;
}

static void expect_filled(const tsr_tensor* t, double v) {
  cr_expect_eq(tsr_version(t), 0);
  double* got = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i) cr_expect_eq(got[i], v);
  free(got);
}

static tsr_tensor* int_tensor(const int64_t* v, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t i = 0; i < ndim; ++i) n *= sizes[i];
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(int64_t), ndim, sizes, TSR_INT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

/* ---- where ------------------------------------------------------------------ */

typedef struct {
  tsr_tensor* cond; /* [3,4] */
} where_ctx;

/* where(cond, x^T, v broadcast) * where(cond^T..., ) */
static tsr_tensor* f_where(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const where_ctx* w = ctx;
  tsr_tensor *x = in[0], *v = in[1], *s = in[2];
  tsr_tensor* a = T(tsr_where(w->cond, T(tsr_t(x, &o_)), v, &o_));   /* x^T [3,4], v [4] */
  tsr_tensor* b = T(tsr_where(w->cond, s, T(tsr_mul(a, a, &o_)), &o_)); /* s 0-dim */
  return T(tsr_add(a, b, &o_));
}

Test(indexing, gradcheck_where) {
  const int64_t sx[] = {4, 3}, sv[] = {4}, sc[] = {3, 4};
  const int64_t cv[] = {1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0};
  where_ctx w = {int_tensor(cv, 2, sc, TSR_BOOL)};
  tsr_tensor* in[] = {tg_leaf(2, sx, 51, 1, 0), tg_leaf(1, sv, 52, 1, 0), tg_leaf(0, NULL, 53, 1, 0)};
  cr_expect_eq(tg_gradcheck("where", f_where, 3, in, &w), 12 + 4 + 1);
  for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
  tsr_tensor_release(w.cond);
}

Test(indexing, where_errors) {
  const int64_t s34[] = {3, 4}, s5[] = {5};
  tsr_tensor *c = filled(2, s34, TSR_BOOL, 1), *cf = filled(2, s34, TSR_FLOAT32, 1),
             *ci = filled(2, s34, TSR_INT64, 1), *x = filled(2, s34, TSR_FLOAT32, 2),
             *y = filled(1, s5, TSR_FLOAT32, 3), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_FAILS(tsr_where(cf, x, x, &out), TSR_ERR_DTYPE_MISMATCH,
                   "where expected condition to be a boolean tensor, but got a tensor with dtype "
                   "Float");
  TSR_ASSERT_FAILS(tsr_where(ci, x, x, &out), TSR_ERR_DTYPE_MISMATCH, "dtype Long");
  TSR_ASSERT_FAILS(tsr_where(c, x, y, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
                   "dimension 1");
  TSR_ASSERT_FAILS(tsr_where(NULL, x, x, &out), TSR_ERR_INVALID_ARGUMENT, "cond is NULL");
  TSR_ASSERT_FAILS(tsr_where(c, NULL, x, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_where(c, x, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "b is NULL");
  TSR_ASSERT_FAILS(tsr_where(c, x, x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  tsr_tensor* g = SENTINEL;
  TSR_ASSERT_OK(tsr_grad(x, &g));
  cr_expect_null(g);
  expect_filled(c, 1);
  expect_filled(x, 2);
  expect_filled(y, 3);
  tsr_tensor* all[] = {c, cf, ci, x, y};
  for (size_t k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}
