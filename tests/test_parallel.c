/* tsr_set_num_threads / tsr_get_num_threads (torch.set_num_threads). */
#include "helpers.h"

#include <stdlib.h>

/* a [64, 48] @ b [48, 32] with values from arange, as doubles. */
static void product(double* out) {
  const int64_t sa[] = {64, 48}, sb[] = {48, 32};
  tsr_tensor *fa, *fb, *a, *b, *c;
  TSR_ASSERT_OK(tsr_arange(0, 64 * 48, 1, TSR_FLOAT64, TSR_CPU, &fa));
  TSR_ASSERT_OK(tsr_arange(0, 48 * 32, 1, TSR_FLOAT64, TSR_CPU, &fb));
  TSR_ASSERT_OK(tsr_view(fa, 2, sa, &a));
  TSR_ASSERT_OK(tsr_view(fb, 2, sb, &b));
  TSR_ASSERT_OK(tsr_matmul(a, b, &c));
  TSR_ASSERT_OK(tsr_copy_to_buffer(c, out, 64 * 32 * sizeof(double), NULL));
  tsr_tensor* all[] = {fa, fb, a, b, c};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

Test(parallel, set_and_get_num_threads) {
  const int64_t before = tsr_get_num_threads();
  cr_assert_geq(before, 1);
  static double one[64 * 32], two[64 * 32];
  TSR_ASSERT_OK(tsr_set_num_threads(1));
  cr_expect_eq(tsr_get_num_threads(), 1);
  product(one);
  /* Two threads where the default gave at least two (OpenBLAS caps the
   * count at the machine's). */
  const int64_t many = before >= 2 ? 2 : 1;
  TSR_ASSERT_OK(tsr_set_num_threads(many));
  cr_expect_eq(tsr_get_num_threads(), many);
  product(two);
  cr_expect(memcmp(one, two, sizeof one) == 0, "an integer-valued product is exact on any thread count");
  TSR_ASSERT_FAILS(tsr_set_num_threads(0), TSR_ERR_INVALID_ARGUMENT, "set_num_threads expects a positive integer");
  TSR_ASSERT_FAILS(tsr_set_num_threads(-3), TSR_ERR_INVALID_ARGUMENT, "got -3");
  TSR_ASSERT_FAILS(tsr_set_num_threads(1 << 20), TSR_ERR_INVALID_ARGUMENT, "more than 1024");
  cr_expect_eq(tsr_get_num_threads(), many, "a refused count changes nothing");
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}

/* A float32 product split over threads (matmul cuts the output's rows into
 * blocks, each one OpenBLAS gemm) is bit-identical to the one-thread one,
 * whichever kernel OPENBLAS_CORETYPE picks: blocks start at multiples of 48
 * rows and none is small enough for OpenBLAS's small-matrix kernels. Cut
 * anywhere (the rows split evenly), the Haswell and Zen kernels (12 columns
 * per group) gave other bits for the split products. */
static void random_product(int64_t threads, const int64_t* sa, const int64_t* sb, float* out,
                           size_t nbytes) {
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  tsr_tensor *a, *b, *c;
  TSR_ASSERT_OK(tsr_randn(2, sa, TSR_FLOAT32, g, &a));
  TSR_ASSERT_OK(tsr_randn(2, sb, TSR_FLOAT32, g, &b));
  TSR_ASSERT_OK(tsr_set_num_threads(threads));
  TSR_ASSERT_OK(tsr_matmul(a, b, &c));
  TSR_ASSERT_OK(tsr_copy_to_buffer(c, out, nbytes, NULL));
  tsr_tensor_release(c);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
  tsr_generator_release(g);
}

Test(parallel, float_gemm_same_on_any_thread_count) {
  const int64_t before = tsr_get_num_threads();
  /* examples/fashion's linear layer and its two backward products and a
   * square one (one block each: too few multiply-adds to split), and two
   * that split into 2-3 blocks: 10 outputs per row, and a wide one. */
  const int64_t shapes[][3] = {{64, 3136, 10}, {10, 64, 3136}, {64, 10, 3136}, {300, 200, 250},
                               {4000, 784, 10}, {500, 300, 400}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    const int64_t sa[] = {shapes[s][0], shapes[s][1]}, sb[] = {shapes[s][1], shapes[s][2]};
    const size_t nbytes = (size_t)(shapes[s][0] * shapes[s][2]) * sizeof(float);
    float* one = malloc(nbytes);
    float* more = malloc(nbytes);
    random_product(1, sa, sb, one, nbytes);
    for (int64_t threads = 2; threads <= 4; ++threads) {
      random_product(threads, sa, sb, more, nbytes);
      cr_expect(memcmp(one, more, nbytes) == 0, "%ldx%ldx%ld on %ld threads", (long)sa[0], (long)sa[1],
                (long)sb[1], (long)threads);
    }
    free(more);
    free(one);
  }
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}

/* Elementwise ops split over threads (elementwise.cpp: chunks of 32,768
 * elements, cut anywhere in a run) against values computed here, one
 * element at a time: [517, 389] (201,113 elements, runs cut mid-row), dense,
 * broadcast, transposed and in place; and exp, computed by SLEEF, the same
 * bits on 1 and 2 threads. */
static float ew_value(int64_t i, int64_t salt) { return (float)((i * 7919 + salt) % 2003) / 64.0f - 15.0f; }

static tsr_tensor* ew_tensor(int64_t rows, int64_t cols, int64_t salt) {
  const int64_t n = rows * cols, s[] = {rows, cols};
  float* v = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) v[i] = ew_value(i, salt);
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(float), 2, s, TSR_FLOAT32, &t));
  free(v);
  return t;
}

