/* matmul (1-D/2-D/batched, transposed and expanded operands, K = 0),
 * log_softmax (stability at large values) and cross_entropy against PyTorch
 * 1.13 (tests/golden/gen_ops.py), and their error paths. */
#include <stdint.h>

#include "golden/matmul_golden.h"
#include "helpers.h"
#include "ops_program.h"

TG_PARAMETERIZED(matmul_nn, golden, tg_matmul_nn, TG_MATMUL_NN_N) { tg_check_forward(c); }

static tsr_tensor* ones(int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_ones(ndim, sizes, dtype, TSR_CPU, &t));
  return t;
}

static void expect_ones(const tsr_tensor* t) {
  cr_expect_eq(tsr_version(t), 0);
  double* v = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i) cr_expect_eq(v[i], 1.0);
  free(v);
}

Test(matmul, shape_errors) {
  const int64_t s23[] = {2, 3}, s45[] = {4, 5}, s3[] = {3}, s4[] = {4}, b1[] = {2, 2, 3},
                b2[] = {3, 3, 4};
  tsr_tensor *a = ones(2, s23, TSR_FLOAT32), *b = ones(2, s45, TSR_FLOAT32),
             *v3 = ones(1, s3, TSR_FLOAT32), *v4 = ones(1, s4, TSR_FLOAT32),
             *z = ones(0, NULL, TSR_FLOAT32), *ba = ones(3, b1, TSR_FLOAT32),
             *bb = ones(3, b2, TSR_FLOAT32), *out = SENTINEL;
  /* torch: "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)" */
  TSR_ASSERT_FAILS(tsr_matmul(a, b, &out), TSR_ERR_SHAPE_MISMATCH,
                   "mat1 and mat2 shapes cannot be multiplied");
  TSR_ASSERT_FAILS(tsr_matmul(v3, v4, &out), TSR_ERR_SHAPE_MISMATCH, "cannot be multiplied");
  TSR_ASSERT_FAILS(tsr_matmul(a, v4, &out), TSR_ERR_SHAPE_MISMATCH, "cannot be multiplied");
  TSR_ASSERT_FAILS(tsr_matmul(v3, b, &out), TSR_ERR_SHAPE_MISMATCH, "cannot be multiplied");
  /* torch: "both arguments to matmul need to be at least 1D, but they are 0D and 1D" */
  TSR_ASSERT_FAILS(tsr_matmul(z, v3, &out), TSR_ERR_SHAPE_MISMATCH,
                   "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  /* Batch dims 2 and 3 do not broadcast; torch: "The size of tensor a (2)
   * must match the size of tensor b (3) at non-singleton dimension 0". */
  TSR_ASSERT_FAILS(tsr_matmul(ba, bb, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (2) must match the size of tensor b (3) at "
                   "non-singleton dimension 0");
  TSR_ASSERT_FAILS(tsr_matmul(NULL, b, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_matmul(a, b, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  tsr_tensor* all[] = {a, b, v3, v4, z, ba, bb};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    expect_ones(all[i]);
    tsr_tensor_release(all[i]);
  }
}

Test(matmul, dtype_errors) {
  const int64_t s[] = {2, 2};
  tsr_tensor *f = ones(2, s, TSR_FLOAT32), *d = ones(2, s, TSR_FLOAT64),
             *i = ones(2, s, TSR_INT32), *h = ones(2, s, TSR_FLOAT16), *out = SENTINEL;
  /* torch: "expected scalar type Float but found Double" (no promotion). */
  TSR_ASSERT_FAILS(tsr_matmul(f, d, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type");
  TSR_ASSERT_FAILS(tsr_matmul(d, f, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type");
  /* Integer matmul is not offered (ops.h); float16 is (test_matmul_lowp.c),
   * but not mixed with another dtype: torch's "expected scalar type Half but
   * found Float". */
  TSR_ASSERT_FAILS(tsr_matmul(i, i, &out), TSR_ERR_DTYPE_MISMATCH, "int32");
  TSR_ASSERT_FAILS(tsr_matmul(h, f, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type Half but found Float");
  cr_expect_eq(out, SENTINEL);
  tsr_tensor* all[] = {f, d, i, h};
  for (size_t k = 0; k < 4; ++k) {
    expect_ones(all[k]);
    tsr_tensor_release(all[k]);
  }
}

Test(log_softmax, errors) {
  const int64_t s[] = {2, 3};
  tsr_tensor *x = ones(2, s, TSR_FLOAT32), *xi = ones(2, s, TSR_INT64), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_log_softmax(x, 2, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  /* torch: "log_softmax_lastdim_kernel_impl" not implemented for 'Long'. */
  TSR_ASSERT_FAILS(tsr_log_softmax(xi, 1, &out), TSR_ERR_DTYPE_MISMATCH, "int64");
  TSR_ASSERT_FAILS(tsr_log_softmax(NULL, 1, &out), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_ones(x);
  expect_ones(xi);
  tsr_tensor_release(x);
  tsr_tensor_release(xi);
}

static tsr_tensor* targets(const int64_t* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(int64_t), 1, &n, TSR_INT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

Test(cross_entropy, errors) {
  const int64_t s[] = {4, 3}, s1[] = {3};
  const int64_t too_big[] = {0, 1, 2, 3}, negative[] = {0, -1, 2, 1}, ok[] = {0, 1, 2, 1};
  tsr_tensor *x = ones(2, s, TSR_FLOAT32), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  tsr_tensor *t_big = targets(too_big, 4, TSR_INT64), *t_neg = targets(negative, 4, TSR_INT64),
             *t_i32 = targets(ok, 4, TSR_INT32), *t_short = targets(ok, 3, TSR_INT64),
             *x1 = ones(1, s1, TSR_FLOAT32), *xi = ones(2, s, TSR_INT64),
             *t_ok = targets(ok, 4, TSR_INT64);
  /* torch: "Target 3 is out of bounds." / "Target -1 is out of bounds." */
  TSR_ASSERT_FAILS(tsr_cross_entropy(x, t_big, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "Target 3 is out of bounds");
  TSR_ASSERT_FAILS(tsr_cross_entropy(x, t_neg, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "Target -1 is out of bounds");
  /* torch: "expected scalar type Long but found Int". */
  TSR_ASSERT_FAILS(tsr_cross_entropy(x, t_i32, &out), TSR_ERR_DTYPE_MISMATCH, "int32");
  /* torch: "Expected input batch_size (4) to match target batch_size (3)." */
  TSR_ASSERT_FAILS(tsr_cross_entropy(x, t_short, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected input batch_size (4) to match target batch_size (3)");
  TSR_ASSERT_FAILS(tsr_cross_entropy(x1, t_short, &out), TSR_ERR_SHAPE_MISMATCH, "[N, C]");
  TSR_ASSERT_FAILS(tsr_cross_entropy(xi, t_ok, &out), TSR_ERR_DTYPE_MISMATCH, "int64");
  TSR_ASSERT_FAILS(tsr_cross_entropy(NULL, t_ok, &out), TSR_ERR_INVALID_ARGUMENT,
                   "logits is NULL");
  TSR_ASSERT_FAILS(tsr_cross_entropy(x, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "target is NULL");
  TSR_ASSERT_FAILS(tsr_cross_entropy(x, t_ok, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  /* Nothing changed: logits, their gradient state, the targets. */
  expect_ones(x);
  expect_no_grad(x);
  cr_expect(tsr_is_leaf(x));
  int64_t back[4];
  TSR_ASSERT_OK(tsr_copy_to_buffer(t_big, back, sizeof back, NULL));
  cr_expect(back[3] == 3 && tsr_version(t_big) == 0);
  tsr_tensor* all[] = {x, t_big, t_neg, t_i32, t_short, x1, xi, t_ok};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}
