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
  expect_no_grad(x);
  expect_filled(c, 1);
  expect_filled(x, 2);
  expect_filled(y, 3);
  tsr_tensor* all[] = {c, cf, ci, x, y};
  for (size_t k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

/* ---- index_select, gather, embedding ----------------------------------------- */

typedef struct {
  tsr_tensor *isel, *gidx, *emb; /* [3] int64, [2,3] int64, [2,2] int32 */
} index_ctx;

/* index_select of a transposed x, gather of an expanded v, embedding of a
 * narrowed weight; repeated indices everywhere. */
static tsr_tensor* f_index(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const index_ctx* c = ctx;
  tsr_tensor *x = in[0], *v = in[1], *W = in[2];
  const int64_t s23[] = {2, 3};
  tsr_tensor* a = T(tsr_index_select(T(tsr_t(x, &o_)), 0, c->isel, &o_));      /* [3,3] */
  tsr_tensor* b = T(tsr_gather(T(tsr_expand(v, 2, s23, &o_)), 1, c->gidx, &o_)); /* [2,3] */
  tsr_tensor* e = T(tsr_embedding(T(tsr_narrow(W, 0, 1, 3, &o_)), c->emb, &o_)); /* [2,2,3] */
  tsr_tensor* s = T(tsr_sum(e, 1, (const int64_t[]){1}, false, &o_));            /* [2,3] */
  return T(tsr_matmul(T(tsr_mul(b, s, &o_)), a, &o_));                           /* [2,3] */
}

Test(indexing, gradcheck_index_ops) {
  const int64_t sx[] = {3, 4}, sv[] = {3}, sW[] = {5, 3}, s3[] = {3}, s23[] = {2, 3}, s22[] = {2, 2};
  const int64_t iv[] = {2, 0, 2}, gv[] = {0, 2, 2, 1, 1, 1}, ev[] = {2, 0, 2, 2};
  index_ctx c = {int_tensor(iv, 1, s3, TSR_INT64), int_tensor(gv, 2, s23, TSR_INT64),
                 int_tensor(ev, 2, s22, TSR_INT32)};
  tsr_tensor* in[] = {tg_leaf(2, sx, 61, 1, 0), tg_leaf(1, sv, 62, 1, 0), tg_leaf(2, sW, 63, 1, 0)};
  cr_expect_eq(tg_gradcheck("index ops", f_index, 3, in, &c), 12 + 3 + 15);
  for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
  tsr_tensor_release(c.isel);
  tsr_tensor_release(c.gidx);
  tsr_tensor_release(c.emb);
}

Test(indexing, index_select_errors) {
  const int64_t s34[] = {3, 4}, s2[] = {2}, s11[] = {1, 1}, s04[] = {0, 4}, s1[] = {1};
  const int64_t oob[] = {0, 3}, neg[] = {1, -1}, ok[] = {0, 2}, one[] = {0};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *i_oob = int_tensor(oob, 1, s2, TSR_INT64),
             *i_neg = int_tensor(neg, 1, s2, TSR_INT32), *i_2d = int_tensor(one, 2, s11, TSR_INT64),
             *i_f = filled(1, s2, TSR_FLOAT32, 0), *i_ok = int_tensor(ok, 1, s2, TSR_INT64),
             *e = filled(2, s04, TSR_FLOAT32, 1), *i_one = int_tensor(one, 1, s1, TSR_INT64),
             *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  /* torch: IndexError "index out of range in self" */
  TSR_ASSERT_FAILS(tsr_index_select(x, 0, i_oob, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index out of range in self");
  TSR_ASSERT_FAILS(tsr_index_select(x, 0, i_oob, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 3 (at position 1) is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_index_select(x, 1, i_neg, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index out of range in self: index -1");
  TSR_ASSERT_FAILS(tsr_index_select(e, 0, i_one, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index_select(): self indexing axis dim should be positive");
  TSR_ASSERT_FAILS(tsr_index_select(x, 0, i_2d, &out), TSR_ERR_SHAPE_MISMATCH,
                   "index_select(): Index is supposed to be a vector");
  TSR_ASSERT_FAILS(tsr_index_select(x, 0, i_f, &out), TSR_ERR_DTYPE_MISMATCH,
                   "index_select(): Expected dtype int32 or int64 for index");
  TSR_ASSERT_FAILS(tsr_index_select(x, 2, i_ok, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_index_select(NULL, 0, i_ok, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_index_select(x, 0, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "index is NULL");
  TSR_ASSERT_FAILS(tsr_index_select(x, 0, i_ok, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  tsr_tensor* all[] = {x, i_oob, i_neg, i_2d, i_f, i_ok, e, i_one};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

Test(indexing, gather_errors) {
  const int64_t s34[] = {3, 4}, s12[] = {1, 2}, s2[] = {2}, s42[] = {4, 2};
  const int64_t oob[] = {0, 4}, neg[] = {0, -1}, ok[] = {0, 1}, big[] = {9, 9, 9, 9, 9, 9, 9, 9};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *i_oob = int_tensor(oob, 2, s12, TSR_INT64),
             *i_neg = int_tensor(neg, 2, s12, TSR_INT64), *i_1d = int_tensor(ok, 1, s2, TSR_INT64),
             *i_big = int_tensor(big, 2, s42, TSR_INT64), *i_32 = int_tensor(ok, 2, s12, TSR_INT32),
             *i_ok = int_tensor(ok, 2, s12, TSR_INT64), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_FAILS(tsr_gather(x, 1, i_oob, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 4 is out of bounds for dimension 1 with size 4");
  TSR_ASSERT_FAILS(tsr_gather(x, -1, i_neg, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index -1 is out of bounds for dimension 1 with size 4");
  TSR_ASSERT_FAILS(tsr_gather(x, 1, i_1d, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Index tensor must have the same number of dimensions as input tensor");
  /* The sizes are checked before the (also bad) values, as torch. */
  TSR_ASSERT_FAILS(tsr_gather(x, 1, i_big, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Size does not match at dimension 0 expected index [4, 2] to be smaller than "
                   "self [3, 4] apart from dimension 1");
  TSR_ASSERT_FAILS(tsr_gather(x, 1, i_32, &out), TSR_ERR_DTYPE_MISMATCH,
                   "gather(): Expected dtype int64 for index");
  TSR_ASSERT_FAILS(tsr_gather(x, 2, i_ok, &out), TSR_ERR_INVALID_ARGUMENT, "Dimension out of range");
  TSR_ASSERT_FAILS(tsr_gather(NULL, 1, i_ok, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_gather(x, 1, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "index is NULL");
  TSR_ASSERT_FAILS(tsr_gather(x, 1, i_ok, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  tsr_tensor* all[] = {x, i_oob, i_neg, i_1d, i_big, i_32, i_ok};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

Test(indexing, embedding_errors) {
  const int64_t s53[] = {5, 3}, s5[] = {5}, s533[] = {5, 3, 3}, s2[] = {2};
  const int64_t oob[] = {0, 5}, neg[] = {-1, 0}, ok[] = {4, 0};
  tsr_tensor *W = filled(2, s53, TSR_FLOAT32, 1), *W1 = filled(1, s5, TSR_FLOAT32, 1),
             *W3 = filled(3, s533, TSR_FLOAT32, 1), *i_oob = int_tensor(oob, 1, s2, TSR_INT64),
             *i_neg = int_tensor(neg, 1, s2, TSR_INT32), *i_f = filled(1, s2, TSR_FLOAT32, 0),
             *i_ok = int_tensor(ok, 1, s2, TSR_INT64), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(W, true));
  TSR_ASSERT_FAILS(tsr_embedding(W, i_oob, &out), TSR_ERR_INDEX_OUT_OF_RANGE, "index out of range in self");
  TSR_ASSERT_FAILS(tsr_embedding(W, i_oob, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 5 (at position 1) is out of bounds for dimension 0 with size 5");
  TSR_ASSERT_FAILS(tsr_embedding(W, i_neg, &out), TSR_ERR_INDEX_OUT_OF_RANGE, "index out of range in self");
  TSR_ASSERT_FAILS(tsr_embedding(W1, i_ok, &out), TSR_ERR_SHAPE_MISMATCH, "'weight' must be 2-D");
  TSR_ASSERT_FAILS(tsr_embedding(W3, i_ok, &out), TSR_ERR_SHAPE_MISMATCH, "'weight' must be 2-D");
  TSR_ASSERT_FAILS(tsr_embedding(W, i_f, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Expected tensor for argument #1 'indices' to have one of the following scalar "
                   "types: Long, Int; but got Float");
  TSR_ASSERT_FAILS(tsr_embedding(NULL, i_ok, &out), TSR_ERR_INVALID_ARGUMENT, "weight is NULL");
  TSR_ASSERT_FAILS(tsr_embedding(W, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "indices is NULL");
  TSR_ASSERT_FAILS(tsr_embedding(W, i_ok, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(W);
  cr_expect(tsr_is_leaf(W));
  expect_filled(W, 1);
  const double want_oob[] = {0, 5};
  tg_expect_unchanged(i_oob, want_oob, 2);
  tsr_tensor* all[] = {W, W1, W3, i_oob, i_neg, i_f, i_ok};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}