static void expect_floats(const tsr_tensor* t, const float* want, int64_t n, const char* what) {
  float* got = malloc((size_t)n * sizeof(float));
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, got, (size_t)n * sizeof(float), NULL));
  for (int64_t i = 0; i < n; ++i)
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      cr_expect(false, "%s: element %ld is %a, want %a", what, (long)i, got[i], want[i]);
      break;
    }
  free(got);
}

Test(parallel, elementwise_ops_split_over_threads) {
  const int64_t before = tsr_get_num_threads();
  TSR_ASSERT_OK(tsr_set_num_threads(2));
  const int64_t R = 517, C = 389, n = R * C;
  tsr_tensor *a = ew_tensor(R, C, 0), *b = ew_tensor(R, C, 11), *row = ew_tensor(1, C, 5), *bt = NULL;
  tsr_tensor *sum = NULL, *prod = NULL, *neg = NULL;
  float* want = malloc((size_t)n * sizeof(float));
  TSR_ASSERT_OK(tsr_add(a, b, &sum));
  for (int64_t i = 0; i < n; ++i) want[i] = ew_value(i, 0) + ew_value(i, 11);
  expect_floats(sum, want, n, "a + b");
  TSR_ASSERT_OK(tsr_mul(a, row, &prod));
  for (int64_t i = 0; i < n; ++i) want[i] = ew_value(i, 0) * ew_value(i % C, 5);
  expect_floats(prod, want, n, "a * row (broadcast)");
  /* b [R, C] viewed as [C, R] transposed: strided runs, the scalar loop */
  const int64_t sct[] = {C, R};
  tsr_tensor* bv = NULL;
  TSR_ASSERT_OK(tsr_view(b, 2, sct, &bv));
  TSR_ASSERT_OK(tsr_t(bv, &bt));
  TSR_ASSERT_OK(tsr_neg(bt, &neg));
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) want[i * C + j] = -ew_value(j * R + i, 11);
  expect_floats(neg, want, n, "neg(b.view(C, R).t())");
  /* in place: a.add_(b, alpha=0.25) then a.mul_(0.5) */
  TSR_ASSERT_OK(tsr_add_(a, b, 0.25));
  TSR_ASSERT_OK(tsr_mul_scalar_(a, 0.5));
  for (int64_t i = 0; i < n; ++i) {
    const float p = 0.25f * ew_value(i, 11);
    const float s = ew_value(i, 0) + p;
    want[i] = s * 0.5f;
  }
  expect_floats(a, want, n, "a.add_(b, alpha=0.25).mul_(0.5)");
  /* exp: the same bits on one thread */
  tsr_tensor *e2 = NULL, *e1 = NULL;
  TSR_ASSERT_OK(tsr_exp(b, &e2));
  TSR_ASSERT_OK(tsr_set_num_threads(1));
  TSR_ASSERT_OK(tsr_exp(b, &e1));
  TSR_ASSERT_OK(tsr_copy_to_buffer(e1, want, (size_t)n * sizeof(float), NULL));
  expect_floats(e2, want, n, "exp on 2 threads vs 1");
  free(want);
  tsr_tensor* all[] = {a, b, row, bt, bv, sum, prod, neg, e1, e2};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}

