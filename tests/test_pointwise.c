/* pointwise.h against PyTorch 1.13 (tests/golden/gen_pointwise.py): values,
 * dtypes and strides over every dtype torch takes, grad_fn names and
 * gradients; float64 gradcheck of first and second derivatives through
 * views; every error path with torch's messages, nothing written. */
#include <stdint.h>

#include "golden/pointwise_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(pointwise, forward, tg_pointwise_fwd, TG_POINTWISE_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(pointwise, grads, tg_pointwise_grad, TG_POINTWISE_GRAD_N) { tg_check_backward(c); }
TG_PARAMETERIZED(clamp_tensor, forward, tg_clamp_tensor_fwd, TG_CLAMP_TENSOR_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(clamp_tensor, grads, tg_clamp_tensor_grad, TG_CLAMP_TENSOR_GRAD_N) { tg_check_backward(c); }

/* One op of pointwise.h, chosen by index, with fixed parameters. */
typedef struct {
  int op;
} pw_ctx;

enum { PW_N = 11 };

static tsr_status apply(int op, const tsr_tensor* x, tsr_tensor** out) {
  switch (op) {
    case 0: return tsr_silu(x, out);
    case 1: return tsr_leaky_relu(x, 0.2, out);
    case 2: return tsr_elu(x, 0.7, out);
    case 3: return tsr_softplus(x, 2.0, 1.5, out);
    case 4: return tsr_hardtanh(x, -0.8, 0.9, out);
    case 5: return tsr_sin(x, out);
    case 6: return tsr_cos(x, out);
    case 7: return tsr_rsqrt(x, out);
    case 8: return tsr_reciprocal(x, out);
    case 9: return tsr_floor(x, out);
    default: return tsr_sign(x, out);
  }
}

/* op(x^T) over a transposed view; rsqrt and reciprocal see x*x + 0.5. */
static tsr_tensor* f_op(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const int op = ((const pw_ctx*)ctx)->op;
  tsr_tensor* x = T(tsr_t(in[0], &o_));
  if (op == 7 || op == 8) x = T(tsr_add_scalar(T(tsr_mul(x, x, &o_)), 0.5, &o_));
  return T(apply(op, x, &o_));
}

/* d/dx sum(op(x) * w) with create_graph: differentiating it again checks
 * the backward formula is itself differentiable (double backward). */
static tsr_tensor* f_grad(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const int op = ((const pw_ctx*)ctx)->op;
  tsr_tensor* x = in[0];
  bool prev = tsr_set_grad_enabled(true); /* gradcheck's evaluations run without grad */
  tsr_tensor* base = (op == 7 || op == 8) ? T(tsr_add_scalar(T(tsr_mul(x, x, &o_)), 0.5, &o_)) : x;
  tsr_tensor* y = T(apply(op, base, &o_));
  tsr_tensor* s = T(tsr_sum(T(tsr_mul(y, y, &o_)), 0, NULL, false, &o_));
  tsr_tensor* g = NULL;
  TSR_ASSERT_OK(tsr_autograd_grad(1, &s, NULL, 1, &x, true, true, false, &g));
  tsr_set_grad_enabled(prev);
  return tg_keep(ar, g);
}

Test(pointwise, gradcheck_first_and_second) {
  const int64_t sx[] = {3, 4};
  for (int op = 0; op < PW_N; ++op) {
    pw_ctx c = {op};
    /* Away from the kinks (0, the hardtanh bounds, integers) so finite
     * differences see a smooth function. */
    tsr_tensor* x = tg_leaf(2, sx, 71 + (uint64_t)op, 0.3, 0.05);
    cr_expect_eq(tg_gradcheck("pointwise", f_op, 1, &x, &c), 12, "op %d", op);
    /* floor and sign: a zero gradient with no graph, as torch's zeros_like. */
    if (op < 9) cr_expect_eq(tg_gradcheck("pointwise double backward", f_grad, 1, &x, &c), 12, "op %d", op);
    tsr_tensor_release(x);
  }
}

Test(pointwise, integer_results) {
  const int64_t s[] = {4};
  const int64_t v[] = {-3, 0, 2, 7};
  tsr_tensor *x, *y;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof v, 1, s, TSR_INT64, &x));
  TSR_ASSERT_OK(tsr_sign(x, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_INT64);
  const int64_t* p = tsr_tensor_data_ptr(y);
  cr_expect(p[0] == -1 && p[1] == 0 && p[2] == 1 && p[3] == 1);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_hardtanh(x, -1.0, 1.0, &y));
  p = tsr_tensor_data_ptr(y);
  cr_expect(p[0] == -1 && p[1] == 0 && p[2] == 1 && p[3] == 1);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_sin(x, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT32);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

