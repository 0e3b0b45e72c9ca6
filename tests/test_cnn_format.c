/* The memory format of conv2d's, the poolings' and batch norm's outputs
 * when the inputs' layouts are ambiguous (both contiguous and channels_last:
 * C = 1, H = W = 1, 1x1 kernels; sliced; grouped convolutions torch runs per
 * group), against PyTorch 1.13 (tests/golden/gen_cnn_format.py): every
 * output's sizes and strides, at the thread count torch ran with (its
 * backend choice, and so its output format, depends on it). */
#include <stdint.h>

#include "golden/cnn_format_golden.h"
#include <criterion/parameterized.h>

#include "helpers.h"

/* A tensor of the given geometry, filled with ones (values do not matter
 * here: test_cnn.c checks them). */
static tsr_tensor* strided(tsr_dtype dtype, const int64_t sizes[4], const int64_t strides[4]) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_empty_strided(4, sizes, strides, dtype, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_fill_(t, 1.0));
  tsr_assert_geometry(t, 4, sizes, strides);
  return t;
}

/* Restores the thread count a case changed, whatever the outcome. */
static int64_t saved_threads;
static void save_threads(void) { saved_threads = tsr_get_num_threads(); }
static void restore_threads(void) { TSR_ASSERT_OK(tsr_set_num_threads(saved_threads)); }

ParameterizedTestParameters(cnn_format, conv2d) {
  static size_t idx[TG_CONV_FORMAT_N];
  for (size_t i = 0; i < TG_CONV_FORMAT_N; ++i) idx[i] = i;
  return cr_make_param_array(size_t, idx, TG_CONV_FORMAT_N);
}
ParameterizedTest(const size_t* i, cnn_format, conv2d, .init = save_threads, .fini = restore_threads) {
  const tg_conv_format_case* c = &tg_conv_format[*i];
  TSR_ASSERT_OK(tsr_set_num_threads(c->threads));
  tsr_tensor *x = strided(c->dtype, c->x_sizes, c->x_strides), *w = strided(c->dtype, c->w_sizes, c->w_strides), *y;
  const int64_t stride[2] = {c->stride, c->stride}, padding[2] = {c->padding, c->padding},
                dilation[2] = {c->dilation, c->dilation};
  TSR_ASSERT_OK(tsr_conv2d(x, w, NULL, stride, padding, dilation, c->groups, &y));
  tsr_assert_geometry(y, 4, c->y_sizes, c->y_strides);
  tsr_tensor_release(y);
  tsr_tensor_release(w);
  tsr_tensor_release(x);
}

static tsr_status run_other(const tg_cnn_format_case* c, const tsr_tensor* x, tsr_tensor** y) {
  const int64_t k[2] = {c->k, c->k}, zero[2] = {0, 0}, one[2] = {1, 1};
  switch (c->op) {
    case 0: return tsr_max_pool2d(x, k, NULL, zero, one, false, y, NULL);
    case 1: return tsr_avg_pool2d(x, k, NULL, zero, false, true, y);
    case 2: return tsr_adaptive_avg_pool2d(x, k, y);
    default: return tsr_batch_norm(x, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, y);
  }
}

ParameterizedTestParameters(cnn_format, pooling_and_batch_norm) {
  static size_t idx[TG_CNN_FORMAT_N];
  for (size_t i = 0; i < TG_CNN_FORMAT_N; ++i) idx[i] = i;
  return cr_make_param_array(size_t, idx, TG_CNN_FORMAT_N);
}
ParameterizedTest(const size_t* i, cnn_format, pooling_and_batch_norm) {
  const tg_cnn_format_case* c = &tg_cnn_format[*i];
  tsr_tensor *x = strided(c->dtype, c->x_sizes, c->x_strides), *y;
  TSR_ASSERT_OK(run_other(c, x, &y));
  tsr_assert_geometry(y, 4, c->y_sizes, c->y_strides);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}