/* The activations (tanh, sigmoid, gelu, pow, clamp and clamp's gradient
 * mask), comparisons and where split over threads too (activation.cpp's
 * dense SIMD calls through parallel_dense, map.h's loops and compare.cpp's
 * and where's through parallel_for_each_run): each op on 2 threads gives
 * the bits it gives on 1, dense and strided, and clamp of a transposed
 * view equals values computed here. */
enum {
  SPLIT_TANH,
  SPLIT_SIGMOID,
  SPLIT_GELU,
  SPLIT_TANH_STRIDED,
  SPLIT_POW_SCALAR,
  SPLIT_POW,
  SPLIT_POW_RUNS,
  SPLIT_CLAMP_STRIDED,
  SPLIT_CLAMP_BF16,
  SPLIT_CLAMP_GRAD,
  SPLIT_LT,
  SPLIT_LT_STRIDED,
  SPLIT_WHERE,
  SPLIT_COUNT
};
static const char* const split_names[SPLIT_COUNT] = {
    "tanh", "sigmoid", "gelu", "tanh of a transposed view", "pow(a, 2.5)", "pow(sigmoid(a), b)",
    "pow(sigmoid(c), row): runs of 400 cut by threads",
    "clamp of a transposed view", "clamp bfloat16", "clamp's gradient", "a < b", "b.t() < a", "where(a < b, a, b)"};