Test(pointwise, errors) {
  const int64_t s[] = {2, 3};
  tsr_tensor *h = filled(2, s, TSR_FLOAT16, 1), *i = filled(2, s, TSR_INT32, 1), *b = filled(2, s, TSR_BOOL, 1),
             *u = filled(2, s, TSR_UINT8, 1), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_silu(i, &out), TSR_ERR_DTYPE_MISMATCH, "\"silu_cpu\" not implemented for 'Int'");
  TSR_EXPECT_RESULT_DTYPE(tsr_silu(h, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_leaky_relu(i, 0.1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"leaky_relu_cpu\" not implemented for 'Int'");
  TSR_ASSERT_FAILS(tsr_elu(b, 1.0, &out), TSR_ERR_DTYPE_MISMATCH, "\"elu_cpu\" not implemented for 'Bool'");
  TSR_EXPECT_RESULT_DTYPE(tsr_softplus(h, 1.0, 20.0, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_hardtanh(b, -1.0, 1.0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Bool inputs not supported for hardtanh");
  TSR_ASSERT_FAILS(tsr_hardtanh(u, -1.0, 1.0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "cannot do hardtanh on an unsigned type with negative limits");
  TSR_ASSERT_FAILS(tsr_hardtanh(u, 0.0, -1.5, &out), TSR_ERR_INVALID_ARGUMENT, "negative limits");
  TSR_EXPECT_RESULT_DTYPE(tsr_hardtanh(h, -1.0, 1.0, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_sin(h, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_cos(h, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_rsqrt(h, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_floor(b, &out), TSR_ERR_DTYPE_MISMATCH, "\"floor_vml_cpu\" not implemented for 'Bool'");
  TSR_EXPECT_RESULT_DTYPE(tsr_ceil(h, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_round(b, &out), TSR_ERR_DTYPE_MISMATCH, "\"round_vml_cpu\" not implemented for 'Bool'");
  TSR_EXPECT_RESULT_DTYPE(tsr_trunc(h, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_sin(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "x");
  TSR_ASSERT_FAILS(tsr_reciprocal(h, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(h, 1);
  expect_filled(i, 1);
  expect_filled(b, 1);
  expect_filled(u, 1);
  tsr_tensor_release(h);
  tsr_tensor_release(i);
  tsr_tensor_release(b);
  tsr_tensor_release(u);
}

/* clamp(x^T, lo, hi) with lo [3] broadcast and hi 0-dim. */
static tsr_tensor* f_clamp(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  return T(tsr_clamp_tensor(T(tsr_t(in[0], &o_)), in[1], in[2], &o_));
}

Test(clamp_tensor, gradcheck) {
  const int64_t sx[] = {4, 3}, sl[] = {4};
  tsr_tensor* in[] = {tg_leaf(2, sx, 91, 1, 0), tg_leaf(1, sl, 92, 0.3, -0.6), tg_leaf(0, NULL, 93, 0.1, 0.7)};
  cr_expect_eq(tg_gradcheck("clamp_tensor", f_clamp, 3, in, NULL), 12 + 4 + 1);
  for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
}

Test(clamp_tensor, errors) {
  const int64_t s2[] = {2}, s3[] = {3};
  tsr_tensor *x = filled(1, s2, TSR_FLOAT32, 1), *y = filled(1, s3, TSR_FLOAT32, 0),
             *h = filled(1, s2, TSR_FLOAT16, 1), *b = filled(1, s2, TSR_BOOL, 1), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_clamp_tensor(x, NULL, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "torch.clamp: At least one of 'min' or 'max' must not be None");
  TSR_ASSERT_FAILS(tsr_clamp_tensor(x, y, NULL, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  TSR_EXPECT_RESULT_DTYPE(tsr_clamp_tensor(h, h, h, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_clamp_tensor(b, b, b, &out), TSR_ERR_DTYPE_MISMATCH, "\"clamp_cpu\" not implemented for 'Bool'");
  TSR_ASSERT_FAILS(tsr_clamp_tensor(NULL, x, x, &out), TSR_ERR_INVALID_ARGUMENT, "x");
  TSR_ASSERT_FAILS(tsr_clamp_tensor(x, x, x, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(x, 1);
  expect_filled(y, 0);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(h);
  tsr_tensor_release(b);
}
