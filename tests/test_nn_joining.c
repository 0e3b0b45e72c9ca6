/* tsr_cat and tsr_stack against PyTorch 1.13 (tests/golden/gen_nn.py):
 * values, dtypes (promotion) and strides (transposed, channels_last,
 * legacy empty inputs); gradients and grad_fn names; float64 gradcheck
 * through views; every error path. */
#include <stdint.h>

#include "golden/nn_joining_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(joining, forward, tg_join_fwd, TG_JOIN_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(joining, grads, tg_join_grad, TG_JOIN_GRAD_N) { tg_check_backward(c); }

/* ---- gradcheck ------------------------------------------------------------ */

/* cat of a transposed x, an expanded v and x itself; stack of slices. */
static tsr_tensor* f_join(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *x = in[0], *v = in[1];
  const int64_t s23[] = {2, 3};
  const tsr_tensor* parts[] = {T(tsr_t(x, &o_)), T(tsr_expand(v, 2, s23, &o_)), x};
  tsr_tensor* a = T(tsr_cat(2, parts, 0, &o_));               /* [4,3] */
  tsr_tensor* b = T(tsr_cat(1, parts + 2, 1, &o_));           /* [3,2] */
  const tsr_tensor* sl[] = {T(tsr_select(a, 0, 1, &o_)), T(tsr_select(a, 0, 3, &o_)),
                            T(tsr_select(b, 1, 0, &o_))};
  tsr_tensor* s = T(tsr_stack(3, sl, 1, &o_));                /* [3,3] */
  tsr_tensor* s2 = T(tsr_stack(2, (const tsr_tensor* const[]){b, b}, -1, &o_)); /* [3,2,2] */
  tsr_tensor* r = T(tsr_sum(s2, 1, (const int64_t[]){2}, false, &o_));            /* [3,2] */
  return T(tsr_matmul(s, T(tsr_mul(r, r, &o_)), &o_));                           /* [3,2] */
}

Test(joining, gradcheck_cat_stack) {
  const int64_t sx[] = {3, 2}, sv[] = {3};
  tsr_tensor* in[] = {tg_leaf(2, sx, 41, 1, 0), tg_leaf(1, sv, 42, 1, 0)};
  cr_expect_eq(tg_gradcheck("cat/stack", f_join, 2, in, NULL), 6 + 3);
  for (int i = 0; i < 2; ++i) tsr_tensor_release(in[i]);
}

/* ---- errors --------------------------------------------------------------- */

Test(joining, cat_errors) {
  const int64_t s34[] = {3, 4}, s35[] = {3, 5}, s24[] = {2, 4}, s234[] = {2, 3, 4};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *y = filled(2, s35, TSR_FLOAT32, 2),
             *z = filled(2, s24, TSR_FLOAT32, 3), *w = filled(3, s234, TSR_FLOAT32, 4),
             *s = filled(0, NULL, TSR_FLOAT32, 5), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  const tsr_tensor* xy[] = {x, y};
  const tsr_tensor* xz[] = {x, z};
  const tsr_tensor* xw[] = {x, w};
  const tsr_tensor* ss[] = {s, s};
  const tsr_tensor* xn[] = {x, NULL};
  TSR_ASSERT_FAILS(tsr_cat(0, xy, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "torch.cat(): expected a non-empty list of Tensors");
  /* torch: "Sizes of tensors must match except in dimension 0. Expected
   * size 4 but got size 5 for tensor number 1 in the list." */
  TSR_ASSERT_FAILS(tsr_cat(2, xy, 0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Sizes of tensors must match except in dimension 0. Expected size 4 but got "
                   "size 5 for tensor number 1 in the list.");
  TSR_ASSERT_FAILS(tsr_cat(2, xz, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Sizes of tensors must match except in dimension 1. Expected size 3 but got "
                   "size 2 for tensor number 1 in the list.");
  TSR_ASSERT_FAILS(tsr_cat(2, xw, 0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Tensors must have same number of dimensions: got 2 and 3");
  TSR_ASSERT_FAILS(tsr_cat(2, ss, 0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "zero-dimensional tensor (at position 0) cannot be concatenated");
  TSR_ASSERT_FAILS(tsr_cat(2, xz, 2, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  TSR_ASSERT_FAILS(tsr_cat(2, xz, -3, &out), TSR_ERR_INVALID_ARGUMENT, "but got -3");
  TSR_ASSERT_FAILS(tsr_cat(-1, xy, 0, &out), TSR_ERR_INVALID_ARGUMENT, "n must be in");
  TSR_ASSERT_FAILS(tsr_cat(2, NULL, 0, &out), TSR_ERR_INVALID_ARGUMENT, "tensors is NULL");
  TSR_ASSERT_FAILS(tsr_cat(2, xn, 0, &out), TSR_ERR_INVALID_ARGUMENT, "tensors[1] is NULL");
  TSR_ASSERT_FAILS(tsr_cat(2, xz, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  expect_filled(y, 2);
  expect_filled(z, 3);
  tsr_tensor* all[] = {x, y, z, w, s};
  for (size_t k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

Test(joining, stack_errors) {
  const int64_t s34[] = {3, 4}, s35[] = {3, 5}, s3[] = {3};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *y = filled(2, s35, TSR_FLOAT32, 2),
             *v = filled(1, s3, TSR_FLOAT32, 3), *out = SENTINEL;
  const tsr_tensor* xy[] = {x, y};
  const tsr_tensor* xv[] = {x, v};
  const tsr_tensor* xx[] = {x, x};
  const tsr_tensor* xn[] = {x, NULL};
  TSR_ASSERT_FAILS(tsr_stack(0, xy, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "stack expects a non-empty TensorList");
  TSR_ASSERT_FAILS(tsr_stack(2, xy, 0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and "
                   "[3, 5] at entry 1");
  /* Also at dim == ndim, where torch stacks through unsqueeze. */
  TSR_ASSERT_FAILS(tsr_stack(2, xv, 2, &out), TSR_ERR_SHAPE_MISMATCH,
                   "but got [3, 4] at entry 0 and [3] at entry 1");
  TSR_ASSERT_FAILS(tsr_stack(2, xx, 3, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  TSR_ASSERT_FAILS(tsr_stack(2, xx, -4, &out), TSR_ERR_INVALID_ARGUMENT, "but got -4");
  TSR_ASSERT_FAILS(tsr_stack(2, NULL, 0, &out), TSR_ERR_INVALID_ARGUMENT, "tensors is NULL");
  TSR_ASSERT_FAILS(tsr_stack(2, xn, 0, &out), TSR_ERR_INVALID_ARGUMENT, "tensors[1] is NULL");
  TSR_ASSERT_FAILS(tsr_stack(2, xx, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_filled(x, 1);
  expect_filled(y, 2);
  expect_filled(v, 3);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(v);
}

/* The list is borrowed: the caller's handles stay valid and owned by it,
 * and the result keeps no reference to them. */
Test(joining, handles_borrowed) {
  const int64_t s[] = {2};
  tsr_tensor *a = filled(1, s, TSR_FLOAT32, 1), *b = filled(1, s, TSR_FLOAT32, 2), *c;
  const tsr_tensor* ab[] = {a, b};
  TSR_ASSERT_OK(tsr_cat(2, ab, 0, &c));
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  const double want[] = {1, 1, 2, 2};
  tg_expect_unchanged(c, want, 4);
  tsr_tensor_release(c);
}
