/* The vectorized, threaded reduction loops (issue 12, items 2 and 5):
 * sum/mean/max(dim) over outer and inner dims of odd and large sizes,
 * transposed, channels_last and step-sliced inputs, keepdim, every dtype,
 * NaN/inf and ties, softmax/log_softmax rows, checked against PyTorch 1.13
 * (tests/golden/gen_reduce_kernels.py); the accuracy of a long float32 sum
 * against the exact one; and results that do not depend on the thread
 * count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "golden/reduce_kernels_golden.h"
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "helpers.h"

/* The base tensor of a case: its formula of the C-order index, in float64,
 * converted to the case's dtype (as the generator does). */
static double formula(int f, tsr_dtype dtype, int64_t i) {
  const int64_t h = i * 7919;
  if (f == RK_VALUES) {
    switch (dtype) {
      case TSR_FLOAT16: case TSR_BFLOAT16: case TSR_FLOAT32: case TSR_FLOAT64:
        return (double)(h % 2003) / 64 - 15;
      case TSR_BOOL: return h % 3 == 0;
      case TSR_UINT8: return (double)(h % 251);
      default: return (double)(h % 251 - 125);
    }
  }
  if (f == RK_EDGES) { /* the generator's rules, the last one that applies */
    const int64_t row = i / RK_EDGES_ROW, col = i % RK_EDGES_ROW;
    if (col < 2048 && i % 101 == 60) return -INFINITY;
    if (col < 2048 && i % 101 == 7) return INFINITY;
    if (row == 5 && col >= 4100 && col % 37 == 3) return NAN;
    if (row == 0 && col % 31 == 3) return NAN;
    const double v = floor((double)(h % 2003) / 400);
    return v == 0 && i % 2 == 1 ? -0.0 : v;
  }
  if (f == RK_ZEROS) {
    if (i % 211 == 17) return NAN;
    const double v = -floor((double)(h % 2003) / 400);
    return v == 0 ? (i % 2 == 1 ? -0.0 : 0.0) : v;
  }
  if (f == RK_SPECIAL) {
    if (i % 83 == 7) return -INFINITY;
    if (i % 89 == 5) return INFINITY;
    if (i % 97 == 13) return NAN;
  }
  return floor((double)(h % 2003) / 400);
}

static tsr_tensor* case_input(const rk_case* c) {
  int64_t n = 1;
  for (int64_t d = 0; d < c->ndim; ++d) n *= c->sizes[d];
  double* v = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; ++i) v[i] = formula(c->formula, c->dtype, i);
  tsr_tensor *f64, *typed, *x;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), c->ndim, c->sizes, TSR_FLOAT64, &f64));
  free(v);
  TSR_ASSERT_OK(tsr_to_dtype(f64, c->dtype, &typed));
  tsr_tensor_release(f64);
  switch (c->layout) {
    case RK_TRANSPOSED: TSR_ASSERT_OK(tsr_transpose(typed, 0, 1, &x)); break;
    case RK_CHANNELS_LAST: TSR_ASSERT_OK(tsr_contiguous(typed, TSR_CHANNELS_LAST, &x)); break;
    case RK_STEP3: TSR_ASSERT_OK(tsr_slice(typed, 1, 0, c->sizes[1], 3, &x)); break;
    default: return typed;
  }
  tsr_tensor_release(typed);
  return x;
}

/* t's elements in C order as float64 (int64 for indices). */
static void read_back(const tsr_tensor* t, tsr_dtype as, void* buf, int64_t n) {
  tsr_tensor *conv, *dense;
  TSR_ASSERT_OK(tsr_to_dtype(t, as, &conv));
  TSR_ASSERT_OK(tsr_contiguous(conv, TSR_CONTIGUOUS_FORMAT, &dense));
  TSR_ASSERT_OK(tsr_copy_to_buffer(dense, buf, (size_t)n * 8, NULL));
  tsr_tensor_release(conv);
  tsr_tensor_release(dense);
}

static bool same_value(double got, double want, double rtol, double atol) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  /* Exact results (max, integers) keep the sign of a zero: max returns the
   * first maximum, and -0.0 == 0.0 makes either sign a maximum. */
  if (rtol == 0 && atol == 0 && want == 0) return got == 0 && signbit(got) == signbit(want);
  return fabs(got - want) <= atol + rtol * fabs(want);
}

