/* conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d and batch_norm
 * (tessera/cnn.h) against PyTorch 1.13 (tests/golden/gen_cnn.py): values,
 * sizes and strides of the results in both memory formats, grad_fn names,
 * gradients of every argument; max_pool2d's indices; batch_norm's running
 * stats after a training step; float64 gradcheck (the reference kernels)
 * through channels_last and strided inputs; flatten after a conv; every
 * error path (status, message, out untouched, nothing written). */
#include <stdint.h>

#include "golden/cnn_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(cnn, conv2d, tg_conv, TG_CONV_N) { tg_check_backward(c); }
TG_PARAMETERIZED(cnn, pooling, tg_pool, TG_POOL_N) {
  if (c->grad_out || c->grads[0].values) tg_check_backward(c);
  else tg_check_forward(c);
}
TG_PARAMETERIZED(cnn, batch_norm, tg_bn, TG_BN_N) { tg_check_backward(c); }

static const int64_t ONE[2] = {1, 1}, ZERO[2] = {0, 0};

/* ---- batch_norm's running statistics -------------------------------------- */

static tsr_tensor* from_doubles(const double* v, int64_t ndim, const int64_t* sizes) {
  int64_t n = 1;
  for (int64_t i = 0; i < ndim; ++i) n *= sizes[i];
  tsr_tensor *f64, *t, *out;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &f64));
  TSR_ASSERT_OK(tsr_to_dtype(f64, TSR_FLOAT32, &t));
  TSR_ASSERT_OK(tsr_reshape(t, ndim, sizes, &out));
  tsr_tensor_release(f64);
  tsr_tensor_release(t);
  return out;
}

static void expect_values(const tsr_tensor* t, const double* want, int64_t n, double tol) {
  cr_assert_eq(tsr_tensor_numel(t), n);
  double* v = tg_values(t);
  for (int64_t i = 0; i < n; ++i)
    cr_expect(fabs(v[i] - want[i]) <= tol * (1 + fabs(want[i])), "element %lld: %.9g, torch %.9g",
              (long long)i, v[i], want[i]);
  free(v);
}

/* One training step updates running_mean / running_var in place as torch
 * (momentum 0.3, unbiased variance), in both memory formats, without
 * history; evaluation leaves them alone. */
