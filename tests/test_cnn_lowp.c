/* conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d and batch_norm
 * (tessera/cnn.h) in bfloat16 and float16 against PyTorch 1.13
 * (tests/golden/gen_cnn_lowp.py; float16 against the float32 program
 * rounded to float16, torch 2.x's semantics): values, sizes and strides of
 * the results in both memory formats, grad_fn names, gradients of every
 * argument, batch_norm with bfloat16 or float32 parameters; the
 * mixed-dtype running-stat update; batch_norm's mixed-dtype errors;
 * bfloat16 batch norm and max pooling at their vector loops' edges (channel
 * counts and planes past a vector, strided input) and NaN in max pooling's
 * vector lanes. */
#include <stdint.h>

#include "golden/cnn_lowp_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(cnn_lowp, conv2d, tg_lowp_conv, TG_LOWP_CONV_N) { tg_check_backward(c); }
TG_PARAMETERIZED(cnn_lowp, pooling, tg_lowp_pool, TG_LOWP_POOL_N) {
  if (c->grad_out || c->grads[0].values) tg_check_backward(c);
  else tg_check_forward(c);
}
TG_PARAMETERIZED(cnn_lowp, batch_norm, tg_lowp_bn, TG_LOWP_BN_N) { tg_check_backward(c); }
TG_PARAMETERIZED(cnn_lowp, vector_edges, tg_lowp_vec, TG_LOWP_VEC_N) { tg_check_backward(c); }

static tsr_tensor* from_doubles(const double* v, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t i = 0; i < ndim; ++i) n *= sizes[i];
  tsr_tensor *f64, *t, *out;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &f64));
  TSR_ASSERT_OK(tsr_to_dtype(f64, dtype, &t));
  TSR_ASSERT_OK(tsr_reshape(t, ndim, sizes, &out));
  tsr_tensor_release(f64);
  tsr_tensor_release(t);
  return out;
}

static void expect_values(const tsr_tensor* t, tsr_dtype dtype, const double* want, int64_t n, double tol) {
  cr_expect_eq(tsr_tensor_dtype(t), dtype);
  cr_assert_eq(tsr_tensor_numel(t), n);
  double* v = tg_values(t);
  for (int64_t i = 0; i < n; ++i)
    cr_expect(fabs(v[i] - want[i]) <= tol * (1 + fabs(want[i])), "element %lld: %.9g, torch %.9g",
              (long long)i, v[i], want[i]);
  free(v);
}

/* One training step on bfloat16 input updates float32 running stats (the
 * mixed form autocast uses) or bfloat16 ones in place, as torch, in both
 * memory formats. float32: the statistics are float32 sums of the bfloat16
 * values (1e-6); bfloat16: the updated stats are rounded to bfloat16, and
 * torch's intermediate bfloat16 roundings may differ by one ulp (2^-8). */
static void running_stats_step(tsr_memory_format fmt, tsr_dtype stats_dtype) {
  const int64_t sx[] = {4, 3, 2, 2}, s3[] = {3};
  tsr_tensor *x0 = from_doubles(tg_lowp_bn_step_x, 4, sx, TSR_BFLOAT16), *x,
             *rm = from_doubles(tg_lowp_bn_step_rm, 1, s3, stats_dtype),
             *rv = from_doubles(tg_lowp_bn_step_rv, 1, s3, stats_dtype), *y;
  TSR_ASSERT_OK(tsr_contiguous(x0, fmt, &x));
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_batch_norm(x, rm, rv, NULL, NULL, true, 0.3, 1e-5, &y));
  cr_expect_eq(tsr_tensor_dtype(y), TSR_BFLOAT16);
  cr_expect_str_eq(tsr_grad_fn_name(y), "NativeBatchNormBackward0");
  const bool f32 = stats_dtype == TSR_FLOAT32;
  expect_values(rm, stats_dtype, f32 ? tg_lowp_bn_step_rm_after : tg_lowp_bn_step_rm_after_bf16, 3,
                f32 ? 1e-6 : 1.0 / 256);
  expect_values(rv, stats_dtype, f32 ? tg_lowp_bn_step_rv_after : tg_lowp_bn_step_rv_after_bf16, 3,
                f32 ? 1e-6 : 1.0 / 256);
  cr_expect_eq(tsr_version(rm), 1);
  cr_expect_eq(tsr_version(rv), 1);
  tsr_tensor* all[] = {x0, x, rm, rv, y};
  for (size_t k = 0; k < 5; ++k) tsr_tensor_release(all[k]);
}

