/* tsr_bmm, tsr_baddbmm and tsr_outer against PyTorch 1.13 (tests/golden/gen_linalg.py): values,
 * strides, grad_fn names and gradients over transposed, expanded and empty
 * operands; float64 gradcheck of first and second derivatives; every error
 * path with torch's messages, nothing written. */
#include <stdint.h>

#include "golden/linalg_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(bmm, forward, tg_bmm_fwd, TG_BMM_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(bmm, grads, tg_bmm_grad, TG_BMM_GRAD_N) { tg_check_backward(c); }
TG_PARAMETERIZED(baddbmm, forward, tg_baddbmm_fwd, TG_BADDBMM_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(baddbmm, grads, tg_baddbmm_grad, TG_BADDBMM_GRAD_N) { tg_check_backward(c); }
TG_PARAMETERIZED(outer, forward, tg_outer_fwd, TG_OUTER_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(outer, grads, tg_outer_grad, TG_OUTER_GRAD_N) { tg_check_backward(c); }

/* bmm(a, b^T) with b given as [2,5,4]: a transposed operand. */
static tsr_tensor* f_bmm(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_bmm(in[0], T(tsr_transpose(in[1], 1, 2, &o_)), &o_));
}

/* d/da sum(bmm(a, b)^2) with create_graph, differentiated again. */
static tsr_tensor* f_bmm_grad(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  bool prev = tsr_set_grad_enabled(true); /* gradcheck's evaluations run without grad */
  tsr_tensor* y = T(tsr_bmm(in[0], in[1], &o_));
  tsr_tensor* s = T(tsr_sum(T(tsr_mul(y, y, &o_)), 0, NULL, false, &o_));
  tsr_tensor* g[2] = {NULL, NULL};
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s, NULL, 2, (tsr_tensor* const*)in, true, true, false, g));
  tsr_set_grad_enabled(prev);
  tg_keep(ar, g[1]);
  return tg_keep(ar, g[0]);
}

Test(bmm, gradcheck) {
  const int64_t sa[] = {2, 3, 4}, sb[] = {2, 5, 4};
  tsr_tensor* in[] = {tg_leaf(3, sa, 61, 1, 0), tg_leaf(3, sb, 62, 1, 0)};
  cr_expect_eq(tg_gradcheck("bmm", f_bmm, 2, in, NULL), 24 + 40);
  for (int i = 0; i < 2; ++i) tsr_tensor_release(in[i]);
}

Test(bmm, double_backward) {
  const int64_t sa[] = {2, 3, 4}, sb[] = {2, 4, 2};
  tsr_tensor* in[] = {tg_leaf(3, sa, 63, 1, 0), tg_leaf(3, sb, 64, 1, 0)};
  cr_expect_eq(tg_gradcheck("bmm double backward", f_bmm_grad, 2, in, NULL), 24 + 16);
  for (int i = 0; i < 2; ++i) tsr_tensor_release(in[i]);
}

