/* gelu (exact and tanh), tanh, sigmoid, sqrt, pow and clamp against
 * PyTorch 1.13 (tests/golden/gen_nn.py): values, dtypes and strides
 * (special values, bfloat16, integer inputs, transposed / expanded /
 * channels_last inputs); gradients and grad_fn names; float64 gradcheck
 * through views and broadcasting; every error path. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "golden/nn_activation_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(activation, forward, tg_act_fwd, TG_ACT_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(activation, grads, tg_act_grad, TG_ACT_GRAD_N) { tg_check_backward(c); }
TG_PARAMETERIZED(pow_clamp, forward, tg_powclamp_fwd, TG_POWCLAMP_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(pow_clamp, grads, tg_powclamp_grad, TG_POWCLAMP_GRAD_N) { tg_check_backward(c); }

/* ---- gradcheck ------------------------------------------------------------ */

typedef enum { A_GELU, A_GELU_TANH, A_TANH, A_SIGMOID, A_SQRT } act_kind;

static tsr_status apply_act(act_kind k, const tsr_tensor* x, tsr_tensor** out) {
  switch (k) {
    case A_GELU: return tsr_gelu(x, TSR_GELU_NONE, out);
    case A_GELU_TANH: return tsr_gelu(x, TSR_GELU_TANH, out);
    case A_TANH: return tsr_tanh(x, out);
    case A_SIGMOID: return tsr_sigmoid(x, out);
    case A_SQRT: return tsr_sqrt(x, out);
  }
  return TSR_ERR_INTERNAL;
}

/* act(x^T) * act(expand(v)) + act(x[:, ::2] sliced) broadcast. */
static tsr_tensor* f_act(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  act_kind k = *(const act_kind*)ctx;
  tsr_tensor *x = in[0], *v = in[1];
  const int64_t s34[] = {3, 4};
  tsr_tensor* a = T(apply_act(k, T(tsr_t(x, &o_)), &o_));                               /* [3,4] */
  tsr_tensor* b = T(apply_act(k, T(tsr_expand(v, 2, s34, &o_)), &o_));                  /* [3,4] */
  tsr_tensor* c = T(apply_act(k, T(tsr_slice(x, 1, 0, 3, 2, &o_)), &o_));               /* [4,2] */
  tsr_tensor* d = T(tsr_sum(c, 1, (const int64_t[]){1}, false, &o_));                   /* [4] */
  return T(tsr_add(T(tsr_mul(a, b, &o_)), d, &o_));
}

static void gradcheck_act(act_kind k, const char* name) {
  const int64_t sx[] = {4, 3}, sv[] = {4};
  /* sqrt needs positive inputs away from 0. */
  double shift = k == A_SQRT ? 3.0 : 0.0, scale = k == A_SQRT ? 0.5 : 1.5;
  tsr_tensor* in[] = {tg_leaf(2, sx, 11, scale, shift), tg_leaf(1, sv, 12, scale, shift)};
  cr_expect_eq(tg_gradcheck(name, f_act, 2, in, &k), 12 + 4);
  for (int i = 0; i < 2; ++i) tsr_tensor_release(in[i]);
}

Test(activation, gradcheck_gelu) { gradcheck_act(A_GELU, "gelu"); }
Test(activation, gradcheck_gelu_tanh) { gradcheck_act(A_GELU_TANH, "gelu tanh"); }
Test(activation, gradcheck_tanh) { gradcheck_act(A_TANH, "tanh"); }
Test(activation, gradcheck_sigmoid) { gradcheck_act(A_SIGMOID, "sigmoid"); }
Test(activation, gradcheck_sqrt) { gradcheck_act(A_SQRT, "sqrt"); }

/* pow with scalar exponents of a transposed x, pow of tensors broadcast
 * (base > 0), clamp of an expanded vector (away from the bounds: the
 * gradient is not continuous there). */