static void running_stats_step(tsr_memory_format fmt) {
  const int64_t sx[] = {4, 3, 2, 2}, s3[] = {3};
  tsr_tensor *x0 = from_doubles(tg_bn_step_x, 4, sx), *x, *rm = from_doubles(tg_bn_step_rm, 1, s3),
             *rv = from_doubles(tg_bn_step_rv, 1, s3), *y;
  TSR_ASSERT_OK(tsr_contiguous(x0, fmt, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_batch_norm(x, rm, rv, NULL, NULL, true, 0.3, 1e-5, &y));
  cr_expect_str_eq(tsr_grad_fn_name(y), "NativeBatchNormBackward0");
  expect_values(rm, tg_bn_step_rm_after, 3, 1e-6);
  expect_values(rv, tg_bn_step_rv_after, 3, 1e-6);
  cr_expect_eq(tsr_version(rm), 1);
  cr_expect_eq(tsr_version(rv), 1);
  cr_expect(!tsr_requires_grad(rm) && tsr_grad_fn_name(rm) == NULL);
  tsr_tensor_release(y);
  /* Evaluation reads them and writes nothing. */
  TSR_ASSERT_OK(tsr_batch_norm(x, rm, rv, NULL, NULL, false, 0.3, 1e-5, &y));
  expect_values(rm, tg_bn_step_rm_after, 3, 1e-6);
  cr_expect_eq(tsr_version(rm), 1);
  cr_expect_eq(tsr_version(rv), 1);
  tsr_tensor_release(y);
  tsr_tensor* all[] = {x0, x, rm, rv};
  for (size_t k = 0; k < 4; ++k) tsr_tensor_release(all[k]);
}

Test(cnn, batch_norm_running_stats_contiguous) { running_stats_step(TSR_CONTIGUOUS_FORMAT); }
Test(cnn, batch_norm_running_stats_channels_last) { running_stats_step(TSR_CHANNELS_LAST); }

/* ---- indices and flatten -------------------------------------------------- */

/* max_pool2d's indices are int64 without history, of the values' strides. */
Test(cnn, max_pool2d_indices_no_grad) {
  const int64_t s[] = {1, 2, 4, 4}, k[] = {2, 2};
  tsr_tensor *x = tg_leaf(4, s, 5, 1, 0), *xc, *y, *i;
  TSR_ASSERT_OK(tsr_contiguous(x, TSR_CHANNELS_LAST, &xc));
  TSR_ASSERT_OK(tsr_max_pool2d(xc, k, NULL, ZERO, ONE, false, &y, &i));
  cr_expect_eq(tsr_tensor_dtype(i), TSR_INT64);
  cr_expect(!tsr_requires_grad(i) && tsr_requires_grad(y));
  const int64_t so[] = {1, 2, 2, 2}, st[] = {8, 1, 4, 2};
  tsr_assert_geometry(y, 4, so, st);
  tsr_assert_geometry(i, 4, so, st);
  tsr_tensor* all[] = {x, xc, y, i};
  for (size_t n = 0; n < 4; ++n) tsr_tensor_release(all[n]);
}

/* NaN wins a max-pooling window and keeps winning (torch: `val > max ||
 * isnan(val)`, so the last NaN's index), the first maximum wins ties, in
 * both memory formats (the channels_last loop is a separate kernel), and
 * 2 x 2 windows of a 4 x 4 plane: channel 0 has a NaN at (0, 1) and (1, 0),
 * channel 1 ties of 5 at (2, 2) and (3, 3), channel 2 is 0..15. */
Test(cnn, max_pool2d_nan_and_ties_both_formats) {
  const int64_t s[] = {1, 3, 4, 4}, k[] = {2, 2};
  tsr_tensor* x0 = filled(4, s, TSR_FLOAT32, 1);
  for (int64_t h = 0; h < 4; ++h)
    for (int64_t w = 0; w < 4; ++w) {
      const int64_t i2[] = {0, 2, h, w};
      TSR_ASSERT_OK(tsr_set_double(x0, 4, i2, (double)(h * 4 + w)));
    }
  const int64_t n1[] = {0, 0, 0, 1}, n2[] = {0, 0, 1, 0}, t1[] = {0, 1, 2, 2}, t2[] = {0, 1, 3, 3};
  TSR_ASSERT_OK(tsr_set_double(x0, 4, n1, NAN));
  TSR_ASSERT_OK(tsr_set_double(x0, 4, n2, NAN));
  TSR_ASSERT_OK(tsr_set_double(x0, 4, t1, 5));
  TSR_ASSERT_OK(tsr_set_double(x0, 4, t2, 5));
  for (int f = 0; f < 2; ++f) {
    tsr_tensor *x, *y, *i;
    TSR_ASSERT_OK(tsr_contiguous(x0, f ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT, &x));
    TSR_ASSERT_OK(tsr_max_pool2d(x, k, NULL, ZERO, ONE, false, &y, &i));
    double v;
    int64_t idx;
    const int64_t o00[] = {0, 0, 0, 0}, o11[] = {0, 1, 1, 1}, o21[] = {0, 2, 1, 1};
    TSR_ASSERT_OK(tsr_get_double(y, 4, o00, &v));
    cr_expect(isnan(v), "format %d: NaN lost", f);
    TSR_ASSERT_OK(tsr_get_int64(i, 4, o00, &idx));
    cr_expect_eq(idx, 4, "format %d: index of the last NaN (1, 0) is 4, got %lld", f, (long long)idx);
    TSR_ASSERT_OK(tsr_get_double(y, 4, o11, &v));
    cr_expect_eq(v, 5.0);
    TSR_ASSERT_OK(tsr_get_int64(i, 4, o11, &idx));
    cr_expect_eq(idx, 10, "format %d: first of the tied maxima (2, 2) is 10, got %lld", f, (long long)idx);
    TSR_ASSERT_OK(tsr_get_double(y, 4, o21, &v));
    cr_expect_eq(v, 15.0);
    TSR_ASSERT_OK(tsr_get_int64(i, 4, o21, &idx));
    cr_expect_eq(idx, 15);
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    tsr_tensor_release(i);
  }
  tsr_tensor_release(x0);
}

/* flatten(1, -1) after a conv: a view of a contiguous output, a copy of a
 * channels_last one (torch.flatten's reshape rule). */
Test(cnn, flatten_after_conv) {
  const int64_t sx[] = {2, 3, 4, 4}, sw[] = {5, 3, 3, 3};
  tsr_tensor *x = filled(4, sx, TSR_FLOAT32, 1), *w = filled(4, sw, TSR_FLOAT32, 0.5), *xc, *y, *f;
  TSR_ASSERT_OK(tsr_conv2d(x, w, NULL, ONE, ONE, ONE, 1, &y));
  TSR_ASSERT_OK(tsr_flatten(y, 1, -1, &f));
  const int64_t s2[] = {2, 80}, st2[] = {80, 1};
  tsr_assert_geometry(f, 2, s2, st2);
  cr_expect_eq(tsr_tensor_data_ptr(f), tsr_tensor_data_ptr(y));
  tsr_tensor_release(f);
  tsr_tensor_release(y);
  TSR_ASSERT_OK(tsr_contiguous(x, TSR_CHANNELS_LAST, &xc));
  TSR_ASSERT_OK(tsr_conv2d(xc, w, NULL, ONE, ONE, ONE, 1, &y));
  TSR_ASSERT_OK(tsr_flatten(y, 1, -1, &f));
  tsr_assert_geometry(f, 2, s2, st2);
  cr_expect_neq(tsr_tensor_data_ptr(f), tsr_tensor_data_ptr(y));
  double v;
  const int64_t i0[] = {1, 7};
  TSR_ASSERT_OK(tsr_get_double(f, 2, i0, &v));
  /* Every output element sums 3 channels x (a window's in-bounds taps) of 0.5. */
  cr_expect(v > 0);
  tsr_tensor* all[] = {x, w, xc, y, f};
  for (size_t n = 0; n < 5; ++n) tsr_tensor_release(all[n]);
}

/* ---- gradcheck (float64: the reference kernels) --------------------------- */

typedef struct {
  int64_t stride[2], padding[2], dilation[2], groups;
  tsr_memory_format fmt;
} conv_ctx;

static tsr_tensor* f_conv(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const conv_ctx* c = ctx;
  tsr_tensor* x = T(tsr_contiguous(in[0], c->fmt, &o_));
  return T(tsr_conv2d(x, in[1], in[2], c->stride, c->padding, c->dilation, c->groups, &o_));
}

Test(cnn, gradcheck_conv2d) {
  const int64_t sx[] = {2, 4, 5, 6}, sw[] = {6, 2, 3, 2}, sb[] = {6};
  const conv_ctx cases[] = {{{2, 1}, {1, 1}, {1, 2}, 2, TSR_CONTIGUOUS_FORMAT},
                            {{1, 2}, {0, 1}, {2, 1}, 2, TSR_CHANNELS_LAST}};
  for (size_t k = 0; k < 2; ++k) {
    tsr_tensor* in[] = {tg_leaf(4, sx, 41, 1, 0), tg_leaf(4, sw, 42, 1, 0), tg_leaf(1, sb, 43, 1, 0)};
    cr_expect_eq(tg_gradcheck("conv2d", f_conv, 3, in, &cases[k]), 240 + 72 + 6);
    for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
  }
}

typedef struct {
  int kind; /* 0 max, 1 avg, 2 adaptive */
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  bool ceil_mode, count_include_pad;
  tsr_memory_format fmt;
} pool_ctx;

static tsr_tensor* f_pool(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const pool_ctx* c = ctx;
  tsr_tensor* x = T(tsr_contiguous(in[0], c->fmt, &o_));
  if (c->kind == 0)
    return T(tsr_max_pool2d(x, c->kernel, c->stride, c->padding, c->dilation, c->ceil_mode, &o_, NULL));
  if (c->kind == 1)
    return T(tsr_avg_pool2d(x, c->kernel, c->stride, c->padding, c->ceil_mode, c->count_include_pad, &o_));
  return T(tsr_adaptive_avg_pool2d(x, c->kernel, &o_));
}

Test(cnn, gradcheck_pooling) {
  const int64_t sx[] = {2, 3, 7, 6};
  const pool_ctx cases[] = {
      {0, {3, 2}, {2, 2}, {1, 1}, {1, 2}, true, false, TSR_CONTIGUOUS_FORMAT},
      {0, {3, 3}, {1, 2}, {1, 0}, {2, 1}, false, false, TSR_CHANNELS_LAST},
      {1, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true, false, TSR_CONTIGUOUS_FORMAT},
      {1, {2, 3}, {2, 1}, {1, 1}, {1, 1}, false, true, TSR_CHANNELS_LAST},
      {2, {4, 5}, {0}, {0}, {0}, false, false, TSR_CONTIGUOUS_FORMAT},
      {2, {3, 4}, {0}, {0}, {0}, false, false, TSR_CHANNELS_LAST},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    tsr_tensor* in[] = {tg_leaf(4, sx, 50 + k, 1, 0)};
    cr_expect_eq(tg_gradcheck("pooling", f_pool, 1, in, &cases[k]), 252, "case %zu", k);
    tsr_tensor_release(in[0]);
  }
}

typedef struct {
  bool training;
  tsr_memory_format fmt;
} bn_ctx;

static tsr_tensor* f_bn(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const bn_ctx* c = ctx;
  tsr_tensor* x = T(tsr_contiguous(in[0], c->fmt, &o_));
  tsr_tensor *rm = NULL, *rv = NULL;
  if (!c->training) {
    rm = T(tsr_clone(in[3], TSR_CONTIGUOUS_FORMAT, &o_));
    rv = T(tsr_clone(in[4], TSR_CONTIGUOUS_FORMAT, &o_));
  }
  return T(tsr_batch_norm(x, rm, rv, in[1], in[2], c->training, 0.1, 1e-5, &o_));
}

Test(cnn, gradcheck_batch_norm) {
  const int64_t sx[] = {3, 4, 3, 2}, sc[] = {4};
  const bn_ctx cases[] = {{true, TSR_CONTIGUOUS_FORMAT}, {true, TSR_CHANNELS_LAST},
                          {false, TSR_CONTIGUOUS_FORMAT}, {false, TSR_CHANNELS_LAST}};
  for (size_t k = 0; k < 4; ++k) {
    tsr_tensor* in[] = {tg_leaf(4, sx, 61, 2, 1), tg_leaf(1, sc, 62, 1, 1), tg_leaf(1, sc, 63, 1, 0),
                        tg_leaf(1, sc, 64, 1, 0), tg_leaf(1, sc, 65, 0.2, 1.5)};
    /* running stats are inputs, not differentiated */
    TSR_ASSERT_OK(tsr_set_requires_grad(in[3], false));
    TSR_ASSERT_OK(tsr_set_requires_grad(in[4], false));
    cr_expect_eq(tg_gradcheck("batch_norm", f_bn, 5, in, &cases[k]), 72 + 4 + 4, "case %zu", k);
    for (int i = 0; i < 5; ++i) tsr_tensor_release(in[i]);
  }
}

/* ---- second derivatives (create_graph) --------------------------------- */

/* f = sum of the squares of the first-order gradients of
 * L = sum(layer(x, ...)^2 * r), taken with create_graph: gradcheck of f
 * differentiates through the layers' backward primitives (torch's double
 * backward). r is a fixed weighting (in[last], not differentiated). */
typedef struct {
  int kind; /* 0 conv2d, 1 max_pool2d, 2 avg_pool2d, 3 adaptive_avg_pool2d */
  tsr_memory_format fmt;
} gg_ctx;

static tsr_tensor* f_double(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const gg_ctx* c = ctx;
  bool prev = tsr_set_grad_enabled(true);
  const int64_t k2[] = {2, 2}, s21[] = {2, 1}, p1[] = {1, 1}, o23[] = {2, 3};
  tsr_tensor* x = T(tsr_contiguous(in[0], c->fmt, &o_));
  tsr_tensor *y, *r;
  int n;
  if (c->kind == 0) {
    y = T(tsr_conv2d(x, in[1], in[2], s21, p1, ONE, 2, &o_));
    r = in[3];
    n = 3;
  } else {
    if (c->kind == 1) y = T(tsr_max_pool2d(x, k2, ONE, ONE, ONE, false, &o_, NULL));
    else if (c->kind == 2) y = T(tsr_avg_pool2d(x, k2, s21, ONE, true, false, &o_));
    else y = T(tsr_adaptive_avg_pool2d(x, o23, &o_));
    r = in[1];
    n = 1;
  }
  tsr_tensor* l = T(tsr_sum(T(tsr_mul(T(tsr_mul(y, y, &o_)), r, &o_)), 0, NULL, false, &o_));
  tsr_tensor* grads[3] = {NULL, NULL, NULL};
  TSR_ASSERT_OK(tsr_autograd_grad(1, &l, NULL, n, in, true, true, false, grads));
  tsr_tensor* total = NULL;
  for (int i = 0; i < n; ++i) {
    tg_keep(ar, grads[i]);
    tsr_tensor* sq = T(tsr_sum(T(tsr_mul(grads[i], grads[i], &o_)), 0, NULL, false, &o_));
    total = total ? T(tsr_add(total, sq, &o_)) : sq;
  }
  tsr_set_grad_enabled(prev);
  return total;
}

Test(cnn, gradgradcheck_conv2d) {
  const int64_t sx[] = {2, 4, 4, 5}, sw[] = {4, 2, 3, 2}, sb[] = {4}, sy[] = {2, 4, 2, 6};
  for (int k = 0; k < 2; ++k) {
    const gg_ctx c = {0, k ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT};
    tsr_tensor* in[] = {tg_leaf(4, sx, 101, 1, 0), tg_leaf(4, sw, 102, 1, 0), tg_leaf(1, sb, 103, 1, 0),
                        tg_leaf(4, sy, 104, 1, 0)};
    TSR_ASSERT_OK(tsr_set_requires_grad(in[3], false));
    cr_expect_eq(tg_gradcheck("conv2d double backward", f_double, 4, in, &c), 160 + 48 + 4);
    for (int i = 0; i < 4; ++i) tsr_tensor_release(in[i]);
  }
}

Test(cnn, gradgradcheck_pooling) {
  const int64_t sx[] = {1, 2, 5, 6};
  const int64_t sy[3][4] = {{1, 2, 6, 7}, {1, 2, 3, 7}, {1, 2, 2, 3}}; /* the outputs' sizes */
  for (int kind = 1; kind <= 3; ++kind)
    for (int f = 0; f < 2; ++f) {
      const gg_ctx c = {kind, f ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT};
      tsr_tensor* in[] = {tg_leaf(4, sx, 110 + (uint64_t)kind, 1, 0), tg_leaf(4, sy[kind - 1], 120, 1, 0)};
      TSR_ASSERT_OK(tsr_set_requires_grad(in[1], false));
      cr_expect_eq(tg_gradcheck("pooling double backward", f_double, 2, in, &c), 60, "kind %d", kind);
      tsr_tensor_release(in[0]);
      tsr_tensor_release(in[1]);
    }
}

/* batch_norm: under create_graph its backward is written in differentiable
 * ops, so the second derivative flows (training: through the batch
 * statistics too; evaluation: the running stats are constants). in: x, w,
 * b, r, running_mean, running_var. */
static tsr_tensor* f_bn_double(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const bn_ctx* c = ctx;
  bool prev = tsr_set_grad_enabled(true);
  tsr_tensor* x = T(tsr_contiguous(in[0], c->fmt, &o_));
  tsr_tensor *rm = NULL, *rv = NULL;
  if (!c->training) {
    rm = T(tsr_clone(in[4], TSR_CONTIGUOUS_FORMAT, &o_));
    rv = T(tsr_clone(in[5], TSR_CONTIGUOUS_FORMAT, &o_));
  }
  tsr_tensor* y = T(tsr_batch_norm(x, rm, rv, in[1], in[2], c->training, 0.1, 1e-5, &o_));
  tsr_tensor* l = T(tsr_sum(T(tsr_mul(T(tsr_mul(y, y, &o_)), in[3], &o_)), 0, NULL, false, &o_));
  tsr_tensor* grads[3] = {NULL, NULL, NULL};
  TSR_ASSERT_OK(tsr_autograd_grad(1, &l, NULL, 3, in, true, true, false, grads));
  tsr_tensor* total = NULL;
  for (int i = 0; i < 3; ++i) {
    tg_keep(ar, grads[i]);
    tsr_tensor* sq = T(tsr_sum(T(tsr_mul(grads[i], grads[i], &o_)), 0, NULL, false, &o_));
    total = total ? T(tsr_add(total, sq, &o_)) : sq;
  }
  tsr_set_grad_enabled(prev);
  return total;
}

Test(cnn, gradgradcheck_batch_norm) {
  const int64_t sx[] = {3, 2, 2, 2}, sc[] = {2};
  const bn_ctx cases[] = {{true, TSR_CONTIGUOUS_FORMAT}, {true, TSR_CHANNELS_LAST}, {false, TSR_CONTIGUOUS_FORMAT}};
  for (size_t k = 0; k < 3; ++k) {
    tsr_tensor* in[] = {tg_leaf(4, sx, 131, 2, 1), tg_leaf(1, sc, 132, 1, 1), tg_leaf(1, sc, 133, 1, 0),
                        tg_leaf(4, sx, 134, 1, 0), tg_leaf(1, sc, 135, 1, 0), tg_leaf(1, sc, 136, 0.2, 1.5)};
    for (int i = 3; i < 6; ++i) TSR_ASSERT_OK(tsr_set_requires_grad(in[i], false));
    cr_expect_eq(tg_gradcheck("batch_norm double backward", f_bn_double, 6, in, &cases[k]), 24 + 2 + 2,
                 "case %zu", k);
    for (int i = 0; i < 6; ++i) tsr_tensor_release(in[i]);
  }
}

/* ---- errors --------------------------------------------------------------- */

Test(cnn, conv2d_errors) {
  const int64_t sx[] = {2, 4, 7, 7}, sw[] = {6, 4, 3, 3}, sw3[] = {6, 3, 3, 3}, sw5[] = {5, 2, 3, 3},
                sb5[] = {5}, s3d[] = {4, 7}, ssmall[] = {2, 4, 2, 2}, sw3d[] = {6, 4, 3};
  tsr_tensor *x = filled(4, sx, TSR_FLOAT32, 1), *w = filled(4, sw, TSR_FLOAT32, 2),
             *w3 = filled(4, sw3, TSR_FLOAT32, 2), *w5 = filled(4, sw5, TSR_FLOAT32, 2),
             *b5 = filled(1, sb5, TSR_FLOAT32, 3), *x3 = filled(2, s3d, TSR_FLOAT32, 1),
             *xs = filled(4, ssmall, TSR_FLOAT32, 1), *wd = filled(4, sw, TSR_FLOAT64, 2),
             *xi = filled(4, sx, TSR_INT64, 1), *wi = filled(4, sw, TSR_INT64, 1),
             *xh = filled(4, sx, TSR_FLOAT16, 1), *w1d = filled(3, sw3d, TSR_FLOAT32, 1), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  const int64_t neg[] = {-1, 1}, zero[] = {0, 1}, two[] = {2, 2};
  TSR_ASSERT_FAILS(tsr_conv2d(x, w3, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Given groups=1, weight of size [6, 3, 3, 3], expected input[2, 4, 7, 7] to have 3 channels, "
                   "but got 4 channels instead");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w5, NULL, ONE, ONE, ONE, 2, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
                   "[[5, 2, 3, 3]] instead");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, ONE, ONE, 3, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Given groups=3, weight of size [6, 4, 3, 3], expected input[2, 4, 7, 7] to have 12 channels");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, ONE, ONE, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "non-positive groups is not supported");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, zero, ONE, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT,
                   "non-positive stride is not supported");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, neg, ONE, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT,
                   "non-positive stride is not supported");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, neg, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT,
                   "negative padding is not supported");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, ONE, zero, 1, &out), TSR_ERR_INVALID_ARGUMENT,
                   "non-positive dilation is not supported");
  TSR_ASSERT_FAILS(tsr_conv2d(xs, w, NULL, ONE, ZERO, ONE, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be "
                   "greater than actual input size");
  TSR_ASSERT_FAILS(tsr_conv2d(xs, w, NULL, ONE, ONE, two, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Calculated padded input size per channel: (4 x 4). Kernel size: (5 x 5)");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, b5, ONE, ONE, ONE, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Given weight of size [6, 4, 3, 3], expected bias to be 1-dimensional with 6 elements, but got "
                   "bias of size [5] instead");
  TSR_ASSERT_FAILS(tsr_conv2d(x3, w, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [4, 7]");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w1d, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "expected weight to be 4-dimensional");
  TSR_ASSERT_FAILS(tsr_conv2d(x, wd, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "weight type (float64) should be the same as input type (float32)");
  TSR_ASSERT_FAILS(tsr_conv2d(xi, wi, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "not implemented for 'Long'");
  /* float16 convolution exists (torch 2.x's); a float32 weight does not match it. */
  TSR_ASSERT_FAILS(tsr_conv2d(xh, w, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "weight type (float32) should be the same as input type (float16)");
  TSR_ASSERT_FAILS(tsr_conv2d(NULL, w, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT, "input is NULL");
  TSR_ASSERT_FAILS(tsr_conv2d(x, NULL, NULL, ONE, ONE, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT, "weight is NULL");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, NULL, ONE, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT, "stride is NULL");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, NULL, ONE, 1, &out), TSR_ERR_INVALID_ARGUMENT, "padding is NULL");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, ONE, NULL, 1, &out), TSR_ERR_INVALID_ARGUMENT, "dilation is NULL");
  TSR_ASSERT_FAILS(tsr_conv2d(x, w, NULL, ONE, ONE, ONE, 1, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_no_grad(w);
  expect_filled(x, 1);
  expect_filled(w, 2);
  tsr_tensor* all[] = {x, w, w3, w5, b5, x3, xs, wd, xi, wi, xh, w1d};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

Test(cnn, pooling_errors) {
  const int64_t sx[] = {2, 4, 7, 7}, s5[] = {1, 2, 4, 7, 7}, ssmall[] = {2, 4, 2, 2}, sempty[] = {2, 4, 0, 3};
  tsr_tensor *x = filled(4, sx, TSR_FLOAT32, 1), *x5 = filled(5, s5, TSR_FLOAT32, 1),
             *xs = filled(4, ssmall, TSR_FLOAT32, 1), *xi = filled(4, sx, TSR_INT64, 1),
             *xe = filled(4, sempty, TSR_FLOAT32, 1), *out = SENTINEL, *ind = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  const int64_t k3[] = {3, 3}, k0[] = {0, 3}, s0[] = {0, 1}, p2[] = {2, 0}, pn[] = {-1, 0}, d0[] = {1, 0},
                oneg[] = {-1, 2};
  /* max_pool2d */
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, ONE, p2, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, ONE, pn, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "pad should be at most half of kernel size, but got pad=-1");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, s0, ZERO, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "stride should be greater than zero, but got dH: 0 dW: 1");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k0, ONE, ZERO, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "kernel size should be greater than zero, but got kH: 0 kW: 3");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, NULL, ZERO, d0, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "dilation should be greater than zero, but got dilationH: 1 dilationW: 0");
  TSR_ASSERT_FAILS(tsr_max_pool2d(xs, k3, NULL, ZERO, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "Given input size: (4x2x2). Calculated output size: (4x0x0). Output size is too small");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x5, k3, NULL, ZERO, ONE, false, &out, &ind), TSR_ERR_SHAPE_MISMATCH,
                   "non-empty 3D or 4D (batch mode) tensor expected for input");
  TSR_ASSERT_FAILS(tsr_max_pool2d(xe, k3, NULL, ZERO, ONE, false, &out, &ind), TSR_ERR_SHAPE_MISMATCH,
                   "non-zero size for non-batch dimensions");
  TSR_ASSERT_FAILS(tsr_max_pool2d(xi, k3, NULL, ZERO, ONE, false, &out, &ind), TSR_ERR_DTYPE_MISMATCH,
                   "\"max_pool2d\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_max_pool2d(NULL, k3, NULL, ZERO, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "input is NULL");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, NULL, NULL, ZERO, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "kernel_size is NULL");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, NULL, NULL, ONE, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "padding is NULL");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, NULL, ZERO, NULL, false, &out, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "dilation is NULL");
  TSR_ASSERT_FAILS(tsr_max_pool2d(x, k3, NULL, ZERO, ONE, false, NULL, &ind), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  cr_expect_eq(ind, SENTINEL);
  /* avg_pool2d */
  TSR_ASSERT_FAILS(tsr_avg_pool2d(x, k3, ONE, p2, false, true, &out), TSR_ERR_INVALID_ARGUMENT,
                   "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
  TSR_ASSERT_FAILS(tsr_avg_pool2d(x, k3, s0, ZERO, false, true, &out), TSR_ERR_INVALID_ARGUMENT,
                   "stride should be greater than zero");
  TSR_ASSERT_FAILS(tsr_avg_pool2d(x, k0, NULL, ZERO, false, true, &out), TSR_ERR_INVALID_ARGUMENT,
                   "kernel size should be greater than zero");
  TSR_ASSERT_FAILS(tsr_avg_pool2d(xs, k3, NULL, ZERO, false, true, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Output size is too small");
  TSR_ASSERT_FAILS(tsr_avg_pool2d(xi, k3, NULL, ZERO, false, true, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"avg_pool2d\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_avg_pool2d(x5, k3, NULL, ZERO, false, true, &out), TSR_ERR_SHAPE_MISMATCH,
                   "4D (batch mode) tensor expected");
  TSR_ASSERT_FAILS(tsr_avg_pool2d(x, k3, NULL, ZERO, false, true, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  /* adaptive_avg_pool2d */
  TSR_ASSERT_FAILS(tsr_adaptive_avg_pool2d(x, oneg, &out), TSR_ERR_INVALID_ARGUMENT,
                   "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
                   "{-1, 2}");
  TSR_ASSERT_FAILS(tsr_adaptive_avg_pool2d(x5, k3, &out), TSR_ERR_SHAPE_MISMATCH,
                   "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [1, 2, 4, 7, 7]");
  TSR_ASSERT_FAILS(tsr_adaptive_avg_pool2d(xe, k3, &out), TSR_ERR_SHAPE_MISMATCH,
                   "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
                   "input has sizes [2, 4, 0, 3] with dimension 2 being empty");
  TSR_ASSERT_FAILS(tsr_adaptive_avg_pool2d(xi, k3, &out), TSR_ERR_DTYPE_MISMATCH, "not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_adaptive_avg_pool2d(x, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "output_size is NULL");
  TSR_ASSERT_FAILS(tsr_adaptive_avg_pool2d(NULL, k3, &out), TSR_ERR_INVALID_ARGUMENT, "input is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  tsr_tensor* all[] = {x, x5, xs, xi, xe};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

Test(cnn, batch_norm_errors) {
  const int64_t sx[] = {2, 4, 3, 3}, s4[] = {4}, s3[] = {3}, s1[] = {4}, sone[] = {1, 4, 1, 1};
  tsr_tensor *x = filled(4, sx, TSR_FLOAT32, 1), *rm = filled(1, s4, TSR_FLOAT32, 0.5),
             *rv = filled(1, s4, TSR_FLOAT32, 2), *rm3 = filled(1, s3, TSR_FLOAT32, 0.5),
             *w3 = filled(1, s3, TSR_FLOAT32, 1), *rmd = filled(1, s4, TSR_FLOAT64, 0.5),
             *x1 = filled(1, s1, TSR_FLOAT32, 1), *xone = filled(4, sone, TSR_FLOAT32, 1),
             *xi = filled(4, sx, TSR_INT64, 1), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rm3, rv, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "running_mean should contain 4 elements not 3");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rm, rv, w3, NULL, true, 0.1, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "weight should contain 4 elements not 3");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rm, rv, NULL, w3, true, 0.1, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "bias should contain 4 elements not 3");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, NULL, NULL, NULL, NULL, false, 0.1, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "running_mean must be defined in evaluation mode");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rm, NULL, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "running_mean and running_var must both be given");
  TSR_ASSERT_FAILS(tsr_batch_norm(xone, rm, rv, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "Expected more than 1 value per channel when training, got input size [1, 4, 1, 1]");
  TSR_ASSERT_FAILS(tsr_batch_norm(x1, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_SHAPE_MISMATCH,
                   "expected input of at least 2 dims");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rmd, rv, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "mixed dtype (CPU): expect parameter to have scalar type of Float");
  TSR_ASSERT_FAILS(tsr_batch_norm(xi, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_batch_norm(NULL, rm, rv, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "input is NULL");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rm, rv, NULL, NULL, true, 0.1, 1e-5, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  /* The running stats were not written by any failed call. */
  expect_filled(rm, 0.5);
  expect_filled(rv, 2);
  tsr_tensor* all[] = {x, rm, rv, rm3, w3, rmd, x1, xone, xi};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
}

/* ---- checkpointing -------------------------------------------------------- */

/* A small network: conv -> batch_norm (training) -> relu -> max_pool ->
 * conv -> avg_pool -> adaptive_avg_pool -> flatten -> sum. */
typedef struct {
  tsr_tensor *w1, *b1, *gamma, *beta, *rm, *rv, *w2;
} net;

static tsr_tensor* net_forward(const net* n, const tsr_tensor* x) {
  tsr_tensor *a, *b, *c, *d, *e, *f, *g, *h, *loss;
  const int64_t k2[] = {2, 2}, o1[] = {1, 1};
  TSR_ASSERT_OK(tsr_conv2d(x, n->w1, n->b1, ONE, ONE, ONE, 1, &a));
  TSR_ASSERT_OK(tsr_batch_norm(a, n->rm, n->rv, n->gamma, n->beta, true, 0.1, 1e-5, &b));
  TSR_ASSERT_OK(tsr_relu(b, &c));
  TSR_ASSERT_OK(tsr_max_pool2d(c, k2, NULL, ZERO, ONE, false, &d, NULL));
  TSR_ASSERT_OK(tsr_conv2d(d, n->w2, NULL, ONE, ONE, ONE, 2, &e));
  TSR_ASSERT_OK(tsr_avg_pool2d(e, k2, ONE, ZERO, true, false, &f));
  TSR_ASSERT_OK(tsr_adaptive_avg_pool2d(f, o1, &g));
  TSR_ASSERT_OK(tsr_flatten(g, 1, -1, &h));
  TSR_ASSERT_OK(tsr_sum(h, 0, NULL, false, &loss));
  tsr_tensor* all[] = {a, b, c, d, e, f, g, h};
  for (size_t k = 0; k < 8; ++k) tsr_tensor_release(all[k]);
  return loss;
}

static net net_make(void) {
  const int64_t s1[] = {4, 3, 3, 3}, s4[] = {4}, s2[] = {6, 2, 3, 3};
  net n;
  tsr_tensor** params[] = {&n.w1, &n.b1, &n.gamma, &n.beta, &n.w2};
  const int64_t* sizes[] = {s1, s4, s4, s4, s2};
  const int64_t nd[] = {4, 1, 1, 1, 4};
  for (int k = 0; k < 5; ++k) {
    tsr_tensor* d = tg_leaf(nd[k], sizes[k], 80 + k, 0.5, k == 2 ? 1 : 0);
    TSR_ASSERT_OK(tsr_set_requires_grad(d, false));
    TSR_ASSERT_OK(tsr_to_dtype(d, TSR_FLOAT32, params[k]));
    TSR_ASSERT_OK(tsr_set_requires_grad(*params[k], true));
    tsr_tensor_release(d);
  }
  n.rm = filled(1, s4, TSR_FLOAT32, 0);
  n.rv = filled(1, s4, TSR_FLOAT32, 1);
  return n;
}

static void net_release(net* n) {
  tsr_tensor* all[] = {n->w1, n->b1, n->gamma, n->beta, n->rm, n->rv, n->w2};
  for (size_t k = 0; k < 7; ++k) tsr_tensor_release(all[k]);
}

/* The same gradients and running stats with and without a checkpoint
 * region (whose replay re-runs conv, pooling and batch norm but updates the
 * running stats only once), channels_last input; keep_ops names the
 * convolution's aten name. */
Test(cnn, checkpoint_matches_plain) {
  const int64_t sx[] = {2, 3, 8, 8};
  tsr_tensor *x0 = tg_leaf(4, sx, 90, 1, 0), *x32, *x;
  TSR_ASSERT_OK(tsr_set_requires_grad(x0, false));
  TSR_ASSERT_OK(tsr_to_dtype(x0, TSR_FLOAT32, &x32));
  TSR_ASSERT_OK(tsr_contiguous(x32, TSR_CHANNELS_LAST, &x));
  net plain = net_make(), ck = net_make();
  tsr_tensor* l1 = net_forward(&plain, x);
  TSR_ASSERT_OK(tsr_backward(l1, NULL, false));
  const char* keeps[] = {NULL, "convolution,native_batch_norm"};
  for (int round = 0; round < 2; ++round) {
    tsr_checkpoint_options o = TSR_CHECKPOINT_OPTIONS_INIT;
    o.keep_ops = keeps[round];
    TSR_ASSERT_OK(tsr_checkpoint_begin(&o));
    tsr_tensor* l2 = net_forward(&ck, x);
    TSR_ASSERT_OK(tsr_checkpoint_end());
    TSR_ASSERT_OK(tsr_backward(l2, NULL, false));
    tsr_tensor_release(l2);
  }
  /* ck ran two steps: its gradients are twice plain's, its running stats
   * those of two updates. */
  tsr_tensor* pp[] = {plain.w1, plain.b1, plain.gamma, plain.beta, plain.w2};
  tsr_tensor* cp[] = {ck.w1, ck.b1, ck.gamma, ck.beta, ck.w2};
  for (int k = 0; k < 5; ++k) {
    tsr_tensor *g1, *g2;
    TSR_ASSERT_OK(tsr_grad(pp[k], &g1));
    TSR_ASSERT_OK(tsr_grad(cp[k], &g2));
    cr_assert(g1 && g2, "param %d: grad %p / %p", k, (void*)g1, (void*)g2);
    double *v1 = tg_values(g1), *v2 = tg_values(g2);
    for (int64_t i = 0; i < tsr_tensor_numel(g1); ++i)
      cr_expect(fabs(2 * v1[i] - v2[i]) <= 1e-4 * (1 + fabs(v2[i])), "param %d [%lld]: %g vs %g", k, (long long)i,
                2 * v1[i], v2[i]);
    free(v1);
    free(v2);
    tsr_tensor_release(g1);
    tsr_tensor_release(g2);
  }
  cr_expect_eq(tsr_version(plain.rm), 1);
  cr_expect_eq(tsr_version(ck.rm), 2, "running_mean updated %lld times in two steps", (long long)tsr_version(ck.rm));
  tsr_tensor_release(l1);
  net_release(&plain);
  net_release(&ck);
  tsr_tensor_release(x0);
  tsr_tensor_release(x32);
  tsr_tensor_release(x);
}