Test(bmm, errors) {
  const int64_t s2[] = {3, 4}, s234[] = {2, 3, 4}, s245[] = {2, 4, 5}, s345[] = {3, 4, 5}, s255[] = {2, 5, 5};
  tsr_tensor *m = filled(2, s2, TSR_FLOAT32, 1), *a = filled(3, s234, TSR_FLOAT32, 1),
             *b = filled(3, s245, TSR_FLOAT32, 2), *b3 = filled(3, s345, TSR_FLOAT32, 2),
             *b5 = filled(3, s255, TSR_FLOAT32, 2), *bd = filled(3, s245, TSR_FLOAT64, 2),
             *ai = filled(3, s234, TSR_INT32, 1), *bi = filled(3, s245, TSR_INT32, 2), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_bmm(m, b, &out), TSR_ERR_SHAPE_MISMATCH, "batch1 must be a 3D tensor");
  TSR_ASSERT_FAILS(tsr_bmm(a, m, &out), TSR_ERR_SHAPE_MISMATCH, "batch2 must be a 3D tensor");
  TSR_ASSERT_FAILS(tsr_bmm(a, b3, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4].");
  TSR_ASSERT_FAILS(tsr_bmm(a, b5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
  TSR_ASSERT_FAILS(tsr_bmm(a, bd, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type Float but found Double");
  TSR_ASSERT_FAILS(tsr_bmm(ai, bi, &out), TSR_ERR_DTYPE_MISMATCH, "bmm supports bfloat16, float16, float32 and float64");
  TSR_ASSERT_FAILS(tsr_bmm(NULL, b, &out), TSR_ERR_INVALID_ARGUMENT, "batch1");
  TSR_ASSERT_FAILS(tsr_bmm(a, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "batch2");
  TSR_ASSERT_FAILS(tsr_bmm(a, b, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(a, 1);
  expect_filled(b, 2);
  tsr_tensor* all[] = {m, a, b, b3, b5, bd, ai, bi};
  for (int i = 0; i < 8; ++i) tsr_tensor_release(all[i]);
}

Test(outer, errors) {
  const int64_t s2[] = {2, 3}, s3[] = {3};
  tsr_tensor *m = filled(2, s2, TSR_FLOAT32, 1), *v = filled(1, s3, TSR_FLOAT32, 2), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_outer(m, v, &out), TSR_ERR_SHAPE_MISMATCH, "outer: Expected 1-D argument self, but got 2-D");
  TSR_ASSERT_FAILS(tsr_outer(v, m, &out), TSR_ERR_SHAPE_MISMATCH, "outer: Expected 1-D argument vec2, but got 2-D");
  TSR_ASSERT_FAILS(tsr_outer(NULL, v, &out), TSR_ERR_INVALID_ARGUMENT, "input");
  TSR_ASSERT_FAILS(tsr_outer(v, v, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(m, 1);
  expect_filled(v, 2);
  tsr_tensor_release(m);
  tsr_tensor_release(v);
}

/* baddbmm(c, a, b^T, 0.5, -1.5) with c [5] broadcast. */
static tsr_tensor* f_baddbmm(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_baddbmm(in[2], in[0], T(tsr_transpose(in[1], 1, 2, &o_)), 0.5, -1.5, &o_));
}

Test(baddbmm, gradcheck) {
  const int64_t sa[] = {2, 3, 4}, sb[] = {2, 5, 4}, sc[] = {5};
  tsr_tensor* in[] = {tg_leaf(3, sa, 65, 1, 0), tg_leaf(3, sb, 66, 1, 0), tg_leaf(1, sc, 67, 1, 0)};
  cr_expect_eq(tg_gradcheck("baddbmm", f_baddbmm, 3, in, NULL), 24 + 40 + 5);
  for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
}

Test(baddbmm, errors) {
  const int64_t s3[] = {3}, s234[] = {2, 3, 4}, s245[] = {2, 4, 5}, s2[] = {3, 4};
  tsr_tensor *c = filled(1, s3, TSR_FLOAT32, 1), *a = filled(3, s234, TSR_FLOAT32, 1),
             *b = filled(3, s245, TSR_FLOAT32, 2), *m = filled(2, s2, TSR_FLOAT32, 1), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_baddbmm(c, a, b, 1.0, 1.0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The expanded size of the tensor (5) must match the existing size (3) at non-singleton "
                   "dimension 2");
  TSR_ASSERT_FAILS(tsr_baddbmm(b, m, b, 1.0, 1.0, &out), TSR_ERR_SHAPE_MISMATCH, "batch1 must be a 3D tensor");
  TSR_ASSERT_FAILS(tsr_baddbmm(b, a, a, 1.0, 1.0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3].");
  TSR_ASSERT_FAILS(tsr_baddbmm(NULL, a, b, 1.0, 1.0, &out), TSR_ERR_INVALID_ARGUMENT, "input");
  TSR_ASSERT_FAILS(tsr_baddbmm(c, a, b, 1.0, 1.0, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(c, 1);
  expect_filled(a, 1);
  tsr_tensor_release(c);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(m);
}
