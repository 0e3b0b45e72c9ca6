/* Elementwise math (ops.h): add/sub/mul/div with broadcasting, type
 * promotion (torch.result_type, 0-dim operands included), non-contiguous
 * inputs and torch's output strides, integer wrap-around, bool arithmetic,
 * relu/exp/log/neg and the scalar variants. Expected values, dtypes and
 * strides come from PyTorch 1.13 (tests/golden/gen_ops.py). */
#include <stdint.h>

#include "golden/ops_golden.h"
#include "helpers.h"
#include "ops_program.h"

TG_PARAMETERIZED(ops, golden, tg_elementwise, TG_ELEMENTWISE_N) { tg_check_forward(c); }

static tsr_tensor* i64_tensor(const int64_t* v, int64_t n) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(int64_t), 1, &n, TSR_INT64, &t));
  return t;
}

static void expect_i64(const tsr_tensor* t, const int64_t* want, int64_t n, const char* what) {
  cr_assert_eq(tsr_tensor_dtype(t), TSR_INT64, "%s: dtype %s", what,
               tsr_dtype_name(tsr_tensor_dtype(t)));
  cr_assert_eq(tsr_tensor_numel(t), n);
  int64_t got[8];
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, got, sizeof got, NULL));
  for (int64_t i = 0; i < n; ++i)
    cr_expect_eq(got[i], want[i], "%s[%lld] = %lld, torch says %lld", what, (long long)i,
                 (long long)got[i], (long long)want[i]);
}

/* int64 arithmetic wraps like torch (and must not be signed-overflow UB:
 * this test is also run under UBSan). */
Test(ops, int64_wraps_around) {
  const int64_t n = sizeof i64_a / sizeof i64_a[0];
  tsr_tensor *a = i64_tensor(i64_a, n), *b = i64_tensor(i64_b, n), *r;
  TSR_ASSERT_OK(tsr_add(a, b, &r));
  expect_i64(r, i64_add, n, "a + b");
  tsr_tensor_release(r);
  TSR_ASSERT_OK(tsr_sub(a, b, &r));
  expect_i64(r, i64_sub, n, "a - b");
  tsr_tensor_release(r);
  TSR_ASSERT_OK(tsr_mul(a, b, &r));
  expect_i64(r, i64_mul, n, "a * b");
  tsr_tensor_release(r);
  TSR_ASSERT_OK(tsr_neg(a, &r));
  expect_i64(r, i64_neg, n, "-a");
  tsr_tensor_release(r);
  /* sum over dim 0 of [a; b] wraps the same way (int64 accumulator). */
  int64_t both[16];
  for (int64_t i = 0; i < n; ++i) {
    both[i] = i64_a[i];
    both[n + i] = i64_b[i];
  }
  const int64_t s2[] = {2, n}, dim0[] = {0};
  tsr_tensor* ab;
  TSR_ASSERT_OK(tsr_from_data(both, (size_t)(2 * n) * sizeof(int64_t), 2, s2, TSR_INT64, &ab));
  TSR_ASSERT_OK(tsr_sum(ab, 1, dim0, false, &r));
  expect_i64(r, i64_sum, n, "sum([a; b], 0)");
  tsr_tensor_release(r);
  tsr_tensor_release(ab);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* ---- error paths: status, message, out untouched, inputs unchanged ---- */

static tsr_tensor* full(int64_t ndim, const int64_t* sizes, double v, tsr_dtype dtype) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_full(ndim, sizes, v, dtype, TSR_CPU, &t));
  return t;
}

/* Asserts t still holds `v` everywhere and was never written in place. */
static void expect_unchanged(const tsr_tensor* t, double v) {
  cr_expect_eq(tsr_version(t), 0);
  double* got = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i) cr_expect_eq(got[i], v);
  free(got);
}