static void check_case(const rk_case* c) {
  tsr_tensor* x = case_input(c);
  tsr_tensor *y = NULL, *idx = NULL;
  if (c->op == RK_SUM) TSR_ASSERT_OK(tsr_sum(x, c->ndims, c->dims, c->keepdim, &y));
  else if (c->op == RK_MEAN) TSR_ASSERT_OK(tsr_mean(x, c->ndims, c->dims, c->keepdim, &y));
  else if (c->op == RK_SOFTMAX) TSR_ASSERT_OK(tsr_softmax(x, c->dims[0], &y));
  else if (c->op == RK_LOG_SOFTMAX) TSR_ASSERT_OK(tsr_log_softmax(x, c->dims[0], &y));
  else TSR_ASSERT_OK(tsr_max_dim(x, c->dims[0], c->keepdim, &y, &idx));
  cr_assert_eq(tsr_tensor_ndim(y), c->out_ndim, "%s: ndim", c->name);
  for (int64_t d = 0; d < c->out_ndim; ++d) {
    cr_assert_eq(tsr_tensor_sizes(y)[d], c->out_sizes[d], "%s: size %ld", c->name, (long)d);
    /* torch's strides, size-1 dims included: C order for the reductions
     * whatever the input's layout (softmax too, in torch 1.13). */
    cr_expect_eq(tsr_tensor_strides(y)[d], c->out_strides[d], "%s: stride %ld is %ld, torch %ld", c->name,
                 (long)d, (long)tsr_tensor_strides(y)[d], (long)c->out_strides[d]);
    if (idx)
      cr_expect_eq(tsr_tensor_strides(idx)[d], c->out_strides[d], "%s: index stride %ld", c->name, (long)d);
  }
  double* got = malloc((size_t)c->out_numel * 8 + 8);
  read_back(y, TSR_FLOAT64, got, c->out_numel);
  int64_t bad = 0;
  for (int64_t i = 0; i < c->out_numel; ++i) {
    /* max is exact: the same value bits (NaN as NaN), and the same index. */
    if (!same_value(got[i], c->values[i], c->rtol, c->atol) && bad++ < 5)
      cr_expect(false, "%s: [%ld] = %.17g, torch %.17g", c->name, (long)i, got[i], c->values[i]);
  }
  cr_expect_eq(bad, 0, "%s: %ld values differ", c->name, (long)bad);
  if (idx) {
    int64_t* gi = malloc((size_t)c->out_numel * 8 + 8);
    read_back(idx, TSR_INT64, gi, c->out_numel);
    for (int64_t i = 0, shown = 0; i < c->out_numel; ++i)
      if (gi[i] != c->indices[i] && shown++ < 5)
        cr_expect(false, "%s: index [%ld] = %ld, torch %ld", c->name, (long)i, (long)gi[i],
                  (long)c->indices[i]);
    free(gi);
    tsr_tensor_release(idx);
  }
  free(got);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

ParameterizedTestParameters(reduce_kernels, golden) {
  static size_t idx[RK_CASES_N];
  for (size_t i = 0; i < RK_CASES_N; ++i) idx[i] = i;
  return cr_make_param_array(size_t, idx, RK_CASES_N);
}
ParameterizedTest(const size_t* i, reduce_kernels, golden) { check_case(&rk_cases[*i]); }

static tsr_tensor* full_f32(int64_t n, float v) {
  tsr_tensor* t;
  const int64_t s[] = {n};
  TSR_ASSERT_OK(tsr_full(1, s, v, TSR_FLOAT32, TSR_CPU, &t));
  return t;
}

/* 10^7 times 0.1f: the exact sum of those float32 values is 1000000.0149...
 * A float32 loop adding one at a time ends near 1087937 (9% off); torch's
 * cascade_sum gives 999999.4375 (6e-7 off). Ours must be as good. */
Test(reduce_kernels, long_float32_sum_is_accurate) {
  const int64_t n = 10000000;
  tsr_tensor* x = full_f32(n, 0.1f);
  const double exact = (double)0.1f * (double)n;
  tsr_tensor *s, *m;
  TSR_ASSERT_OK(tsr_sum(x, 0, NULL, false, &s));
  TSR_ASSERT_OK(tsr_mean(x, 0, NULL, false, &m));
  float sv, mv;
  TSR_ASSERT_OK(tsr_copy_to_buffer(s, &sv, sizeof sv, NULL));
  TSR_ASSERT_OK(tsr_copy_to_buffer(m, &mv, sizeof mv, NULL));
  cr_expect(fabs(sv - exact) / exact < 2e-6, "sum %.9g, exact %.9g", sv, exact);
  cr_expect(fabs(mv - 0.1f) / 0.1 < 2e-6, "mean %.9g", mv);
  /* The same values as a column: an outer reduction of [n, 1]... and of
   * [n/1000, 1000] rows summed into 1000 columns of 10^4 each. */
  const int64_t rows[] = {n / 1000, 1000};
  tsr_tensor *m2, *cols;
  TSR_ASSERT_OK(tsr_view(x, 2, rows, &m2));
  const int64_t d0[] = {0};
  TSR_ASSERT_OK(tsr_sum(m2, 1, d0, false, &cols));
  float* cv = malloc(1000 * sizeof(float));
  TSR_ASSERT_OK(tsr_copy_to_buffer(cols, cv, 1000 * sizeof(float), NULL));
  const double col_exact = (double)0.1f * (double)(n / 1000);
  for (int j = 0; j < 1000; ++j)
    if (fabs(cv[j] - col_exact) / col_exact >= 2e-6) {
      cr_expect(false, "column %d: %.9g, exact %.9g", j, cv[j], col_exact);
      break;
    }
  free(cv);
  tsr_tensor* all[] = {x, s, m, m2, cols};
  for (int k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

/* Runs every reduction of a large [rows, cols] tensor (and its transpose)
 * into buf; the caller compares runs on different thread counts. */
static size_t reduce_all_ways(tsr_dtype dtype, char* buf) {
  const int64_t s[] = {1031, 2053};
  const int64_t n = s[0] * s[1];
  double* v = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; ++i) v[i] = formula(dtype == TSR_FLOAT32 ? RK_SPECIAL : RK_VALUES, dtype, i);
  /* No NaN/inf in the sums' input (they would hide differences). */
  for (int64_t i = 0; dtype == TSR_FLOAT32 && i < n; ++i)
    if (!isfinite(v[i])) v[i] = (double)(i % 13) / 7;
  tsr_tensor *f64, *x, *xt;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 2, s, TSR_FLOAT64, &f64));
  free(v);
  TSR_ASSERT_OK(tsr_to_dtype(f64, dtype, &x));
  TSR_ASSERT_OK(tsr_transpose(x, 0, 1, &xt));
  size_t off = 0;
  tsr_tensor* ins[] = {x, xt};
  const int64_t d0[] = {0}, d1[] = {1};
  for (int k = 0; k < 2; ++k) {
    tsr_tensor *r[5] = {0};
    TSR_ASSERT_OK(tsr_sum(ins[k], 1, d0, false, &r[0]));
    TSR_ASSERT_OK(tsr_sum(ins[k], 1, d1, false, &r[1]));
    TSR_ASSERT_OK(tsr_sum(ins[k], 0, NULL, false, &r[2]));
    TSR_ASSERT_OK(tsr_max_dim(ins[k], 0, false, &r[3], NULL));
    TSR_ASSERT_OK(tsr_argmax(ins[k], 1, false, &r[4]));
    for (int j = 0; j < 5; ++j) {
      size_t bytes = (size_t)tsr_tensor_numel(r[j]) * (size_t)tsr_tensor_element_size(r[j]);
      TSR_ASSERT_OK(tsr_copy_to_buffer(r[j], buf + off, bytes, NULL));
      off += bytes;
      tsr_tensor_release(r[j]);
    }
  }
  tsr_tensor_release(f64);
  tsr_tensor_release(x);
  tsr_tensor_release(xt);
  return off;
}