Test(cnn_lowp, batch_norm_running_stats_float32) {
  running_stats_step(TSR_CONTIGUOUS_FORMAT, TSR_FLOAT32);
  running_stats_step(TSR_CHANNELS_LAST, TSR_FLOAT32);
}
Test(cnn_lowp, batch_norm_running_stats_bfloat16) {
  running_stats_step(TSR_CONTIGUOUS_FORMAT, TSR_BFLOAT16);
  running_stats_step(TSR_CHANNELS_LAST, TSR_BFLOAT16);
}

/* torch 1.13's mixed-dtype rule: the first defined parameter (weight, bias,
 * running_mean, running_var) decides; float32 parameters of a bfloat16 x
 * must all be float32, parameters of x's dtype all of x's, and only a
 * bfloat16 (here also float16) x takes float32 parameters. Nothing is
 * written by a failed call. */
Test(cnn_lowp, batch_norm_mixed_dtype_errors) {
  const int64_t sx[] = {2, 4, 3, 3}, sc[] = {4};
  tsr_tensor *x = filled(4, sx, TSR_BFLOAT16, 1), *xd = filled(4, sx, TSR_FLOAT64, 1),
             *wf = filled(1, sc, TSR_FLOAT32, 1), *wb = filled(1, sc, TSR_BFLOAT16, 1),
             *rmf = filled(1, sc, TSR_FLOAT32, 0.5), *rvf = filled(1, sc, TSR_FLOAT32, 2),
             *rmb = filled(1, sc, TSR_BFLOAT16, 0.5), *rvb = filled(1, sc, TSR_BFLOAT16, 2), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rmf, rvf, wf, wb, true, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "mixed dtype (CPU): expect parameter to have scalar type of Float");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rmb, rvf, NULL, NULL, false, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type BFloat16 but found Float");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rmf, rvf, wb, NULL, true, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type BFloat16 but found Float");
  TSR_ASSERT_FAILS(tsr_batch_norm(x, rmf, rvb, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "mixed dtype (CPU): expect parameter to have scalar type of Float");
  TSR_ASSERT_FAILS(tsr_batch_norm(xd, rmf, rvf, NULL, NULL, true, 0.1, 1e-5, &out), TSR_ERR_DTYPE_MISMATCH,
                   "mixed dtype (CPU): expect input to have scalar type of BFloat16");
  cr_expect_eq(out, SENTINEL);
  expect_filled(rmf, 0.5);
  expect_filled(rvf, 2);
  expect_filled(rmb, 0.5);
  tsr_tensor* all[] = {x, xd, wf, wb, rmf, rvf, rmb, rvb};
  for (size_t k = 0; k < 8; ++k) tsr_tensor_release(all[k]);
}

