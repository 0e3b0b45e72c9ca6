/* The losses of loss.h (mse, l1, smooth_l1, huber, kl_div, nll_loss,
 * cross_entropy, binary_cross_entropy[_with_logits]) against PyTorch 1.13:
 * goldens from tests/golden/gen_loss.py (values, grad_fn names, gradients
 * wrt input and floating target, for every reduction, weights,
 * ignore_index, label smoothing, K-dim and unbatched input, probability
 * targets), a few values written out, float64 gradcheck and gradgradcheck,
 * empty batches (nan mean), every error path. The Python tests
 * (bindings/python/tests/test_loss.py) compare with a live torch too. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <tessera/loss.h>

#include "golden/loss_golden.h"
#include "gradcheck.h"

static tsr_tensor* vec(const double* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

static double item(const tsr_tensor* t) {
  double v;
  TSR_ASSERT_OK(tsr_item_double(t, &v));
  return v;
}

/* ---- values and grad_fn names (torch 1.13 on x, y below) ------------------ */

static const double X[] = {0.5, -1.0, 2.0, 0.25};
static const double Y[] = {0.0, 1.5, 2.1, -0.5};

Test(loss, values_and_names) {
  tsr_tensor *x = vec(X, 4, TSR_FLOAT32), *y = vec(Y, 4, TSR_FLOAT32), *out;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  /* torch: mse 1.76812494, l1 0.9625, smooth_l1(beta=0.5) 0.7525,
   * huber(delta=0.7) sum 1.915 */
  TSR_ASSERT_OK(tsr_mse_loss(x, y, TSR_REDUCTION_MEAN, &out));
  cr_expect(fabs(item(out) - 1.76812494) < 1e-6);
  cr_expect_str_eq(tsr_grad_fn_name(out), "MseLossBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_l1_loss(x, y, TSR_REDUCTION_MEAN, &out));
  cr_expect(fabs(item(out) - 0.9625) < 1e-6);
  cr_expect_str_eq(tsr_grad_fn_name(out), "MeanBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_l1_loss(x, y, TSR_REDUCTION_NONE, &out));
  cr_expect_str_eq(tsr_grad_fn_name(out), "AbsBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_smooth_l1_loss(x, y, TSR_REDUCTION_MEAN, 0.5, &out));
  cr_expect(fabs(item(out) - 0.7525) < 1e-6);
  cr_expect_str_eq(tsr_grad_fn_name(out), "SmoothL1LossBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_huber_loss(x, y, TSR_REDUCTION_SUM, 0.7, &out));
  cr_expect(fabs(item(out) - 1.915) < 1e-5);
  cr_expect_str_eq(tsr_grad_fn_name(out), "HuberLossBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_huber_loss(x, y, TSR_REDUCTION_NONE, 0.7, &out));
  cr_expect_eq(tsr_tensor_ndim(out), 1);
  cr_expect_str_eq(tsr_grad_fn_name(out), "HuberLossBackward0");
  tsr_tensor_release(out);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
}

Test(loss, kl_div_values) {
  const double lp[] = {-1.0, -0.5, -2.0}, t[] = {0.2, 0.0, 0.8};
  tsr_tensor *x = vec(lp, 3, TSR_FLOAT64), *y = vec(t, 3, TSR_FLOAT64), *out;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  /* torch: kl_div(x, y, reduction='sum') = 0.2 log 0.2 + 0.8 log 0.8 + 0.2 + 1.6 */
  TSR_ASSERT_OK(tsr_kl_div(x, y, TSR_REDUCTION_SUM, false, &out));
  cr_expect(fabs(item(out) - (0.2 * log(0.2) + 0.8 * log(0.8) + 1.8)) < 1e-12);
  cr_expect_str_eq(tsr_grad_fn_name(out), "SumBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_kl_div(x, y, TSR_REDUCTION_NONE, false, &out));
  cr_expect_str_eq(tsr_grad_fn_name(out), "SubBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_kl_div(x, x, TSR_REDUCTION_MEAN, true, &out));
  cr_expect(fabs(item(out)) < 1e-15);
  cr_expect_str_eq(tsr_grad_fn_name(out), "MeanBackward0");
  tsr_tensor_release(out);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
}

Test(loss, empty_mean_is_nan) {
  const int64_t s0[] = {0, 3};
  tsr_tensor *x = filled(2, s0, TSR_FLOAT32, 0), *out;
  TSR_ASSERT_OK(tsr_mse_loss(x, x, TSR_REDUCTION_MEAN, &out));
  cr_expect(isnan(item(out)));
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_huber_loss(x, x, TSR_REDUCTION_SUM, 1.0, &out));
  cr_expect_eq(item(out), 0.0);
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_smooth_l1_loss(x, x, TSR_REDUCTION_NONE, 1.0, &out));
  cr_expect_eq(tsr_tensor_numel(out), 0);
  tsr_tensor_release(out);
  tsr_tensor_release(x);
}

/* ---- float64 gradcheck wrt input and target ---------------------------------- */

typedef struct {
  int which, reduction;
  double param;
} loss_ctx;

/* loss(x [3,4], y [4] broadcast) on every reduction. */
static tsr_tensor* f_loss(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const loss_ctx* c = ctx;
  switch (c->which) {
    case 0: return T(tsr_mse_loss(in[0], in[1], c->reduction, &o_));
    case 1: return T(tsr_l1_loss(in[0], in[1], c->reduction, &o_));
    case 2: return T(tsr_smooth_l1_loss(in[0], in[1], c->reduction, c->param, &o_));
    case 3: return T(tsr_huber_loss(in[0], in[1], c->reduction, c->param, &o_));
    case 4: return T(tsr_kl_div(in[0], in[1], c->reduction, false, &o_));
    default: return T(tsr_kl_div(in[0], in[1], c->reduction, true, &o_));
  }
}

Test(loss, gradcheck_all) {
  const int64_t sx[] = {3, 4}, sy[] = {4};
  const double params[] = {0, 0, 0.8, 0.6, 0, 0};
  for (int which = 0; which < 6; ++which)
    for (int r = 0; r < 3; ++r) {
      loss_ctx c = {which, r, params[which]};
      /* kl_div's (non-log) target must be positive */
      tsr_tensor* in[] = {tg_leaf(2, sx, 61 + which, 1, 0), tg_leaf(1, sy, 71 + which, which == 4 ? 0.1 : 1,
                                                                     which == 4 ? 1.0 : 0)};
      cr_expect_eq(tg_gradcheck("loss", f_loss, 2, in, &c), 12 + 4, "loss %d reduction %d", which, r);
      tsr_tensor_release(in[0]);
      tsr_tensor_release(in[1]);
    }
}

/* ---- errors: nothing written ---------------------------------------------- */

Test(loss, errors) {
  const int64_t s34[] = {3, 4}, s24[] = {2, 4};
  tsr_tensor *x = filled(2, s34, TSR_FLOAT32, 1), *y = filled(2, s24, TSR_FLOAT32, 2),
             *xi = filled(2, s34, TSR_INT64, 1), *xb = filled(2, s34, TSR_BFLOAT16, 1), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_mse_loss(x, x, 3, &out), TSR_ERR_INVALID_ARGUMENT, "3 is not a valid value for reduction");
  TSR_ASSERT_FAILS(tsr_l1_loss(x, x, -1, &out), TSR_ERR_INVALID_ARGUMENT, "is not a valid value for reduction");
  TSR_ASSERT_FAILS(tsr_kl_div(x, x, 7, false, &out), TSR_ERR_INVALID_ARGUMENT, "is not a valid value");
  TSR_ASSERT_FAILS(tsr_mse_loss(x, y, TSR_REDUCTION_MEAN, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0");
  TSR_ASSERT_FAILS(tsr_huber_loss(x, y, TSR_REDUCTION_MEAN, 1.0, &out), TSR_ERR_SHAPE_MISMATCH, "size of tensor");
  TSR_ASSERT_FAILS(tsr_smooth_l1_loss(x, y, TSR_REDUCTION_MEAN, 1.0, &out), TSR_ERR_SHAPE_MISMATCH,
                   "size of tensor");
  TSR_ASSERT_FAILS(tsr_l1_loss(x, y, TSR_REDUCTION_MEAN, &out), TSR_ERR_SHAPE_MISMATCH, "size of tensor");
  TSR_ASSERT_FAILS(tsr_kl_div(x, y, TSR_REDUCTION_MEAN, true, &out), TSR_ERR_SHAPE_MISMATCH, "size of tensor");
  TSR_ASSERT_FAILS(tsr_mse_loss(xi, xi, TSR_REDUCTION_MEAN, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"mse_cpu\" not implemented for 'Long'");
  TSR_EXPECT_RESULT_DTYPE(tsr_mse_loss(xb, xb, TSR_REDUCTION_MEAN, &out), out, TSR_BFLOAT16);
  TSR_ASSERT_FAILS(tsr_smooth_l1_loss(xi, xi, TSR_REDUCTION_MEAN, 1.0, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"smooth_l1_cpu\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_huber_loss(xi, xi, TSR_REDUCTION_MEAN, 1.0, &out), TSR_ERR_DTYPE_MISMATCH,
                   "\"huber_cpu\" not implemented for 'Long'");
  TSR_ASSERT_FAILS(tsr_l1_loss(xi, xi, TSR_REDUCTION_MEAN, &out), TSR_ERR_DTYPE_MISMATCH,
                   "mean(): could not infer output dtype");
  TSR_ASSERT_FAILS(tsr_smooth_l1_loss(x, x, TSR_REDUCTION_MEAN, -1.0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "smooth_l1_loss does not support negative values for beta.");
  TSR_ASSERT_FAILS(tsr_huber_loss(x, x, TSR_REDUCTION_MEAN, 0.0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "huber_loss does not support non-positive values for delta.");
  TSR_ASSERT_FAILS(tsr_mse_loss(NULL, x, TSR_REDUCTION_MEAN, &out), TSR_ERR_INVALID_ARGUMENT, "input");
  TSR_ASSERT_FAILS(tsr_mse_loss(x, NULL, TSR_REDUCTION_MEAN, &out), TSR_ERR_INVALID_ARGUMENT, "target");
  TSR_ASSERT_FAILS(tsr_mse_loss(x, x, TSR_REDUCTION_MEAN, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(x, 1);
  expect_filled(y, 2);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(xi);
  tsr_tensor_release(xb);
}

/* ---- nll_loss, cross_entropy, binary cross entropy ------------------------------ */

static tsr_tensor* mat(const double* v, int64_t r, int64_t c) {
  const int64_t s[] = {r, c};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)(r * c) * sizeof(double), 2, s, TSR_FLOAT64, &t));
  return t;
}

static tsr_tensor* i64s(const int64_t* v, int64_t n) {
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(int64_t), 1, &n, TSR_INT64, &t));
  return t;
}

static const double XM[] = {0.5, -1.0, 2.0, 0.25, 1.0, 0.0, -0.5, 0.3};
static const double WC[] = {0.5, 1.0, 2.0, 1.5};
static const int64_t TI[] = {2, 0};

Test(loss, nll_cross_entropy_values) {
  tsr_tensor *x = mat(XM, 2, 4), *w = vec(WC, 4, TSR_FLOAT64), *t = i64s(TI, 2), *out;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  /* torch 1.13 (float64): */
  TSR_ASSERT_OK(tsr_cross_entropy_loss(x, t, NULL, TSR_REDUCTION_MEAN, -100, 0.0, &out));
  cr_expect(fabs(item(out) - 0.552645819342) < 1e-11);
  cr_expect_str_eq(tsr_grad_fn_name(out), "NllLossBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_cross_entropy_loss(x, t, w, TSR_REDUCTION_MEAN, -100, 0.2, &out));
  cr_expect(fabs(item(out) - 0.693129745313) < 1e-11);
  cr_expect_str_eq(tsr_grad_fn_name(out), "AddBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_nll_loss(x, t, w, TSR_REDUCTION_MEAN, -100, &out)); /* -(2*2 + 0.5*1) / 2.5 */
  cr_expect(fabs(item(out) + 1.8) < 1e-12);
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_nll_loss(x, t, NULL, TSR_REDUCTION_SUM, 0, &out));
  cr_expect(fabs(item(out) + 2.0) < 1e-12);
  tsr_tensor_release(out);
  tsr_tensor_release(x);
  tsr_tensor_release(w);
  tsr_tensor_release(t);
}

Test(loss, binary_cross_entropy_values) {
  const double p[] = {0.2, 0.9}, y[] = {0.0, 1.0}, pw[] = {2.0, 3.0};
  tsr_tensor *x = vec(p, 2, TSR_FLOAT64), *t = vec(y, 2, TSR_FLOAT64), *z = vec(XM, 2, TSR_FLOAT64),
             *w = vec(pw, 2, TSR_FLOAT64), *out;
  TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
  TSR_ASSERT_OK(tsr_binary_cross_entropy(x, t, NULL, TSR_REDUCTION_MEAN, &out));
  cr_expect(fabs(item(out) - 0.164252033486) < 1e-11);
  cr_expect_str_eq(tsr_grad_fn_name(out), "BinaryCrossEntropyBackward0");
  tsr_tensor_release(out);
  TSR_ASSERT_OK(tsr_set_requires_grad(z, true));
  TSR_ASSERT_OK(tsr_binary_cross_entropy_with_logits(z, t, NULL, w, TSR_REDUCTION_MEAN, &out));
  cr_expect(fabs(item(out) - 2.456931023367) < 1e-11);
  cr_expect_str_eq(tsr_grad_fn_name(out), "BinaryCrossEntropyWithLogitsBackward0");
  tsr_tensor_release(out);
  tsr_tensor_release(x);
  tsr_tensor_release(t);
  tsr_tensor_release(z);
  tsr_tensor_release(w);
}

typedef struct {
  int which, reduction;
  tsr_tensor *target, *weight;
} ce_ctx;

static tsr_tensor* f_ce(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const ce_ctx* c = ctx;
  switch (c->which) {
    case 0: return T(tsr_cross_entropy_loss(in[0], c->target, c->weight, c->reduction, 1, 0.0, &o_));
    case 1: return T(tsr_cross_entropy_loss(in[0], c->target, c->weight, c->reduction, 1, 0.3, &o_));
    default: return T(tsr_nll_loss(in[0], c->target, c->weight, c->reduction, -100, &o_));
  }
}

Test(loss, gradcheck_cross_entropy_kdim) {
  const int64_t sx[] = {2, 4, 3}, st[] = {2, 3};
  const int64_t tv[] = {0, 1, 3, 2, 1, 0}; /* 1: ignored */
  tsr_tensor *t, *w = vec(WC, 4, TSR_FLOAT64);
  TSR_ASSERT_OK(tsr_from_data(tv, sizeof tv, 2, st, TSR_INT64, &t));
  for (int which = 0; which < 3; ++which)
    for (int r = 0; r < 3; ++r) {
      ce_ctx c = {which, r, t, which == 1 ? w : NULL};
      tsr_tensor* in[] = {tg_leaf(3, sx, 81 + which, 1, 0)};
      cr_expect_eq(tg_gradcheck("cross_entropy", f_ce, 1, in, &c), 24, "case %d reduction %d", which, r);
      tsr_tensor_release(in[0]);
    }
  tsr_tensor_release(t);
  tsr_tensor_release(w);
}

typedef struct {
  int logits, reduction;
  tsr_tensor *weight, *pos_weight;
} bce_ctx;

static tsr_tensor* f_bce(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const bce_ctx* c = ctx;
  if (c->logits)
    return T(tsr_binary_cross_entropy_with_logits(in[0], in[1], c->weight, c->pos_weight, c->reduction, &o_));
  /* input in (0, 1): sigmoid of the leaf */
  return T(tsr_binary_cross_entropy(T(tsr_sigmoid(in[0], &o_)), in[1], c->weight, c->reduction, &o_));
}

Test(loss, gradcheck_binary_cross_entropy) {
  const int64_t sx[] = {3, 4}, sw[] = {4};
  tsr_tensor *w = tg_leaf(1, sw, 91, 0.2, 1.0), *pw = tg_leaf(1, sw, 92, 0.2, 2.0);
  TSR_ASSERT_OK(tsr_set_requires_grad(w, false));
  TSR_ASSERT_OK(tsr_set_requires_grad(pw, false));
  for (int logits = 0; logits < 2; ++logits)
    for (int r = 0; r < 3; ++r) {
      bce_ctx c = {logits, r, w, logits ? pw : NULL};
      tsr_tensor* in[] = {tg_leaf(2, sx, 93, 1, 0), tg_leaf(2, sx, 94, 0.2, 0.5)};
      cr_expect_eq(tg_gradcheck("bce", f_bce, 2, in, &c), 24, "logits %d reduction %d", logits, r);
      tsr_tensor_release(in[0]);
      tsr_tensor_release(in[1]);
    }
  tsr_tensor_release(w);
  tsr_tensor_release(pw);
}

Test(loss, nll_cross_entropy_errors) {
  const int64_t s35[] = {3, 5}, s352[] = {3, 5, 2}, s33[] = {3, 3};
  const int64_t t7[] = {0, 1, 7}, tm1[] = {0, 1, -1}, t012[] = {0, 1, 2};
  tsr_tensor *x = filled(2, s35, TSR_FLOAT32, 0), *x3 = filled(3, s352, TSR_FLOAT32, 0),
             *xh = filled(2, s35, TSR_FLOAT16, 0), *bad7 = i64s(t7, 3), *badm1 = i64s(tm1, 3),
             *t = i64s(t012, 3), *t2 = i64s(t012, 2), *tf = filled(1, s35, TSR_FLOAT32, 0),
             *t33 = filled(2, s33, TSR_INT64, 0), *w4 = filled(1, (const int64_t[]){4}, TSR_FLOAT32, 1),
             *w5d = filled(1, (const int64_t[]){5}, TSR_FLOAT64, 1), *tl = filled(2, s35, TSR_INT64, 0),
             *s0 = filled(0, NULL, TSR_FLOAT32, 0), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_nll_loss(x, bad7, NULL, 1, -100, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "Target 7 is out of bounds.");
  TSR_ASSERT_FAILS(tsr_cross_entropy_loss(x, badm1, NULL, 1, -100, 0, &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "Target -1 is out of bounds.");
  TSR_ASSERT_FAILS(tsr_nll_loss(x, t2, NULL, 1, -100, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected input batch_size (3) to match target batch_size (2).");
  TSR_ASSERT_FAILS(tsr_nll_loss(x3, t33, NULL, 1, -100, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected target size [3, 2], got [3, 3]");
  TSR_ASSERT_FAILS(tsr_nll_loss(x, t, w4, 1, -100, &out), TSR_ERR_SHAPE_MISMATCH,
                   "weight tensor should be defined either for all 5 classes or no classes but got weight tensor "
                   "of shape: [4]");
  TSR_ASSERT_FAILS(tsr_cross_entropy_loss(x, t, w5d, 1, -100, 0, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type Float but found Double");
  TSR_ASSERT_FAILS(tsr_nll_loss(x, tl, NULL, 1, -100, &out), TSR_ERR_SHAPE_MISMATCH,
                   "1D target tensor expected, multi-target not supported");
  TSR_ASSERT_FAILS(tsr_nll_loss(s0, t, NULL, 1, -100, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Expected 1 or more dimensions (got 0)");
  TSR_EXPECT_RESULT_DTYPE(tsr_nll_loss(xh, t, NULL, 1, -100, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_nll_loss(x, x, NULL, 1, -100, &out), TSR_ERR_SHAPE_MISMATCH, "multi-target not supported");
  TSR_ASSERT_FAILS(tsr_nll_loss(x, tf, NULL, 1, -100, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type Long but found Float");
  TSR_ASSERT_FAILS(tsr_nll_loss(x, t, NULL, 5, -100, &out), TSR_ERR_INVALID_ARGUMENT,
                   "5 is not a valid value for reduction");
  TSR_ASSERT_FAILS(tsr_cross_entropy_loss(x, tl, NULL, 1, -100, 0, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Expected floating point type for target with class probabilities, got Long");
  TSR_ASSERT_FAILS(tsr_cross_entropy_loss(x, x, NULL, 1, 1, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "ignore_index is not supported for floating point target");
  TSR_ASSERT_FAILS(tsr_cross_entropy_loss(x, t, NULL, 1, -100, 1.5, &out), TSR_ERR_INVALID_ARGUMENT,
                   "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  TSR_ASSERT_FAILS(tsr_cross_entropy_loss(x, t, NULL, -2, -100, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "is not a valid value for reduction");
  TSR_ASSERT_FAILS(tsr_nll_loss(x, t, NULL, 1, -100, NULL), TSR_ERR_INVALID_ARGUMENT, "out");
  cr_expect_eq(out, SENTINEL);
  expect_filled(x, 0);
  tsr_tensor* all[] = {x, x3, xh, bad7, badm1, t, t2, tf, t33, w4, w5d, tl, s0};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

Test(loss, binary_cross_entropy_errors) {
  const int64_t s3[] = {3}, s2[] = {2}, s32[] = {3, 2};
  tsr_tensor *x = filled(1, s3, TSR_FLOAT32, 0.5), *big = filled(1, s3, TSR_FLOAT32, 1.5),
             *y2 = filled(1, s2, TSR_FLOAT32, 0.5), *yd = filled(1, s3, TSR_FLOAT64, 0.5),
             *xb = filled(1, s3, TSR_BFLOAT16, 0.5), *xh = filled(1, s3, TSR_FLOAT16, 0.5),
             *m = filled(2, s32, TSR_FLOAT32, 0.5), *out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy(big, x, NULL, 1, &out), TSR_ERR_INVALID_ARGUMENT,
                   "all elements of input should be between 0 and 1");
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy(x, y2, NULL, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Using a target size ([2]) that is different to the input size ([3]) is deprecated.");
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy_with_logits(x, y2, NULL, NULL, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "Target size ([2]) must be the same as input size ([3])");
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy(x, yd, NULL, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Found dtype Double but expected Float");
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy(x, x, yd, 1, &out), TSR_ERR_DTYPE_MISMATCH,
                   "Found dtype Double but expected Float");
  TSR_EXPECT_RESULT_DTYPE(tsr_binary_cross_entropy(xb, xb, NULL, 1, &out), out, TSR_BFLOAT16);
  TSR_EXPECT_RESULT_DTYPE(tsr_binary_cross_entropy_with_logits(xh, xh, NULL, NULL, 1, &out), out, TSR_FLOAT16);
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy(m, m, x, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy_with_logits(m, m, NULL, x, 1, &out), TSR_ERR_SHAPE_MISMATCH,
                   "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  TSR_ASSERT_FAILS(tsr_binary_cross_entropy_with_logits(x, x, NULL, NULL, 9, &out), TSR_ERR_INVALID_ARGUMENT,
                   "9 is not a valid value for reduction");
  cr_expect_eq(out, SENTINEL);
  expect_filled(x, 0.5);
  tsr_tensor* all[] = {x, big, y2, yd, xb, xh, m};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) tsr_tensor_release(all[i]);
}

/* ---- goldens: torch 1.13's values, grad_fn names and gradients (gen_loss.py) */

static tsr_tensor* golden_tensor(const tg_loss_dims* d, const void* v, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t i = 0; i < d->ndim; ++i) n *= d->sizes[i];
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * 8, d->ndim, d->sizes, dtype, &t));
  return t;
}

static void expect_values(const tsr_tensor* t, const double* want, const char* what, int k) {
  double* got = tg_values(t);
  for (int64_t i = 0; i < tsr_tensor_numel(t); ++i)
    cr_expect(fabs(got[i] - want[i]) <= 1e-10 + 1e-10 * fabs(want[i]) || (isnan(got[i]) && isnan(want[i])),
              "case %d %s[%lld]: %.17g != %.17g", k, what, (long long)i, got[i], want[i]);
  free(got);
}

static tsr_status golden_call(const tg_loss_case* c, tsr_tensor* x, tsr_tensor* t, tsr_tensor* w, tsr_tensor* pw,
                              tsr_tensor** out) {
  switch (c->fn) {
    case TG_LOSS_MSE: return tsr_mse_loss(x, t, c->reduction, out);
    case TG_LOSS_L1: return tsr_l1_loss(x, t, c->reduction, out);
    case TG_LOSS_SMOOTH_L1: return tsr_smooth_l1_loss(x, t, c->reduction, c->param, out);
    case TG_LOSS_HUBER: return tsr_huber_loss(x, t, c->reduction, c->param, out);
    case TG_LOSS_KL_DIV: return tsr_kl_div(x, t, c->reduction, false, out);
    case TG_LOSS_KL_DIV_LOG: return tsr_kl_div(x, t, c->reduction, true, out);
    case TG_LOSS_NLL: return tsr_nll_loss(x, t, w, c->reduction, c->ignore_index, out);
    case TG_LOSS_CE: return tsr_cross_entropy_loss(x, t, w, c->reduction, c->ignore_index, c->param, out);
    case TG_LOSS_BCE: return tsr_binary_cross_entropy(x, t, w, c->reduction, out);
    case TG_LOSS_BCE_LOGITS: return tsr_binary_cross_entropy_with_logits(x, t, w, pw, c->reduction, out);
  }
  return TSR_ERR_INTERNAL;
}

Test(loss, goldens) {
  for (int k = 0; k < TG_LOSS_N; ++k) {
    const tg_loss_case* c = &tg_loss_cases[k];
    tsr_tensor* x = golden_tensor(&c->xs, c->x, TSR_FLOAT64);
    tsr_tensor* t = golden_tensor(&c->ts, c->t, c->target_floating ? TSR_FLOAT64 : TSR_INT64);
    tsr_tensor* w = c->w ? golden_tensor(&c->ws, c->w, TSR_FLOAT64) : NULL;
    tsr_tensor* pw = c->pw ? golden_tensor(&c->pws, c->pw, TSR_FLOAT64) : NULL;
    tsr_tensor *y, *g, *gx, *gt;
    TSR_ASSERT_OK(tsr_set_requires_grad(x, true));
    if (c->target_floating) TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
    TSR_ASSERT_OK(golden_call(c, x, t, w, pw, &y));
    cr_expect_eq(tsr_tensor_ndim(y), c->ys.ndim, "case %d", k);
    for (int64_t i = 0; i < c->ys.ndim; ++i) cr_expect_eq(tsr_tensor_sizes(y)[i], c->ys.sizes[i], "case %d", k);
    expect_values(y, c->y, "loss", k);
    cr_expect_str_eq(tsr_grad_fn_name(y), c->grad_fn, "case %d", k);
    g = golden_tensor(&c->ys, c->g, TSR_FLOAT64);
    TSR_ASSERT_OK(tsr_backward(y, g, false));
    TSR_ASSERT_OK(tsr_grad(x, &gx));
    expect_values(gx, c->gx, "grad input", k);
    tsr_tensor_release(gx);
    if (c->gt) {
      TSR_ASSERT_OK(tsr_grad(t, &gt));
      expect_values(gt, c->gt, "grad target", k);
      tsr_tensor_release(gt);
    }
    tsr_tensor* all[] = {x, t, w, pw, y, g};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
      if (all[i]) tsr_tensor_release(all[i]);
  }
}

/* ---- gradgradcheck: tg_gradcheck of the first gradient, taken with
 * create_graph, checks the second derivatives (torch has double backward
 * for every loss here). */

typedef struct {
  int which; /* 0 mse, 1 smooth_l1, 2 huber, 3 cross_entropy (weight, ls), 4 bce, 5 bce_with_logits (pos_weight) */
  tsr_tensor *target, *weight;
} gg_ctx;

static tsr_tensor* f_loss_of(tg_arena* ar, tsr_tensor* const* in, const gg_ctx* c) {
  switch (c->which) {
    case 0: return T(tsr_mse_loss(in[0], in[1], TSR_REDUCTION_SUM, &o_));
    case 1: return T(tsr_smooth_l1_loss(in[0], in[1], TSR_REDUCTION_MEAN, 0.7, &o_));
    case 2: return T(tsr_huber_loss(in[0], in[1], TSR_REDUCTION_SUM, 0.6, &o_));
    case 3: return T(tsr_cross_entropy_loss(in[0], c->target, c->weight, TSR_REDUCTION_MEAN, 1, 0.2, &o_));
    case 4: return T(tsr_binary_cross_entropy(T(tsr_sigmoid(in[0], &o_)), in[1], NULL, TSR_REDUCTION_SUM, &o_));
    default:
      return T(tsr_binary_cross_entropy_with_logits(in[0], in[1], NULL, c->weight, TSR_REDUCTION_MEAN, &o_));
  }
}

/* d loss / d (input, target), as one [2 * numel] tensor (the target part
 * only where the target is differentiable). */
static tsr_tensor* f_grad(tg_arena* ar, tsr_tensor* const* in, const void* ctx) {
  const gg_ctx* c = ctx;
  const int n = c->which == 3 ? 1 : 2;
  /* tg_gradcheck's evaluations run without grad: this one needs a graph */
  bool prev = tsr_set_grad_enabled(true);
  tsr_tensor* y = f_loss_of(ar, in, c);
  tsr_tensor* g[2] = {NULL, NULL};
  TSR_ASSERT_OK(tsr_autograd_grad(1, &y, NULL, n, in, true, true, false, g));
  tsr_set_grad_enabled(prev);
  for (int i = 0; i < n; ++i) tg_keep(ar, g[i]);
  if (n == 1) return g[0];
  tsr_tensor* flat[2] = {T(tsr_reshape(g[0], 1, (const int64_t[]){-1}, &o_)),
                         T(tsr_reshape(g[1], 1, (const int64_t[]){-1}, &o_))};
  return T(tsr_cat(2, (const tsr_tensor* const*)flat, 0, &o_));
}

Test(loss, gradgradcheck) {
  const int64_t sx[] = {3, 4}, sw[] = {4}, st[] = {3};
  const int64_t tv[] = {0, 1, 3};
  tsr_tensor *t, *w = tg_leaf(1, sw, 101, 0.2, 1.0);
  TSR_ASSERT_OK(tsr_set_requires_grad(w, false));
  TSR_ASSERT_OK(tsr_from_data(tv, sizeof tv, 1, st, TSR_INT64, &t));
  for (int which = 0; which < 6; ++which) {
    gg_ctx c = {which, t, w};
    /* targets in (0, 1) for the binary cross entropies */
    tsr_tensor* in[] = {tg_leaf(2, sx, 102 + which, 1, 0), tg_leaf(2, sx, 110 + which, which >= 4 ? 0.2 : 1,
                                                                     which >= 4 ? 0.5 : 0)};
    cr_expect_eq(tg_gradcheck("gradgrad", f_grad, which == 3 ? 1 : 2, in, &c), which == 3 ? 12 : 24, "loss %d",
                 which);
    tsr_tensor_release(in[0]);
    tsr_tensor_release(in[1]);
  }
  tsr_tensor_release(t);
  tsr_tensor_release(w);
}
