/* softmax and layer_norm against PyTorch 1.13 (tests/golden/gen_nn.py):
 * values and strides (large values, -inf, NaN, bfloat16, transposed and
 * channels_last inputs, empty sizes); gradients of x, weight and bias with
 * torch's grad_fn names; float64 gradcheck through views and broadcasting;
 * every error path. */
#include <stdint.h>

#include "golden/nn_normalization_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(normalization, forward, tg_norm_fwd, TG_NORM_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(normalization, grads, tg_norm_grad, TG_NORM_GRAD_N) { tg_check_backward(c); }

/* ---- gradcheck ------------------------------------------------------------ */

/* softmax over each dim of a transposed x, and of an expanded vector. */
static tsr_tensor* f_softmax(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *x = in[0], *v = in[1];
  const int64_t s34[] = {3, 4};
  tsr_tensor* xt = T(tsr_t(x, &o_)); /* [3,4] */
  tsr_tensor* a = T(tsr_softmax(xt, 1, &o_));
  tsr_tensor* b = T(tsr_softmax(xt, -2, &o_));
  tsr_tensor* c = T(tsr_softmax(T(tsr_expand(v, 2, s34, &o_)), 0, &o_));
  return T(tsr_add(T(tsr_mul(a, b, &o_)), T(tsr_mul(c, xt, &o_)), &o_));
}

Test(normalization, gradcheck_softmax) {
  const int64_t sx[] = {4, 3}, sv[] = {4};
  tsr_tensor* in[] = {tg_leaf(2, sx, 21, 1.5, 0), tg_leaf(1, sv, 22, 1.5, 0)};
  cr_expect_eq(tg_gradcheck("softmax", f_softmax, 2, in, NULL), 12 + 4);
  for (int i = 0; i < 2; ++i) tsr_tensor_release(in[i]);
}

/* layer_norm of a permuted x over two dims with weight and bias, and over
 * one dim of a sliced x with a weight broadcast from an expand. */
static tsr_tensor* f_layer_norm(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *x = in[0], *w = in[1], *b = in[2], *w1 = in[3];
  const int64_t perm[] = {2, 0, 1}, ns[] = {2, 3}, n1[] = {3}, s3[] = {3};
  tsr_tensor* xp = T(tsr_permute(x, 3, perm, &o_)); /* [4,2,3] */
  tsr_tensor* a = T(tsr_layer_norm(xp, 2, ns, w, b, 1e-5, &o_));
  tsr_tensor* xs = T(tsr_slice(xp, 2, 0, 3, 1, &o_));
  tsr_tensor* we = T(tsr_expand(w1, 1, s3, &o_)); /* [1] -> [3] */
  tsr_tensor* c = T(tsr_layer_norm(xs, 1, n1, we, NULL, 0.1, &o_));
  return T(tsr_add(T(tsr_mul(a, a, &o_)), c, &o_));
}

Test(normalization, gradcheck_layer_norm) {
  const int64_t sx[] = {2, 3, 4}, sw[] = {2, 3}, s1[] = {1};
  tsr_tensor* in[] = {tg_leaf(3, sx, 23, 1, 0), tg_leaf(2, sw, 24, 1, 1), tg_leaf(2, sw, 25, 1, 0),
                      tg_leaf(1, s1, 26, 1, 0)};
  cr_expect_eq(tg_gradcheck("layer_norm", f_layer_norm, 4, in, NULL), 24 + 6 + 6 + 1);
  for (int i = 0; i < 4; ++i) tsr_tensor_release(in[i]);
}

/* ---- errors --------------------------------------------------------------- */