static tsr_tensor* f_pow_clamp(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  (void)ctx;
  tsr_tensor *x = in[0], *e = in[1], *v = in[2];
  const int64_t s34[] = {3, 4};
  const double lo = -0.55, hi = 0.45;
  tsr_tensor* xt = T(tsr_t(x, &o_));                                        /* [3,4] */
  tsr_tensor* a = T(tsr_pow_scalar(xt, 2.5, &o_));
  tsr_tensor* b = T(tsr_pow_scalar(xt, -1.0, &o_));
  tsr_tensor* c = T(tsr_pow(xt, e, &o_));                                   /* e [4] */
  tsr_tensor* d = T(tsr_clamp(T(tsr_expand(v, 2, s34, &o_)), &lo, &hi, &o_));
  tsr_tensor* f = T(tsr_clamp(v, NULL, &hi, &o_));
  tsr_tensor* g = T(tsr_clamp(v, &lo, NULL, &o_));
  tsr_tensor* ab = T(tsr_add(a, b, &o_));
  return T(tsr_add(T(tsr_mul(ab, c, &o_)), T(tsr_mul(d, T(tsr_mul(f, g, &o_)), &o_)), &o_));
}

Test(pow_clamp, gradcheck) {
  const int64_t sx[] = {4, 3}, se[] = {4};
  tsr_tensor* in[] = {tg_leaf(2, sx, 13, 0.3, 1.5), tg_leaf(1, se, 14, 1, 0), NULL};
  /* v: fixed values away from the clamp bounds -0.55 and 0.45. */
  const double vv[] = {-0.9, -0.2, 0.3, 0.8};
  const int64_t n4 = 4;
  TSR_ASSERT_OK(tsr_from_data(vv, sizeof vv, 1, &n4, TSR_FLOAT64, &in[2]));
  TSR_ASSERT_OK(tsr_set_requires_grad(in[2], true));
  cr_expect_eq(tg_gradcheck("pow/clamp", f_pow_clamp, 3, in, NULL), 12 + 4 + 4);
  for (int i = 0; i < 3; ++i) tsr_tensor_release(in[i]);
}

/* ---- errors --------------------------------------------------------------- */

/* bfloat16 clamp of a dense input runs the SIMD kernel (blocks converted to
 * float); of a strided one, the scalar loop. Both must give the same bits
 * for every one of the 65536 patterns (NaNs, infinities, subnormals) and
 * each kind of bounds, the golden cases' tolerance aside. */
Test(pow_clamp, bfloat16_clamp_simd_equals_scalar_bit_for_bit) {
  static uint16_t pairs[65536 * 2];
  for (uint32_t i = 0; i < 65536; ++i) pairs[2 * i] = pairs[2 * i + 1] = (uint16_t)i;
  const int64_t n = 65536, sizes2[] = {65536, 2};
  tsr_tensor *both = NULL, *strided = NULL, *dense = NULL;
  TSR_ASSERT_OK(tsr_from_blob(pairs, 2, sizes2, NULL, TSR_BFLOAT16, TSR_DEVICE_CPU, NULL, NULL, &both));
  TSR_ASSERT_OK(tsr_select(both, 1, 0, &strided)); /* stride 2 */
  TSR_ASSERT_OK(tsr_contiguous(strided, TSR_CONTIGUOUS_FORMAT, &dense));
  cr_assert_eq(tsr_tensor_strides(strided)[0], 2);
  const double nan = NAN, inf = INFINITY, lo1 = -0.3, hi1 = 0.7, big = 1e30, tiny = 1e-40, m1 = 1, m2 = -1;
  const struct { const double *lo, *hi; } bounds[] = {
      {&lo1, &hi1}, {&lo1, NULL}, {NULL, &hi1}, {&m1, &m2}, {&nan, NULL}, {NULL, &nan},
      {&inf, NULL}, {NULL, &big}, {&tiny, &big}};
  for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; ++b) {
    tsr_tensor *ys = NULL, *yd = NULL;
    TSR_ASSERT_OK(tsr_clamp(strided, bounds[b].lo, bounds[b].hi, &ys));
    TSR_ASSERT_OK(tsr_clamp(dense, bounds[b].lo, bounds[b].hi, &yd));
    const uint16_t* s = tsr_tensor_data_ptr(ys);
    const uint16_t* d = tsr_tensor_data_ptr(yd);
    for (int64_t i = 0; i < n; ++i)
      cr_assert_eq(d[i], s[i], "bounds %zu, input 0x%04x: simd 0x%04x, scalar 0x%04x", b, (unsigned)i, d[i], s[i]);
    tsr_tensor_release(ys);
    tsr_tensor_release(yd);
  }
  tsr_tensor_release(dense);
  tsr_tensor_release(strided);
  tsr_tensor_release(both);
}

/* d(clamp)/dx of a dense input: its in-range mask comes from the SIMD
 * comparisons (activation.cpp in_range_simd); of a strided one, from the
 * scalar loop. The same gradient bits for every bfloat16 pattern (NaNs,
 * infinities, -0.0, subnormals; for float32 and float64 the same values
 * widened), each kind of bounds, past one 1024-element chunk. */