/* conv2d takes one dtype for input, weight and bias, bfloat16 included. */
Test(cnn_lowp, conv2d_dtype_errors) {
  const int64_t sx[] = {2, 4, 7, 7}, sw[] = {6, 4, 3, 3}, sb[] = {6}, one[] = {1, 1};
  tsr_tensor *x = filled(4, sx, TSR_BFLOAT16, 1), *wf = filled(4, sw, TSR_FLOAT32, 1),
             *wb = filled(4, sw, TSR_BFLOAT16, 1), *bf = filled(1, sb, TSR_FLOAT32, 1), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_conv2d(x, wf, NULL, one, one, one, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "weight type (float32) should be the same as input type (bfloat16)");
  TSR_ASSERT_FAILS(tsr_conv2d(x, wb, bf, one, one, one, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "bias type (float32) should be the same as input type (bfloat16)");
  cr_expect_eq(out, SENTINEL);
  tsr_tensor* all[] = {x, wf, wb, bf};
  for (size_t k = 0; k < 4; ++k) tsr_tensor_release(all[k]);
}

/* torch's NaN rule (`val > max || isnan(val)`: a NaN wins its window and
 * the last NaN's index is kept; the first maximum wins ties) in the vector
 * lanes of bfloat16 max pooling, not only in its per-channel tail: 11
 * channels of a 4 x 4 plane holding h * 4 + w, the odd channels with NaN at
 * (0, 1) and (1, 0), channel 4 with 7 at (0, 0), tying (1, 3); 2 x 2
 * windows, both memory formats. The backward sends each window's gradient
 * to the index chosen. */
Test(cnn_lowp, max_pool2d_bfloat16_nan_in_vector_lanes) {
  enum { C = 11 };
  const int64_t s[] = {1, C, 4, 4}, k[] = {2, 2}, zero[] = {0, 0}, one[] = {1, 1};
  tsr_tensor* x0 = filled(4, s, TSR_BFLOAT16, 0);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 4; ++w) {
        const int64_t i4[] = {0, c, h, w};
        const bool nan = c % 2 == 1 && ((h == 0 && w == 1) || (h == 1 && w == 0));
        TSR_ASSERT_OK(tsr_set_double(x0, 4, i4, nan ? NAN : (double)(h * 4 + w)));
      }
  const int64_t tie[] = {0, 4, 0, 0};
  TSR_ASSERT_OK(tsr_set_double(x0, 4, tie, 7));
  for (int f = 0; f < 2; ++f) {
    tsr_tensor *x, *y, *i, *g, *gx;
    TSR_ASSERT_OK(tsr_contiguous(x0, f ? TSR_CHANNELS_LAST : TSR_CONTIGUOUS_FORMAT, &x));
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    TSR_ASSERT_OK(tsr_max_pool2d(x, k, NULL, zero, one, false, &y, &i));
    cr_expect_eq(tsr_tensor_dtype(y), TSR_BFLOAT16);
    for (int64_t c = 0; c < C; ++c) {
      const int64_t o[] = {0, c, 0, 0};
      double v;
      int64_t idx;
      TSR_ASSERT_OK(tsr_get_double(y, 4, o, &v));
      TSR_ASSERT_OK(tsr_get_int64(i, 4, o, &idx));
      if (c % 2 == 1) {
        cr_expect(isnan(v), "format %d, channel %lld: NaN lost", f, (long long)c);
        cr_expect_eq(idx, 4, "format %d, channel %lld: index of the last NaN (1, 0) is 4, got %lld", f,
                     (long long)c, (long long)idx);
      } else {
        cr_expect_eq(v, c == 4 ? 7.0 : 5.0, "format %d, channel %lld: %g", f, (long long)c, v);
        cr_expect_eq(idx, c == 4 ? 0 : 5, "format %d, channel %lld: index %lld", f, (long long)c, (long long)idx);
      }
      /* The window at (1, 1): 15, at index 15 in every channel. */
      const int64_t o11[] = {0, c, 1, 1};
      TSR_ASSERT_OK(tsr_get_int64(i, 4, o11, &idx));
      cr_expect_eq(idx, 15, "format %d, channel %lld: index %lld", f, (long long)c, (long long)idx);
    }
    const int64_t so[] = {1, C, 2, 2};
    g = filled(4, so, TSR_BFLOAT16, 1);
    TSR_ASSERT_OK(tsr_autograd_grad(1, &y, (const tsr_tensor* const*)&g, 1, &x, false, false, false, &gx));
    cr_expect_eq(tsr_tensor_dtype(gx), TSR_BFLOAT16);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 2; ++w) {
          const int64_t p[] = {0, c, h, w};
          const int64_t at = c % 2 == 1 ? 4 : c == 4 ? 0 : 5; /* flat index chosen in window (0, 0) */
          double v;
          TSR_ASSERT_OK(tsr_get_double(gx, 4, p, &v));
          cr_expect_eq(v, h * 4 + w == at ? 1.0 : 0.0, "format %d, grad (%lld, %lld, %lld): %g", f, (long long)c,
                       (long long)h, (long long)w, v);
        }
    tsr_tensor* all[] = {x, y, i, g, gx};
    for (size_t n = 0; n < 5; ++n) tsr_tensor_release(all[n]);
  }
  tsr_tensor_release(x0);
}
