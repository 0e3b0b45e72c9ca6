/* tsr_linear against PyTorch 1.13 (tests/golden/gen_nn.py): values and
 * strides for 1-D to 4-D inputs, transposed / sliced / expanded operands,
 * broadcast and 0-dim biases and empty sizes; gradients of x, weight and
 * bias with torch's grad_fn names (AddmmBackward0, ViewBackward0, ...);
 * float64 gradcheck through views; every error path. */
#include <stdint.h>

#include "golden/nn_linear_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(linear, forward, tg_linear_fwd, TG_LINEAR_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(linear, grads, tg_linear_grad, TG_LINEAR_GRAD_N) { tg_check_backward(c); }

/* ---- gradcheck ------------------------------------------------------------ */

/* linear(x^T, W, b) with x [4,3] transposed, then linear of a 3-D slice
 * through a narrowed weight and an expanded 1-element bias. */
static tsr_tensor* f_views(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *x = in[0], *W = in[1], *b = in[2], *x3 = in[3];
  tsr_tensor* y1 = T(tsr_linear(T(tsr_t(x, &o_)), W, b, &o_));                 /* [3,5] */
  tsr_tensor* wn = T(tsr_narrow(W, 0, 1, 3, &o_));                             /* [3,4] */
  tsr_tensor* be = T(tsr_expand(T(tsr_narrow(b, 0, 0, 1, &o_)), 1, (const int64_t[]){3}, &o_));
  tsr_tensor* y2 = T(tsr_linear(T(tsr_transpose(x3, 0, 1, &o_)), wn, be, &o_)); /* [3,2,3] */
  tsr_tensor* y3 = T(tsr_linear(T(tsr_select(x3, 0, 1, &o_)), W, NULL, &o_));  /* [2,5] */
  tsr_tensor* a = T(tsr_sum(y2, 1, (const int64_t[]){1}, false, &o_));         /* [3,3] */
  tsr_tensor* c = T(tsr_sum(y3, 1, (const int64_t[]){0}, true, &o_));          /* [1,5] */
  tsr_tensor* d = T(tsr_add(y1, c, &o_));                                      /* [3,5] */
  return T(tsr_matmul(T(tsr_t(a, &o_)), d, &o_));                              /* [3,5] */
}

Test(linear, gradcheck_float64_through_views) {
  const int64_t sx[] = {4, 3}, sW[] = {5, 4}, sb[] = {5}, sx3[] = {2, 3, 4};
  tsr_tensor* in[] = {tg_leaf(2, sx, 1, 1, 0), tg_leaf(2, sW, 2, 1, 0), tg_leaf(1, sb, 3, 1, 0),
                      tg_leaf(3, sx3, 4, 1, 0)};
  cr_expect_eq(tg_gradcheck("linear views", f_views, 4, in, NULL), 12 + 20 + 5 + 24);
  for (int i = 0; i < 4; ++i) tsr_tensor_release(in[i]);
}

/* 1-D x, no bias; 4-D x with bias. */
static tsr_tensor* f_ranks(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *v = in[0], *W = in[1], *b = in[2], *x4 = in[3];
  tsr_tensor* y1 = T(tsr_linear(v, W, NULL, &o_));   /* [5] */
  tsr_tensor* y4 = T(tsr_linear(x4, W, b, &o_));     /* [2,1,2,5] */
  return T(tsr_mul(y4, y1, &o_));
}

Test(linear, gradcheck_float64_ranks) {
  const int64_t sv[] = {4}, sW[] = {5, 4}, sb[] = {5}, sx4[] = {2, 1, 2, 4};
  tsr_tensor* in[] = {tg_leaf(1, sv, 5, 1, 0), tg_leaf(2, sW, 6, 1, 0), tg_leaf(1, sb, 7, 1, 0),
                      tg_leaf(4, sx4, 8, 1, 0)};
  cr_expect_eq(tg_gradcheck("linear ranks", f_ranks, 4, in, NULL), 4 + 20 + 5 + 16);
  for (int i = 0; i < 4; ++i) tsr_tensor_release(in[i]);
}

/* ---- errors --------------------------------------------------------------- */