static tsr_tensor* clamp_grad(tsr_tensor* x, const double* lo, const double* hi) {
  tsr_tensor *y = NULL, *ones = NULL, *g = NULL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_clamp(x, lo, hi, &y));
  TSR_ASSERT_OK(tsr_ones(1, tsr_tensor_sizes(y), tsr_tensor_dtype(y), TSR_CPU, &ones));
  TSR_ASSERT_OK(tsr_autograd_grad(1, &y, (const tsr_tensor* const*)&ones, 1, &x, false, false, false, &g));
  tsr_tensor_release(ones);
  tsr_tensor_release(y);
  return g;
}

Test(pow_clamp, clamp_backward_mask_simd_equals_scalar) {
  static uint16_t pairs[65536 * 2];
  for (uint32_t i = 0; i < 65536; ++i) pairs[2 * i] = pairs[2 * i + 1] = (uint16_t)i;
  const int64_t n = 65536, sizes2[] = {65536, 2};
  const double nan = NAN, inf = INFINITY, lo1 = -0.3, hi1 = 0.7, zero = 0.0, m1 = 1, m2 = -1;
  const struct { const double *lo, *hi; } bounds[] = {
      {&lo1, &hi1}, {&lo1, NULL}, {NULL, &hi1}, {&m1, &m2},
      {&nan, NULL}, {NULL, &nan}, {&inf, NULL}, {&zero, &zero}};
  const tsr_dtype dts[] = {TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};
  tsr_tensor* bf = NULL;
  TSR_ASSERT_OK(tsr_from_blob(pairs, 2, sizes2, NULL, TSR_BFLOAT16, TSR_DEVICE_CPU, NULL, NULL, &bf));
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
    tsr_tensor* both = NULL;
    TSR_ASSERT_OK(tsr_to_dtype(bf, dts[k], &both));
    for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; ++b) {
      tsr_tensor *strided = NULL, *dense = NULL;
      TSR_ASSERT_OK(tsr_select(both, 1, 0, &strided)); /* stride 2 */
      TSR_ASSERT_OK(tsr_contiguous(strided, TSR_CONTIGUOUS_FORMAT, &dense));
      tsr_tensor* gs = clamp_grad(strided, bounds[b].lo, bounds[b].hi);
      tsr_tensor* gd = clamp_grad(dense, bounds[b].lo, bounds[b].hi);
      const size_t es = (size_t)tsr_tensor_element_size(gd);
      uint8_t *s = malloc((size_t)n * es), *d = malloc((size_t)n * es);
      TSR_ASSERT_OK(tsr_copy_to_buffer(gs, s, (size_t)n * es, NULL));
      TSR_ASSERT_OK(tsr_copy_to_buffer(gd, d, (size_t)n * es, NULL));
      for (int64_t i = 0; i < n; ++i)
        cr_assert(memcmp(d + (size_t)i * es, s + (size_t)i * es, es) == 0,
                  "%s, bounds %zu, pattern 0x%04x: simd and scalar gradients differ", tsr_dtype_name(dts[k]), b,
                  (unsigned)i);
      free(s);
      free(d);
      tsr_tensor* all[] = {gs, gd, dense, strided};
      for (int j = 0; j < 4; ++j) tsr_tensor_release(all[j]);
    }
    tsr_tensor_release(both);
  }
  tsr_tensor_release(bf);
}