Test(normalization, softmax_errors) {
  const int64_t s[] = {2, 3};
  tsr_tensor *x = filled(2, s, TSR_FLOAT32, 1), *h = filled(2, s, TSR_FLOAT16, 1),
             *i = filled(2, s, TSR_INT64, 1), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_FAILS(tsr_softmax(x, 2, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_softmax(x, -3, &out), TSR_ERR_INVALID_ARGUMENT, "but got -3");
  /* torch names its kernel by the dim: last dim or another one. */
  TSR_EXPECT_RESULT_DTYPE(tsr_softmax(h, 1, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_softmax(i, 0, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"softmax_kernel_impl\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_softmax(NULL, 0, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_softmax(x, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  expect_filled(h, 1);
  expect_filled(i, 1);
  tsr_tensor_release(x);
  tsr_tensor_release(h);
  tsr_tensor_release(i);
}

Test(normalization, layer_norm_errors) {
  const int64_t s34[] = {3, 4}, s4[] = {4}, s3[] = {3}, s5[] = {5}, s345[] = {3, 4, 5}, neg[] = {-4};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *w = filled(1, s4, TSR_FLOAT32, 2),
             *b = filled(1, s4, TSR_FLOAT32, 3), *w3 = filled(1, s3, TSR_FLOAT32, 2),
             *wd = filled(1, s4, TSR_FLOAT64, 2), *xh = filled(2, s34, TSR_FLOAT16, 1),
             *xi = filled(2, s34, TSR_INT64, 1), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, s5, NULL, NULL, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Given normalized_shape=[5], expected input with shape [*, 5], but got input of "
                   "size[3, 4]");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 3, s345, NULL, NULL, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Given normalized_shape=[3, 4, 5], expected input with shape [*, 3, 4, 5]");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 0, NULL, NULL, NULL, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                   "least one element, but got normalized_shape = []");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, s4, w3, NULL, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected weight to be of same shape as normalized_shape, but got weight of "
                   "shape [3] and normalized_shape = [4]");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, s4, w, w3, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected bias to be of same shape as normalized_shape, but got bias of shape "
                   "[3] and normalized_shape = [4]");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, s4, wd, NULL, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type Float but found Double");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, s4, w, wd, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type Float but found Double");
  TSR_EXPECT_RESULT_DTYPE(tsr_layer_norm(xh, 1, s4, NULL, NULL, 1e-5, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_layer_norm(xi, 1, s4, NULL, NULL, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"LayerNormKernelImpl\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, neg, NULL, NULL, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "normalized_shape");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, -1, s4, NULL, NULL, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "normalized_shape");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, NULL, NULL, NULL, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "normalized_shape");
  TSR_ASSERT_FAILS(tsr_layer_norm(NULL, 1, s4, w, b, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "x is NULL");
  TSR_ASSERT_FAILS(tsr_layer_norm(x, 1, s4, w, b, 1e-5, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_no_grad(w);
  expect_filled(x, 1);
  expect_filled(w, 2);
  expect_filled(b, 3);
  tsr_tensor* all[] = {x, w, b, w3, wd, xh, xi};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

/* A second backward through layer_norm without retain_graph fails as in
 * torch (its saved x is freed); modifying x in place after the forward
 * fails the backward with torch's version message. */
Test(normalization, layer_norm_saved_tensors) {
  const int64_t s[] = {2, 3}, n[] = {3};
  tsr_tensor *x = tg_leaf(2, s, 31, 1, 0), *y, *yy, *l;
  TSR_ASSERT_OK(tsr_layer_norm(x, 1, n, NULL, NULL, 1e-5, &y));
  TSR_ASSERT_OK(tsr_mul(y, y, &yy));
  TSR_ASSERT_OK(tsr_sum(yy, 0, NULL, false, &l));
  TSR_ASSERT_OK(tsr_backward(l, NULL, false));
  TSR_ASSERT_FAILS(tsr_backward(l, NULL, false), TSR_ERR_AUTOGRAD,
                   "Trying to backward through the graph a second time");
  tsr_tensor_release(l);
  tsr_tensor_release(yy);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_layer_norm(x, 1, n, NULL, NULL, 1e-5, &y));
  TSR_ASSERT_OK(tsr_sum(y, 0, NULL, false, &l));
  bool prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_mul_scalar_(x, 2.0));
  tsr_set_grad_enabled(prev);
  TSR_ASSERT_FAILS(tsr_backward(l, NULL, false), TSR_ERR_AUTOGRAD,
                   "modified by an inplace operation");
  tsr_tensor_release(l);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}