Test(ops, null_arguments) {
  const int64_t s[] = {2};
  tsr_tensor *a = full(1, s, 1, TSR_FLOAT32), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_add(NULL, a, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_mul(a, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "b is NULL");
  TSR_ASSERT_FAILS(tsr_div(a, a, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_relu(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_exp(a, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_mul_scalar(NULL, 2.0, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_add_scalar(a, 2.0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_unchanged(a, 1);
  tsr_tensor_release(a);
}

/* torch: "The size of tensor a (3) must match the size of tensor b (4) at
 * non-singleton dimension 1". */
Test(ops, broadcast_mismatch) {
  const int64_t sa[] = {2, 3}, sb[] = {4};
  tsr_tensor *a = full(2, sa, 1, TSR_FLOAT32), *b = full(1, sb, 2, TSR_FLOAT32), *out = SENTINEL;
  const char* msg = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                    "dimension 1";
  TSR_ASSERT_FAILS(tsr_add(a, b, &out), TSR_ERR_SHAPE_MISMATCH, msg);
  TSR_ASSERT_FAILS(tsr_sub(a, b, &out), TSR_ERR_SHAPE_MISMATCH, msg);
  TSR_ASSERT_FAILS(tsr_mul(a, b, &out), TSR_ERR_SHAPE_MISMATCH, msg);
  TSR_ASSERT_FAILS(tsr_div(a, b, &out), TSR_ERR_SHAPE_MISMATCH, msg);
  cr_expect_eq(out, SENTINEL);
  expect_unchanged(a, 1);
  expect_unchanged(b, 2);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

/* torch 1.13 refuses `-` when either operand is bool, with two messages. */
Test(ops, bool_subtraction_and_negation_refused) {
  const int64_t s[] = {3};
  tsr_tensor *t = full(1, s, 1, TSR_BOOL), *i = full(1, s, 1, TSR_INT32), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_sub(t, t, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Subtraction, the `-` operator, with two bool tensors is not supported");
  TSR_ASSERT_FAILS(tsr_sub(t, i, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Subtraction, the `-` operator, with a bool tensor is not supported");
  TSR_ASSERT_FAILS(tsr_sub(i, t, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Subtraction, the `-` operator, with a bool tensor is not supported");
  TSR_ASSERT_FAILS(tsr_neg(t, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Negation, the `-` operator, on a bool tensor is not supported");
  /* torch: "Boolean inputs not supported for relu". */
  TSR_ASSERT_FAILS(tsr_relu(t, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Boolean inputs not supported for relu");
  cr_expect_eq(out, SENTINEL);
  expect_unchanged(t, 1);
  expect_unchanged(i, 1);
  tsr_tensor_release(t);
  tsr_tensor_release(i);
}

/* mul_scalar / add_scalar keep a's dtype, so they take floating a only
 * (ops.h); torch would promote an integer tensor to float32 instead. */
Test(ops, scalar_ops_need_floating_input) {
  const int64_t s[] = {2};
  tsr_tensor *t = full(1, s, 3, TSR_INT32), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_mul_scalar(t, 2.0, &out), TSR_ERR_DTYPE_MISMATCH, "int32");
  TSR_ASSERT_FAILS(tsr_add_scalar(t, 2.0, &out), TSR_ERR_DTYPE_MISMATCH, "int32");
  cr_expect_eq(out, SENTINEL);
  expect_unchanged(t, 3);
  tsr_tensor_release(t);
}

/* Outputs are new tensors: never aliasing an input, requires_grad false. */
Test(ops, outputs_are_fresh) {
  const int64_t s[] = {2, 2};
  tsr_tensor *a = full(2, s, 1.5, TSR_FLOAT32), *r;
  TSR_ASSERT_OK(tsr_add(a, a, &r));
  bool shares = true;
  TSR_ASSERT_OK(tsr_shares_storage(a, r, &shares));
  cr_expect(!shares);
  cr_expect(!tsr_requires_grad(r));
  cr_expect(tsr_is_leaf(r));
  cr_expect_null(tsr_grad_fn_name(r));
  tsr_tensor_release(r);
  TSR_ASSERT_OK(tsr_mul_scalar(a, 1.0, &r));
  TSR_ASSERT_OK(tsr_shares_storage(a, r, &shares));
  cr_expect(!shares, "mul_scalar by 1 still copies");
  tsr_tensor_release(r);
  tsr_tensor_release(a);
}

/* a + b.t() and b.t() - a run in tiles gathered from the transposed operand
 * (elementwise_simd.h); sizes that are not multiples of the tile or the
 * vector. Each element is one IEEE operation, so the result is exact. */
static void transposed_case(tsr_dtype dtype) {
  enum { R = 70, C = 131 };
  static double a[R * C], b[C * R];
  for (int i = 0; i < R * C; ++i) a[i] = (double)(i % 97) * 0.37 - 11.0 / (double)(i % 13 + 1);
  for (int i = 0; i < C * R; ++i) b[i] = (double)(i % 89) * -1.3 + 7.0 / (double)(i % 7 + 1);
  const int64_t sa[] = {R, C}, sb[] = {C, R};
  tsr_tensor *ta, *tb, *ta_d, *tb_d, *bt, *r;
  TSR_ASSERT_OK(tsr_from_data(a, sizeof a, 2, sa, TSR_FLOAT64, &ta_d));
  TSR_ASSERT_OK(tsr_from_data(b, sizeof b, 2, sb, TSR_FLOAT64, &tb_d));
  TSR_ASSERT_OK(tsr_to_dtype(ta_d, dtype, &ta));
  TSR_ASSERT_OK(tsr_to_dtype(tb_d, dtype, &tb));
  TSR_ASSERT_OK(tsr_t(tb, &bt));
  double* av = tg_values(ta);
  double* bv = tg_values(tb);
  for (int pass = 0; pass < 3; ++pass) {
    if (pass == 0) TSR_ASSERT_OK(tsr_add(ta, bt, &r));
    if (pass == 1) TSR_ASSERT_OK(tsr_sub(bt, ta, &r));
    if (pass == 2) {
      TSR_ASSERT_OK(tsr_clone(ta, TSR_PRESERVE_FORMAT, &r));
      TSR_ASSERT_OK(tsr_add_(r, bt, 1.0));
    }
    double* got = tg_values(r);
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) {
        double want;
        if (dtype == TSR_FLOAT32) {
          const float x = (float)av[i * C + j], y = (float)bv[j * R + i];
          want = pass == 1 ? (double)(float)(y - x) : (double)(float)(x + y);
        } else {
          const double x = av[i * C + j], y = bv[j * R + i];
          want = pass == 1 ? y - x : x + y;
        }
        cr_assert_eq(got[i * C + j], want, "pass %d [%d,%d]: %.17g, want %.17g", pass, i, j,
                     got[i * C + j], want);
      }
    free(got);
    tsr_tensor_release(r);
  }
  free(av);
  free(bv);
  tsr_tensor* all[] = {ta, tb, ta_d, tb_d, bt};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

Test(ops, transposed_operand_exact) {
  transposed_case(TSR_FLOAT32);
  transposed_case(TSR_FLOAT64);
}