static tsr_tensor* split_op(int op, tsr_tensor* a, tsr_tensor* b, tsr_tensor* bt, tsr_tensor* c,
                           tsr_tensor* row) {
  const double lo = -3, hi = 4;
  tsr_tensor *out = NULL, *t1 = NULL, *t2 = NULL;
  switch (op) {
    case SPLIT_TANH: TSR_ASSERT_OK(tsr_tanh(a, &out)); break;
    case SPLIT_SIGMOID: TSR_ASSERT_OK(tsr_sigmoid(a, &out)); break;
    case SPLIT_GELU: TSR_ASSERT_OK(tsr_gelu(a, TSR_GELU_TANH, &out)); break;
    case SPLIT_TANH_STRIDED: TSR_ASSERT_OK(tsr_tanh(bt, &out)); break;
    case SPLIT_POW_SCALAR: TSR_ASSERT_OK(tsr_pow_scalar(a, 2.5, &out)); break;
    case SPLIT_POW:
      TSR_ASSERT_OK(tsr_sigmoid(a, &t1));
      TSR_ASSERT_OK(tsr_pow(t1, b, &out));
      break;
    case SPLIT_POW_RUNS: /* [601, 400] ** [1, 400]: runs of 400, half of 240,400 is mid-run */
      TSR_ASSERT_OK(tsr_sigmoid(c, &t1));
      TSR_ASSERT_OK(tsr_pow(t1, row, &out));
      break;
    case SPLIT_CLAMP_STRIDED: TSR_ASSERT_OK(tsr_clamp(bt, &lo, &hi, &out)); break;
    case SPLIT_CLAMP_BF16:
      TSR_ASSERT_OK(tsr_to_dtype(a, TSR_BFLOAT16, &t1));
      TSR_ASSERT_OK(tsr_clamp(t1, &lo, &hi, &out));
      break;
    case SPLIT_CLAMP_GRAD: {
      TSR_ASSERT_OK(tsr_detach(a, &t1));
      TSR_ASSERT_OK(tsr_set_requires_grad(t1, true));
      TSR_ASSERT_OK(tsr_clamp(t1, &lo, &hi, &t2));
      TSR_ASSERT_OK(tsr_autograd_grad(1, &t2, (const tsr_tensor* const*)&b, 1, &t1, false, false, false, &out));
      break;
    }
    case SPLIT_LT: TSR_ASSERT_OK(tsr_lt(a, b, &out)); break;
    case SPLIT_LT_STRIDED: TSR_ASSERT_OK(tsr_lt(bt, a, &out)); break;
    case SPLIT_WHERE:
      TSR_ASSERT_OK(tsr_lt(a, b, &t1));
      TSR_ASSERT_OK(tsr_where(t1, a, b, &out));
      break;
  }
  tsr_tensor_release(t2);
  tsr_tensor_release(t1);
  return out;
}

Test(parallel, activations_comparisons_and_where_split_over_threads) {
  const int64_t before = tsr_get_num_threads();
  const int64_t R = 517, C = 389, n = R * C, sct[] = {C, R};
  tsr_tensor *a = ew_tensor(R, C, 0), *b = ew_tensor(R, C, 11), *bv = NULL, *bt = NULL;
  tsr_tensor *c = ew_tensor(601, 400, 3), *row = ew_tensor(1, 400, 9);
  TSR_ASSERT_OK(tsr_view(b, 2, sct, &bv));
  TSR_ASSERT_OK(tsr_t(bv, &bt));
  for (int op = 0; op < SPLIT_COUNT; ++op) {
    TSR_ASSERT_OK(tsr_set_num_threads(2));
    tsr_tensor* two = split_op(op, a, b, bt, c, row);
    TSR_ASSERT_OK(tsr_set_num_threads(1));
    tsr_tensor* one = split_op(op, a, b, bt, c, row);
    const int64_t nbytes = tsr_tensor_nbytes(one);
    cr_assert_eq(tsr_tensor_numel(one), op == SPLIT_POW_RUNS ? 601 * 400 : n, "%s", split_names[op]);
    cr_assert_eq(tsr_tensor_nbytes(two), nbytes, "%s", split_names[op]);
    char* want = malloc((size_t)nbytes);
    char* got = malloc((size_t)nbytes);
    TSR_ASSERT_OK(tsr_copy_to_buffer(one, want, (size_t)nbytes, NULL));
    TSR_ASSERT_OK(tsr_copy_to_buffer(two, got, (size_t)nbytes, NULL));
    cr_expect(memcmp(want, got, (size_t)nbytes) == 0, "%s: 2 threads differ from 1", split_names[op]);
    if (op == SPLIT_CLAMP_STRIDED) {
      const float* v = (const float*)got;
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j) {
          const float x = ew_value(j * R + i, 11), w = x < -3 ? -3.0f : x > 4 ? 4.0f : x;
          if (v[i * C + j] != w) {
            cr_expect(false, "clamp: element (%ld, %ld) is %a, want %a", (long)i, (long)j, v[i * C + j], w);
            i = R;
            break;
          }
        }
    }
    free(got);
    free(want);
    tsr_tensor_release(one);
    tsr_tensor_release(two);
  }
  tsr_tensor* all[] = {a, b, bv, bt, c, row};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) tsr_tensor_release(all[i]);
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}