/* Float sums are split in chunks fixed by the sizes, never by the thread
 * count, so 1 and 2 threads give the same bits (and integers and max are
 * exact anyway). */
Test(reduce_kernels, same_result_on_any_thread_count) {
  const int64_t before = tsr_get_num_threads();
  const size_t cap = 64u << 20;
  char *one = malloc(cap), *two = malloc(cap);
  tsr_dtype dts[] = {TSR_FLOAT32, TSR_INT32, TSR_FLOAT64};
  for (int k = 0; k < 3; ++k) {
    TSR_ASSERT_OK(tsr_set_num_threads(1));
    size_t n1 = reduce_all_ways(dts[k], one);
    TSR_ASSERT_OK(tsr_set_num_threads(2));
    size_t n2 = reduce_all_ways(dts[k], two);
    cr_assert_eq(n1, n2);
    cr_expect(memcmp(one, two, n1) == 0, "dtype %d: results differ between 1 and 2 threads", (int)dts[k]);
  }
  free(one);
  free(two);
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}

/* Sum of a 2048x2048 float32 of ones over dim 1 on the current thread
 * count: every output must be 2048. */
static bool big_sum_ok(void) {
  const int64_t s[] = {2048, 2048}, d1[] = {1};
  tsr_tensor *x, *y;
  if (tsr_full(2, s, 1.0, TSR_FLOAT32, TSR_CPU, &x) != TSR_OK) return false;
  bool ok = tsr_sum(x, 1, d1, false, &y) == TSR_OK;
  if (ok) {
    float v[2048];
    ok = tsr_copy_to_buffer(y, v, sizeof v, NULL) == TSR_OK;
    for (int i = 0; ok && i < 2048; ++i) ok = v[i] == 2048.0f;
    tsr_tensor_release(y);
  }
  tsr_tensor_release(x);
  return ok;
}

/* A process forked after a threaded reduction can still reduce (the
 * parent's pool threads do not exist in the child, which starts its own). */
Test(reduce_kernels, reduction_after_fork) {
  const int64_t before = tsr_get_num_threads();
  TSR_ASSERT_OK(tsr_set_num_threads(2));
  cr_assert(big_sum_ok());
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    alarm(30); /* a hang ends the child with SIGALRM instead of the run */
    _exit(big_sum_ok() ? 0 : 1);
  }
  int status = 0;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}