Test(linear, errors) {
  const int64_t s34[] = {3, 4}, s53[] = {5, 3}, s54[] = {5, 4}, s5[] = {5}, s4[] = {4},
                s234[] = {2, 3, 4}, s254[] = {2, 5, 4};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *W = filled(2, s54, TSR_FLOAT32, 2),
             *b = filled(1, s5, TSR_FLOAT32, 3), *Wbad = filled(2, s53, TSR_FLOAT32, 2),
             *x3 = filled(3, s234, TSR_FLOAT32, 1), *x0 = filled(0, NULL, TSR_FLOAT32, 1),
             *W1 = filled(1, s4, TSR_FLOAT32, 2), *W3 = filled(3, s254, TSR_FLOAT32, 2),
             *b4 = filled(1, s4, TSR_FLOAT32, 3), *Wd = filled(2, s54, TSR_FLOAT64, 2),
             *bd = filled(1, s5, TSR_FLOAT64, 3), *xi = filled(2, s34, TSR_INT64, 1),
             *Wi = filled(2, s54, TSR_INT64, 2), *xh = filled(2, s34, TSR_FLOAT16, 1),
             *Wh = filled(2, s54, TSR_FLOAT16, 2), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_set_requires_grad(W, true));
  /* torch: "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x5)" */
  TSR_ASSERT_FAILS(tsr_linear(x, Wbad, b, &out), TSR_ERR_SHAPE_MISMATCH,
                   "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x5)");
  TSR_ASSERT_FAILS(tsr_linear(x, Wbad, NULL, &out), TSR_ERR_SHAPE_MISMATCH,
                   "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x5)");
  /* 3-D x folds its leading dims, as torch: "(6x4 and 3x5)" */
  TSR_ASSERT_FAILS(tsr_linear(x3, Wbad, b, &out), TSR_ERR_SHAPE_MISMATCH, "(6x4 and 3x5)");
  TSR_ASSERT_FAILS(tsr_linear(x0, W, b, &out), TSR_ERR_SHAPE_MISMATCH,
                   "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
  TSR_ASSERT_FAILS(tsr_linear(x, W1, NULL, &out), TSR_ERR_SHAPE_MISMATCH, "weight must be 2-D");
  TSR_ASSERT_FAILS(tsr_linear(x, W3, NULL, &out), TSR_ERR_SHAPE_MISMATCH, "weight must be 2-D");
  /* torch: "The expanded size of the tensor (5) must match the existing size
   * (4) at non-singleton dimension 1.  Target sizes: [3, 5].  Tensor sizes: [4]" */
  TSR_ASSERT_FAILS(tsr_linear(x, W, b4, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The expanded size of the tensor (5) must match the existing size (4) at "
                   "non-singleton dimension 1.  Target sizes: [3, 5].  Tensor sizes: [4]");
  /* torch: "self and mat2 must have the same dtype" (no promotion). */
  TSR_ASSERT_FAILS(tsr_linear(x, Wd, NULL, &out), TSR_ERR_DTYPE_MISMATCH,
                   "self and mat2 must have the same dtype");
  TSR_ASSERT_FAILS(tsr_linear(x, W, bd, &out), TSR_ERR_DTYPE_MISMATCH,
                   "self and mat2 must have the same dtype");
  /* Integer linear is not offered (ops.h: no integer gemm in OpenBLAS);
   * float16 is (as torch 2.x; torch 1.13 refuses it; test_matmul_lowp.c), not
   * mixed with float32. */
  TSR_ASSERT_FAILS(tsr_linear(xi, Wi, NULL, &out), TSR_ERR_DTYPE_MISMATCH, "int64");
  TSR_ASSERT_FAILS(tsr_linear(xh, W, NULL, &out), TSR_ERR_DTYPE_MISMATCH, "self and mat2 must have the same dtype");
  TSR_ASSERT_FAILS(tsr_linear(x, Wh, NULL, &out), TSR_ERR_DTYPE_MISMATCH, "self and mat2 must have the same dtype");
  TSR_ASSERT_FAILS(tsr_linear(NULL, W, b, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_linear(x, NULL, b, &out), TSR_ERR_INVALID_ARGUMENT, "weight is NULL");
  TSR_ASSERT_FAILS(tsr_linear(x, W, b, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  /* Nothing changed: values, versions, gradients, leaf state. */
  expect_no_grad(x);
  expect_no_grad(W);
  cr_expect(tsr_is_leaf(x) && tsr_is_leaf(W));
  expect_filled(x, 1);
  expect_filled(W, 2);
  expect_filled(b, 3);
  expect_filled(b4, 3);
  tsr_tensor* all[] = {x, W, b, Wbad, x3, x0, W1, W3, b4, Wd, bd, xi, Wi, xh, Wh};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
}

/* weight is used in place, never copied: a transposed weight view and the
 * contiguous weight give the same result, and the weight's version and
 * values stay as they were. */
Test(linear, weight_untouched) {
  const int64_t s23[] = {2, 3}, s43[] = {4, 3};
  tsr_tensor *x, *W, *y;
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &x));
  tsr_tensor* xv;
  TSR_ASSERT_OK(tsr_view(x, 2, s23, &xv));
  TSR_ASSERT_OK(tsr_arange(0, 12, 1, TSR_FLOAT32, TSR_CPU, &W));
  tsr_tensor* Wv;
  TSR_ASSERT_OK(tsr_view(W, 2, s43, &Wv));
  TSR_ASSERT_OK(tsr_linear(xv, Wv, NULL, &y));
  /* y[i][j] = sum_k x[i][k] W[j][k] */
  const double want[] = {5, 14, 23, 32, 14, 50, 86, 122};
  tg_expect_unchanged(y, want, 8);
  const double w_want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  tg_expect_unchanged(Wv, w_want, 12);
  tsr_tensor* all[] = {x, xv, W, Wv, y};
  for (size_t i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}