Test(activation, gelu_errors) {
  const int64_t s[] = {2, 3};
  tsr_tensor *x = filled(2, s, TSR_FLOAT32, 1), *h = filled(2, s, TSR_FLOAT16, 1),
             *i = filled(2, s, TSR_INT64, 1), *bo = filled(2, s, TSR_BOOL, 1), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  /* torch 1.13 refuses float16 ("\"GeluKernelImpl\" not implemented for 'Half'");
   * tessera follows torch 2.x there. Integers and bool: refused. */
  TSR_EXPECT_RESULT_DTYPE(tsr_gelu(h, TSR_GELU_NONE, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_gelu(i, TSR_GELU_TANH, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"GeluKernelImpl\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_gelu(bo, TSR_GELU_NONE, &out), TSR_ERR_DTYPE_MISMATCH, "'Bool'");
  /* torch: "approximate argument must be either none or tanh." */
  TSR_ASSERT_FAILS(tsr_gelu(x, (tsr_gelu_approximate)2, &out), TSR_ERR_INVALID_ARGUMENT,
                   "approximate argument must be either none or tanh.");
  TSR_ASSERT_FAILS(tsr_gelu(x, (tsr_gelu_approximate)-1, &out), TSR_ERR_INVALID_ARGUMENT,
                   "approximate argument must be either none or tanh.");
  TSR_ASSERT_FAILS(tsr_gelu(NULL, TSR_GELU_NONE, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_gelu(x, TSR_GELU_NONE, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  expect_filled(h, 1);
  tsr_tensor* all[] = {x, h, i, bo};
  for (size_t k = 0; k < 4; ++k) tsr_tensor_release(all[k]);
}

Test(activation, unary_errors) {
  const int64_t s[] = {3};
  tsr_tensor *h = filled(1, s, TSR_FLOAT16, 1), *x = filled(1, s, TSR_FLOAT32, 1), *out = SENTINEL;
  /* torch 1.13's CPU kernels refuse float16; tessera follows torch 2.x. */
  TSR_EXPECT_RESULT_DTYPE(tsr_tanh(h, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_sigmoid(h, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_sqrt(h, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_tanh(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_sigmoid(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_sqrt(NULL, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_tanh(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_sigmoid(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_sqrt(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_filled(h, 1);
  expect_filled(x, 1);
  tsr_tensor_release(h);
  tsr_tensor_release(x);
}

/* The enum's values are part of the ABI. */
Test(activation, gelu_enum_values) {
  cr_expect_eq(TSR_GELU_NONE, 0);
  cr_expect_eq(TSR_GELU_TANH, 1);
}

Test(pow_clamp, errors) {
  const int64_t s[] = {3}, s2[] = {2};
  tsr_tensor *x = filled(1, s, TSR_FLOAT32, 1), *h = filled(1, s, TSR_FLOAT16, 1),
             *bo = filled(1, s, TSR_BOOL, 1), *y2 = filled(1, s2, TSR_FLOAT32, 2), *out = SENTINEL;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  const double one = 1.0;
  TSR_ASSERT_FAILS(tsr_clamp(x, NULL, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "torch.clamp: At least one of 'min' or 'max' must not be None");
  /* torch names the kernel by which bounds are given. */
  TSR_EXPECT_RESULT_DTYPE(tsr_clamp(h, &one, &one, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_clamp(h, &one, NULL, &out), out, TSR_FLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_clamp(h, NULL, &one, &out), out, TSR_FLOAT16);
  /* Bounds are converted to the element type first, as torch's Scalar::to. */
  const double huge = 1e300;
  TSR_ASSERT_FAILS(tsr_clamp(x, &huge, NULL, &out), TSR_ERR_INVALID_ARGUMENT,
                   "value cannot be converted to type float without overflow");
  TSR_ASSERT_FAILS(tsr_clamp(bo, NULL, &huge, &out), TSR_ERR_INVALID_ARGUMENT,
                   "value cannot be converted to type float without overflow");
  TSR_ASSERT_FAILS(tsr_pow_scalar(h, 70000.0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "value cannot be converted to type at::Half without overflow");
  TSR_ASSERT_FAILS(tsr_clamp(NULL, &one, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_clamp(x, &one, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_pow(bo, bo, &out), TSR_ERR_DTYPE_MISMATCH, "\"pow\" not implemented for 'Bool'");
  /* torch: "The size of tensor a (3) must match the size of tensor b (2) at
   * non-singleton dimension 0" */
  TSR_ASSERT_FAILS(tsr_pow(x, y2, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                   "dimension 0");
  TSR_ASSERT_FAILS(tsr_pow(NULL, x, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_pow(x, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "exponent is NULL");
  TSR_ASSERT_FAILS(tsr_pow(x, x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_pow_scalar(NULL, 2.0, &out), TSR_ERR_INVALID_ARGUMENT, "x is NULL");
  TSR_ASSERT_FAILS(tsr_pow_scalar(x, 2.0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_expect_eq(out, SENTINEL);
  expect_no_grad(x);
  expect_filled(x, 1);
  expect_filled(h, 1);
  expect_filled(bo, 1);
  expect_filled(y2, 2);
  tsr_tensor* all[] = {x, h, bo, y2};
  for (size_t k = 0; k < 4; ++k) tsr_tensor_release(all[k]);
}
