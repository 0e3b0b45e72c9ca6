/* Optimizers and initializers (optim.h) against PyTorch 1.13
 * (tests/golden/gen_optim.py -> golden/optim_golden.h): four steps of every
 * SGD / Adam / AdamW variant on float32 and float64 parameters, contiguous
 * and transposed, with a parameter whose grad is missing on odd steps; the
 * state after the last step; zero_grad both ways; the argument errors with
 * torch's messages (nothing created, nothing changed); torch.nn.init's gains,
 * fans, bounds and moments. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "golden/optim_golden.h"
#include "helpers.h"

static const int64_t kShape0[] = {3, 4}, kShape1[] = {5}, kShape2[] = {2, 2};
static const int64_t* const kShapes[3] = {kShape0, kShape1, kShape2};
static const int64_t kNdims[3] = {2, 1, 2};
static const int64_t kOffsets[3] = {0, 12, 17};

/* A contiguous tensor of dtype holding vals (C order). */
static tsr_tensor* tensor_of(const double* vals, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  int64_t n = 1;
  for (int64_t d = 0; d < ndim; ++d) n *= sizes[d];
  tsr_tensor *t64, *t;
  TSR_ASSERT_OK(tsr_from_data(vals, (size_t)n * sizeof(double), ndim, sizes, TSR_FLOAT64, &t64));
  TSR_ASSERT_OK(tsr_to_dtype(t64, dtype, &t));
  tsr_tensor_release(t64);
  return t;
}

/* t's elements in C order as doubles; returns numel. */
static int64_t values(const tsr_tensor* t, double* out) {
  tsr_tensor *cpu, *t64;
  TSR_ASSERT_OK(tsr_to_device(t, TSR_DEVICE_CPU, 0, 0, &cpu));
  TSR_ASSERT_OK(tsr_to_dtype(cpu, TSR_FLOAT64, &t64));
  tsr_tensor_release(cpu);
  int64_t n = tsr_tensor_numel(t64);
  TSR_ASSERT_OK(tsr_copy_to_buffer(t64, out, (size_t)n * sizeof(double), NULL));
  tsr_tensor_release(t64);
  return n;
}

static void expect_close(const double* got, const double* want, int64_t n, const char* what, int step) {
  for (int64_t i = 0; i < n; ++i)
    cr_expect(fabs(got[i] - want[i]) <= 1e-6 + 1e-6 * fabs(want[i]),
              "%s, step %d, element %lld: %.9g, torch %.9g", what, step, (long long)i, got[i], want[i]);
}

/* The golden parameters: p0 [3, 4] (transposed: strides {1, 3}), p1 [5],
 * p2 [2, 2], leaves requiring grad. */
/* t moved to `device` (a new reference; t released). */
static tsr_tensor* moved(tsr_tensor* t, tsr_device_type device) {
  if (device == TSR_DEVICE_CPU) return t;
  tsr_tensor* d;
  TSR_ASSERT_OK(tsr_to_device(t, device, 0, 0, &d));
  tsr_tensor_release(t);
  return d;
}

static void make_params(tsr_dtype dtype, bool transposed, tsr_device_type device, tsr_tensor* ps[3]) {
  for (int i = 0; i < 3; ++i) {
    tsr_tensor* c = tensor_of(tg_optim_init + kOffsets[i], kNdims[i], kShapes[i], dtype);
    if (i == 0 && transposed) {
      const int64_t strides[] = {1, 3};
      TSR_ASSERT_OK(tsr_empty_strided(2, kShape0, strides, dtype, device, 0, &ps[i]));
      TSR_ASSERT_OK(tsr_copy_(ps[i], c));
      tsr_tensor_release(c);
    } else {
      ps[i] = moved(c, device);
    }
    TSR_ASSERT_OK(tsr_set_requires_grad(ps[i], true));
  }
}

static void set_grads(tsr_tensor* ps[3], tsr_dtype dtype, tsr_device_type device, int step) {
  for (int i = 0; i < 3; ++i) {
    if (i == 2 && step % 2 == 1) {
      TSR_ASSERT_OK(tsr_set_grad(ps[i], NULL));
      continue;
    }
    tsr_tensor* g = moved(tensor_of(tg_optim_grads[step] + kOffsets[i], kNdims[i], kShapes[i], dtype), device);
    TSR_ASSERT_OK(tsr_set_grad(ps[i], g));
    tsr_tensor_release(g);
  }
}

static tsr_optimizer* make_optimizer(const tg_optim_case* c, tsr_tensor* ps[3]) {
  tsr_optimizer* opt = NULL;
  if (c->kind == 0) {
    tsr_sgd_options o;
    tsr_sgd_options_init(&o);
    o.lr = c->lr;
    o.momentum = c->momentum;
    o.dampening = c->dampening;
    o.weight_decay = c->weight_decay;
    o.nesterov = c->nesterov;
    TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 3, &o, &opt));
  } else {
    tsr_adam_options o;
    tsr_adam_options_init(&o);
    o.lr = c->lr;
    o.beta1 = c->beta1;
    o.beta2 = c->beta2;
    o.eps = c->eps;
    o.weight_decay = c->weight_decay;
    o.amsgrad = c->amsgrad;
    if (c->kind == 1) TSR_ASSERT_OK(tsr_optimizer_adam(ps, 3, &o, &opt));
    else TSR_ASSERT_OK(tsr_optimizer_adamw(ps, 3, &o, &opt));
  }
  return opt;
}

static void expect_state(const tsr_optimizer* opt, const char* key, const int* has, const double* want,
                         const char* name) {
  for (int i = 0; i < 3; ++i) {
    tsr_tensor* s = SENTINEL;
    TSR_ASSERT_OK(tsr_optimizer_state(opt, (size_t)i, key, &s));
    cr_expect_eq(s != NULL, has[i] != 0, "%s: state[%d][%s] present %d, torch %d", name, i, key, s != NULL,
                 has[i]);
    if (s && has[i]) {
      double got[12];
      int64_t n = values(s, got);
      cr_expect_eq(n, i == 0 ? 12 : i == 1 ? 5 : 4);
      expect_close(got, want + kOffsets[i], n, key, TG_OPTIM_STEPS);
    }
    tsr_tensor_release(s);
  }
}

/* Every golden case on `device`: parameters, gradients and state there. */
static void run_golden_cases(tsr_device_type device) {
  for (size_t k = 0; k < TG_OPTIM_NUM_CASES; ++k) {
    const tg_optim_case* c = &tg_optim_cases[k];
    tsr_dtype dtype = c->float64 ? TSR_FLOAT64 : TSR_FLOAT32;
    tsr_tensor* ps[3];
    make_params(dtype, c->transposed, device, ps);
    tsr_optimizer* opt = make_optimizer(c, ps);
    cr_assert_eq(tsr_optimizer_num_params(opt), 3);
    int64_t v0[3];
    for (int i = 0; i < 3; ++i) v0[i] = tsr_version(ps[i]);
    for (int s = 0; s < TG_OPTIM_STEPS; ++s) {
      if (s == 2 && c->lr_at_step2 >= 0) {
        TSR_ASSERT_OK(tsr_optimizer_set_lr(opt, c->lr_at_step2));
        double lr = 0;
        TSR_ASSERT_OK(tsr_optimizer_get_lr(opt, &lr));
        cr_expect_eq(lr, c->lr_at_step2);
      }
      set_grads(ps, dtype, device, s);
      TSR_ASSERT_OK(tsr_optimizer_step(opt));
      double got[TG_OPTIM_TOTAL];
      for (int i = 0; i < 3; ++i) values(ps[i], got + kOffsets[i]);
      expect_close(got, c->after[s], TG_OPTIM_TOTAL, c->name, s);
    }
    /* as many in-place writes as torch's steps made (AdamW: mul_ and addcdiv_) */
    for (int i = 0; i < 3; ++i)
      cr_expect_eq(tsr_version(ps[i]) - v0[i], c->versions[i], "%s: param %d version moved by %lld, torch %lld",
                   c->name, i, (long long)(tsr_version(ps[i]) - v0[i]), (long long)c->versions[i]);
    /* the transposed parameter kept its strides, and stayed a leaf */
    if (c->transposed) cr_expect(tsr_tensor_strides(ps[0])[0] == 1 && tsr_tensor_strides(ps[0])[1] == 3);
    cr_expect(tsr_is_leaf(ps[0]) && tsr_requires_grad(ps[0]));
    if (c->kind == 0) {
      expect_state(opt, "momentum_buffer", c->has_momentum_buffer, c->momentum_buffer, c->name);
    } else {
      expect_state(opt, "exp_avg", c->has_exp_avg, c->exp_avg, c->name);
      expect_state(opt, "exp_avg_sq", c->has_exp_avg_sq, c->exp_avg_sq, c->name);
      expect_state(opt, "max_exp_avg_sq", c->has_max_exp_avg_sq, c->max_exp_avg_sq, c->name);
      for (int i = 0; i < 3; ++i) {
        tsr_tensor* st;
        TSR_ASSERT_OK(tsr_optimizer_state(opt, (size_t)i, "step", &st));
        cr_assert_not_null(st);
        cr_expect_eq(tsr_tensor_dtype(st), TSR_FLOAT32);
        cr_expect_eq(tsr_tensor_ndim(st), 0);
        double v;
        TSR_ASSERT_OK(tsr_item_double(st, &v));
        cr_expect_eq(v, c->step[i], "%s: step of param %d is %g, torch %g", c->name, i, v, c->step[i]);
        tsr_tensor_release(st);
      }
    }
    /* state lives with its parameter ("step" on the CPU, as torch's) */
    const char* key = c->kind == 0 ? "momentum_buffer" : "exp_avg";
    tsr_tensor* st = NULL;
    TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, key, &st));
    if (st) cr_expect_eq(tsr_tensor_device_type(st), device);
    tsr_tensor_release(st);
    tsr_optimizer_release(opt);
    for (int i = 0; i < 3; ++i) tsr_tensor_release(ps[i]);
  }
}

Test(optim, matches_torch_every_variant) { run_golden_cases(TSR_DEVICE_CPU); }

/* The same on a CUDA device: a real GPU, or the emulated one of
 * tests/cuda_double ($TSR_CUDA_PLUGIN; ctest test_optim_cuda_emulated).
 * The steps are the library's in-place ops, so they run on the device.
 * Skipped where no CUDA device can be had. */
Test(optim_device, matches_torch_on_cuda) {
  const int64_t s[] = {1};
  tsr_tensor* probe;
  if (tsr_zeros(1, s, TSR_FLOAT32, TSR_DEVICE_CUDA, 0, &probe) != TSR_OK)
    cr_skip_test("no CUDA device: %s", tsr_last_error_message());
  tsr_tensor_release(probe);
  run_golden_cases(TSR_DEVICE_CUDA);
}

/* A real training loop: backward fills .grad, step uses it, zero_grad
 * clears it; the loss of a least-squares fit goes down. Versions move as
 * torch's (one in-place write per SGD step). */
Test(optim, trains_with_backward) {
  const int64_t ws[] = {1, 3}, xs[] = {8, 3};
  tsr_tensor *w, *x, *target;
  TSR_ASSERT_OK(tsr_zeros(2, ws, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(5, &g));
  TSR_ASSERT_OK(tsr_randn(2, xs, TSR_FLOAT32, g, &x));
  const double true_w[] = {1.5, -2.0, 0.5};
  tsr_tensor* tw = tensor_of(true_w, 2, ws, TSR_FLOAT32);
  tsr_tensor* twt;
  TSR_ASSERT_OK(tsr_t(tw, &twt));
  TSR_ASSERT_OK(tsr_matmul(x, twt, &target));
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.1;
  o.momentum = 0.5;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&w, 1, &o, &opt));
  double first = 0, last = 0;
  for (int it = 0; it < 60; ++it) {
    TSR_ASSERT_OK(tsr_optimizer_zero_grad(opt, it % 2 == 0));
    tsr_tensor *wt, *pred, *diff, *sq, *loss;
    TSR_ASSERT_OK(tsr_t(w, &wt));
    TSR_ASSERT_OK(tsr_matmul(x, wt, &pred));
    TSR_ASSERT_OK(tsr_sub(pred, target, &diff));
    TSR_ASSERT_OK(tsr_mul(diff, diff, &sq));
    TSR_ASSERT_OK(tsr_mean(sq, 0, NULL, false, &loss));
    double l;
    TSR_ASSERT_OK(tsr_item_double(loss, &l));
    if (it == 0) first = l;
    last = l;
    TSR_ASSERT_OK(tsr_backward(loss, NULL, false));
    int64_t v0 = tsr_version(w);
    TSR_ASSERT_OK(tsr_optimizer_step(opt));
    cr_expect_eq(tsr_version(w), v0 + 1);
    tsr_tensor* arr[] = {wt, pred, diff, sq, loss};
    for (int i = 0; i < 5; ++i) tsr_tensor_release(arr[i]);
  }
  cr_expect(last < first * 1e-3, "loss %g -> %g", first, last);
  double wv[3];
  values(w, wv);
  for (int i = 0; i < 3; ++i) cr_expect(fabs(wv[i] - true_w[i]) < 1e-2, "w[%d] = %g", i, wv[i]);
  tsr_optimizer_release(opt);
  tsr_tensor* arr[] = {w, x, target, tw, twt};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(arr[i]);
  tsr_generator_release(g);
}

Test(optim, zero_grad_both_ways) {
  const int64_t s[] = {4};
  tsr_tensor *p, *g;
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  TSR_ASSERT_OK(tsr_full(1, s, 3.0, TSR_FLOAT32, TSR_CPU, &g));
  TSR_ASSERT_OK(tsr_set_grad(p, g));
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_adam(&p, 1, &o, &opt));
  /* set_to_none = false: the same gradient tensor, zeroed in place */
  int64_t v = tsr_version(g);
  TSR_ASSERT_OK(tsr_optimizer_zero_grad(opt, false));
  tsr_tensor* now;
  TSR_ASSERT_OK(tsr_grad(p, &now));
  cr_assert_not_null(now);
  cr_expect_eq(tsr_tensor_data_ptr(now), tsr_tensor_data_ptr(g));
  cr_expect_eq(tsr_version(g), v + 1);
  double vals[4];
  values(g, vals);
  for (int i = 0; i < 4; ++i) cr_expect_eq(vals[i], 0.0);
  tsr_tensor_release(now);
  /* set_to_none = true: .grad is None; a step then skips p (no state) */
  TSR_ASSERT_OK(tsr_optimizer_zero_grad(opt, true));
  expect_no_grad(p);
  int64_t pv = tsr_version(p);
  TSR_ASSERT_OK(tsr_optimizer_step(opt));
  cr_expect_eq(tsr_version(p), pv);
  tsr_tensor* st = SENTINEL;
  TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, "exp_avg", &st));
  cr_expect_null(st);
  /* zero_grad on parameters without grad is fine */
  TSR_ASSERT_OK(tsr_optimizer_zero_grad(opt, false));
  tsr_optimizer_release(opt);
  tsr_tensor_release(p);
  tsr_tensor_release(g);
}

/* An optimizer keeps its parameters alive after the caller's handles go. */
Test(optim, holds_its_parameters) {
  const int64_t s[] = {3};
  tsr_tensor *p, *g;
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT64, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  TSR_ASSERT_OK(tsr_ones(1, s, TSR_FLOAT64, TSR_CPU, &g));
  TSR_ASSERT_OK(tsr_set_grad(p, g));
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.5;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&p, 1, &o, &opt));
  tsr_tensor* keep = p;
  tsr_tensor_retain(keep);
  tsr_tensor_release(p);
  tsr_tensor_release(g);
  tsr_optimizer_retain(opt);
  tsr_optimizer_release(opt);
  TSR_ASSERT_OK(tsr_optimizer_step(opt));
  double v[3];
  values(keep, v);
  cr_expect_eq(v[0], 0.5);
  tsr_optimizer_release(opt);
  tsr_optimizer_release(NULL);
  tsr_tensor_release(keep);
}

/* ---- errors: status, torch's message, nothing made or changed ------------- */

static tsr_tensor* leaf(void) {
  const int64_t s[] = {2};
  tsr_tensor* p;
  TSR_ASSERT_OK(tsr_zeros(1, s, TSR_FLOAT32, TSR_CPU, &p));
  TSR_ASSERT_OK(tsr_set_requires_grad(p, true));
  return p;
}

#define SGD_FAILS(opts_expr, status, needle)                                    \
  do {                                                                          \
    tsr_tensor* p_ = leaf();                                                    \
    tsr_sgd_options o_;                                                         \
    tsr_sgd_options_init(&o_);                                                  \
    o_.lr = 0.1;                                                                \
    opts_expr;                                                                  \
    tsr_optimizer* out_ = (tsr_optimizer*)SENTINEL;                             \
    TSR_ASSERT_FAILS(tsr_optimizer_sgd(&p_, 1, &o_, &out_), status, needle);    \
    cr_expect_eq((void*)out_, (void*)SENTINEL);                                 \
    tsr_tensor_release(p_);                                                     \
  } while (0)

#define ADAM_FAILS(fn, opts_expr, status, needle)                               \
  do {                                                                          \
    tsr_tensor* p_ = leaf();                                                    \
    tsr_adam_options o_;                                                        \
    tsr_adam_options_init(&o_);                                                 \
    opts_expr;                                                                  \
    tsr_optimizer* out_ = (tsr_optimizer*)SENTINEL;                             \
    TSR_ASSERT_FAILS(fn(&p_, 1, &o_, &out_), status, needle);                   \
    cr_expect_eq((void*)out_, (void*)SENTINEL);                                 \
    tsr_tensor_release(p_);                                                     \
  } while (0)

Test(optim, sgd_argument_errors) {
  SGD_FAILS(o_.lr = -0.1, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_SGD_LR);
  SGD_FAILS(o_.momentum = -0.5, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_SGD_MOMENTUM);
  SGD_FAILS(o_.weight_decay = -1.0, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_SGD_WEIGHT_DECAY);
  SGD_FAILS(o_.nesterov = true, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_SGD_NESTEROV);
  SGD_FAILS((o_.nesterov = true, o_.momentum = 0.9, o_.dampening = 0.1), TSR_ERR_INVALID_ARGUMENT,
            TG_OPTIM_ERR_SGD_NESTEROV);
  /* SGD has no default learning rate */
  SGD_FAILS(tsr_sgd_options_init(&o_), TSR_ERR_INVALID_ARGUMENT, "lr is required");
  SGD_FAILS(o_.struct_size = 0, TSR_ERR_INVALID_ARGUMENT, "struct_size");
  /* NULL options: the defaults, so lr is missing */
  tsr_tensor* p = leaf();
  tsr_optimizer* out = (tsr_optimizer*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_optimizer_sgd(&p, 1, NULL, &out), TSR_ERR_INVALID_ARGUMENT, "lr is required");
  cr_expect_eq((void*)out, (void*)SENTINEL);
  tsr_tensor_release(p);
}

Test(optim, adam_argument_errors) {
  ADAM_FAILS(tsr_optimizer_adam, o_.lr = -0.001, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_ADAM_LR);
  ADAM_FAILS(tsr_optimizer_adam, o_.beta1 = 1.0, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_ADAM_BETA1);
  ADAM_FAILS(tsr_optimizer_adam, o_.beta2 = -0.1, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_ADAM_BETA2);
  ADAM_FAILS(tsr_optimizer_adam, o_.eps = -1e-8, TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_ADAM_EPS);
  ADAM_FAILS(tsr_optimizer_adam, o_.weight_decay = -0.5, TSR_ERR_INVALID_ARGUMENT,
             TG_OPTIM_ERR_ADAM_WEIGHT_DECAY);
  ADAM_FAILS(tsr_optimizer_adamw, o_.weight_decay = -0.5, TSR_ERR_INVALID_ARGUMENT,
             TG_OPTIM_ERR_ADAM_WEIGHT_DECAY);
  ADAM_FAILS(tsr_optimizer_adamw, o_.beta1 = -0.0001, TSR_ERR_INVALID_ARGUMENT,
             "Invalid beta parameter at index 0: -0.0001");
  ADAM_FAILS(tsr_optimizer_adam, o_.struct_size = sizeof(size_t), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  /* NULL options: Adam's defaults */
  tsr_tensor* p = leaf();
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_adam(&p, 1, NULL, &opt));
  double lr;
  TSR_ASSERT_OK(tsr_optimizer_get_lr(opt, &lr));
  cr_expect_eq(lr, 1e-3);
  tsr_optimizer_release(opt);
  tsr_tensor_release(p);
}

Test(optim, parameter_errors) {
  tsr_adam_options o;
  tsr_adam_options_init(&o);
  tsr_optimizer* out = (tsr_optimizer*)SENTINEL;
  tsr_tensor* p = leaf();
  /* NULLs */
  TSR_ASSERT_FAILS(tsr_optimizer_adam(NULL, 1, &o, &out), TSR_ERR_INVALID_ARGUMENT, "params is NULL");
  tsr_tensor* with_null[] = {p, NULL};
  TSR_ASSERT_FAILS(tsr_optimizer_adam(with_null, 2, &o, &out), TSR_ERR_INVALID_ARGUMENT, "params[1] is NULL");
  TSR_ASSERT_FAILS(tsr_optimizer_adam(&p, 1, &o, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  /* empty */
  TSR_ASSERT_FAILS(tsr_optimizer_adam(&p, 0, &o, &out), TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_EMPTY);
  /* non-leaf */
  tsr_tensor* nl;
  TSR_ASSERT_OK(tsr_mul_scalar(p, 2.0, &nl));
  TSR_ASSERT_FAILS(tsr_optimizer_adam(&nl, 1, &o, &out), TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_NON_LEAF);
  /* non-floating */
  const int64_t s[] = {2};
  tsr_tensor* ints;
  TSR_ASSERT_OK(tsr_zeros(1, s, TSR_INT64, TSR_CPU, &ints));
  tsr_tensor* mixed[] = {p, ints};
  TSR_ASSERT_FAILS(tsr_optimizer_adam(mixed, 2, &o, &out), TSR_ERR_DTYPE_MISMATCH, "params[1] has dtype int64");
  /* the same tensor twice, also through two handles */
  tsr_tensor* twice[] = {p, p};
  TSR_ASSERT_FAILS(tsr_optimizer_adam(twice, 2, &o, &out), TSR_ERR_INVALID_ARGUMENT, "duplicate parameters");
  tsr_tensor* alias;
  TSR_ASSERT_OK(tsr_grad(p, &alias)); /* NULL: no grad yet */
  cr_assert_null(alias);
  cr_expect_eq((void*)out, (void*)SENTINEL);
  tsr_sgd_options so;
  tsr_sgd_options_init(&so);
  so.lr = 1;
  TSR_ASSERT_FAILS(tsr_optimizer_sgd(twice, 2, &so, &out), TSR_ERR_INVALID_ARGUMENT, "duplicate parameters");
  cr_expect_eq((void*)out, (void*)SENTINEL);
  tsr_tensor_release(nl);
  tsr_tensor_release(ints);
  tsr_tensor_release(p);
}

Test(optim, call_errors_change_nothing) {
  tsr_tensor* p = leaf();
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.1;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(&p, 1, &o, &opt));
  TSR_ASSERT_FAILS(tsr_optimizer_step(NULL), TSR_ERR_INVALID_ARGUMENT, "optimizer is NULL");
  TSR_ASSERT_FAILS(tsr_optimizer_zero_grad(NULL, true), TSR_ERR_INVALID_ARGUMENT, "optimizer is NULL");
  TSR_ASSERT_FAILS(tsr_optimizer_set_lr(opt, -0.1), TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_SGD_LR);
  double lr = 7;
  TSR_ASSERT_FAILS(tsr_optimizer_get_lr(NULL, &lr), TSR_ERR_INVALID_ARGUMENT, "optimizer is NULL");
  cr_expect_eq(lr, 7);
  TSR_ASSERT_OK(tsr_optimizer_get_lr(opt, &lr));
  cr_expect_eq(lr, 0.1);
  TSR_ASSERT_FAILS(tsr_optimizer_get_lr(opt, NULL), TSR_ERR_INVALID_ARGUMENT, "lr is NULL");
  tsr_tensor* st = SENTINEL;
  TSR_ASSERT_FAILS(tsr_optimizer_state(opt, 1, "momentum_buffer", &st), TSR_ERR_INVALID_ARGUMENT,
                   "out of range");
  TSR_ASSERT_FAILS(tsr_optimizer_state(opt, 0, "exp_avg", &st), TSR_ERR_INVALID_ARGUMENT,
                   "keeps no state \"exp_avg\"");
  TSR_ASSERT_FAILS(tsr_optimizer_state(opt, 0, NULL, &st), TSR_ERR_INVALID_ARGUMENT, "key is NULL");
  cr_expect_eq(st, SENTINEL);
  TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, "momentum_buffer", &st));
  cr_expect_null(st); /* no momentum: SGD keeps no buffer */
  cr_expect_eq(tsr_optimizer_num_params(NULL), -1);
  /* a gradient of the wrong size: nothing is written */
  const int64_t s3[] = {3};
  tsr_tensor *bad, *good;
  TSR_ASSERT_OK(tsr_ones(1, s3, TSR_FLOAT32, TSR_CPU, &bad));
  /* tsr_set_grad refuses it; a grad of the right shape but float64 too */
  TSR_ASSERT_FAILS(tsr_set_grad(p, bad), TSR_ERR_SHAPE_MISMATCH, "different size");
  const int64_t s2[] = {2};
  TSR_ASSERT_OK(tsr_ones(1, s2, TSR_FLOAT32, TSR_CPU, &good));
  TSR_ASSERT_OK(tsr_set_grad(p, good));
  int64_t v = tsr_version(p);
  TSR_ASSERT_OK(tsr_optimizer_step(opt));
  cr_expect_eq(tsr_version(p), v + 1);
  tsr_tensor_release(bad);
  tsr_tensor_release(good);
  tsr_optimizer_release(opt);
  tsr_tensor_release(p);
}

/* A parameter whose elements overlap (expand): step refuses before writing
 * anything, also to the parameters before it. */
Test(optim, overlapping_parameter_changes_nothing) {
  const int64_t s1[] = {1}, s4[] = {4};
  tsr_tensor *a, *base, *ex, *ga, *gx;
  a = leaf();
  TSR_ASSERT_OK(tsr_ones(1, s1, TSR_FLOAT32, TSR_CPU, &base));
  TSR_ASSERT_OK(tsr_expand(base, 1, s4, &ex));
  TSR_ASSERT_OK(tsr_set_requires_grad(ex, true));
  const int64_t s2[] = {2};
  TSR_ASSERT_OK(tsr_ones(1, s2, TSR_FLOAT32, TSR_CPU, &ga));
  TSR_ASSERT_OK(tsr_ones(1, s4, TSR_FLOAT32, TSR_CPU, &gx));
  TSR_ASSERT_OK(tsr_set_grad(a, ga));
  TSR_ASSERT_OK(tsr_set_grad(ex, gx));
  tsr_tensor* ps[] = {a, ex};
  tsr_sgd_options o;
  tsr_sgd_options_init(&o);
  o.lr = 0.1;
  o.momentum = 0.9;
  tsr_optimizer* opt;
  TSR_ASSERT_OK(tsr_optimizer_sgd(ps, 2, &o, &opt));
  int64_t va = tsr_version(a);
  TSR_ASSERT_FAILS(tsr_optimizer_step(opt), TSR_ERR_INVALID_ARGUMENT, "more than one element");
  cr_expect_eq(tsr_version(a), va);
  tsr_tensor* st = SENTINEL;
  TSR_ASSERT_OK(tsr_optimizer_state(opt, 0, "momentum_buffer", &st));
  cr_expect_null(st);
  tsr_optimizer_release(opt);
  tsr_tensor* arr[] = {a, base, ex, ga, gx};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(arr[i]);
}

/* ---- torch.nn.init --------------------------------------------------------- */

Test(init, calculate_gain_as_torch) {
  for (size_t i = 0; i < sizeof tg_gain_cases / sizeof tg_gain_cases[0]; ++i) {
    const tg_gain_case* c = &tg_gain_cases[i];
    double g = 0;
    TSR_ASSERT_OK(tsr_init_calculate_gain(c->nonlinearity, c->has_param ? &c->param : NULL, &g));
    cr_expect_eq(g, c->gain, "%s: %.17g, torch %.17g", c->nonlinearity, g, c->gain);
  }
  double g = 5;
  TSR_ASSERT_FAILS(tsr_init_calculate_gain("foo", NULL, &g), TSR_ERR_INVALID_ARGUMENT,
                   TG_OPTIM_ERR_NONLINEARITY);
  cr_expect_eq(g, 5);
  TSR_ASSERT_FAILS(tsr_init_calculate_gain(NULL, NULL, &g), TSR_ERR_INVALID_ARGUMENT, "nonlinearity is NULL");
}

Test(init, fans_as_torch) {
  for (size_t i = 0; i < sizeof tg_fan_cases / sizeof tg_fan_cases[0]; ++i) {
    const tg_fan_case* c = &tg_fan_cases[i];
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_empty(c->ndim, c->sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
    int64_t fi = -1, fo = -1;
    TSR_ASSERT_OK(tsr_init_calculate_fan_in_and_fan_out(t, &fi, &fo));
    cr_expect_eq(fi, c->fan_in);
    cr_expect_eq(fo, c->fan_out);
    tsr_tensor_release(t);
  }
  const int64_t s[] = {4};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_empty(1, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  int64_t fi = -1, fo = -1;
  TSR_ASSERT_FAILS(tsr_init_calculate_fan_in_and_fan_out(t, &fi, &fo), TSR_ERR_INVALID_ARGUMENT,
                   TG_OPTIM_ERR_FAN_1D);
  cr_expect(fi == -1 && fo == -1);
  tsr_tensor_release(t);
}

/* Every value inside [-bound, bound], the extremes near the bound, mean
 * near 0 and variance near bound^2 / 3 (uniform). */
static void expect_uniform(const tsr_tensor* t, double bound, const char* what) {
  int64_t n = tsr_tensor_numel(t);
  double* v = malloc((size_t)n * sizeof(double));
  values(t, v);
  double lo = 1e300, hi = -1e300, sum = 0, sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    cr_assert(v[i] >= -bound && v[i] <= bound, "%s: %g outside +-%g", what, v[i], bound);
    lo = fmin(lo, v[i]);
    hi = fmax(hi, v[i]);
    sum += v[i];
    sq += v[i] * v[i];
  }
  double mean = sum / n, var = sq / n - mean * mean;
  cr_expect(hi > 0.97 * bound && lo < -0.97 * bound, "%s: range [%g, %g] for bound %g", what, lo, hi, bound);
  cr_expect(fabs(mean) < 0.1 * bound, "%s: mean %g", what, mean);
  cr_expect(fabs(var - bound * bound / 3) < 0.15 * bound * bound / 3, "%s: variance %g, expected %g", what, var,
            bound * bound / 3);
  free(v);
}

Test(init, kaiming_uniform_bounds_as_torch) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(1, &g));
  for (size_t i = 0; i < sizeof tg_kaiming_cases / sizeof tg_kaiming_cases[0]; ++i) {
    const tg_kaiming_case* c = &tg_kaiming_cases[i];
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_empty(c->ndim, c->sizes, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
    TSR_ASSERT_OK(tsr_set_requires_grad(t, true)); /* a parameter: written under no_grad */
    int64_t v = tsr_version(t);
    TSR_ASSERT_OK(tsr_init_kaiming_uniform_(t, c->a, c->mode, c->nonlinearity, g));
    cr_expect_eq(tsr_version(t), v + 1);
    cr_expect(tsr_is_leaf(t) && tsr_requires_grad(t));
    expect_uniform(t, c->bound, c->nonlinearity);
    tsr_tensor_release(t);
  }
  /* torch's defaults through NULL: a = 0, fan_in, leaky_relu */
  const int64_t s[] = {64, 32};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_empty(2, s, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_init_kaiming_uniform_(t, 0.0, NULL, NULL, g));
  expect_uniform(t, tg_kaiming_cases[0].bound, "defaults");
  tsr_tensor_release(t);
  tsr_generator_release(g);
}

Test(init, xavier_uniform_bounds_as_torch) {
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(2, &g));
  for (size_t i = 0; i < sizeof tg_xavier_cases / sizeof tg_xavier_cases[0]; ++i) {
    const tg_xavier_case* c = &tg_xavier_cases[i];
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_empty(c->ndim, c->sizes, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
    TSR_ASSERT_OK(tsr_init_xavier_uniform_(t, c->gain, g));
    expect_uniform(t, c->bound, "xavier");
    tsr_tensor_release(t);
  }
  tsr_generator_release(g);
}

/* A transposed (non-contiguous) target gets the values in its own C order:
 * the same numbers as a contiguous one drawn from the same position. */
Test(init, non_contiguous_target) {
  const int64_t s[] = {6, 5}, st[] = {1, 6};
  tsr_tensor *a, *b;
  TSR_ASSERT_OK(tsr_empty(2, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_empty_strided(2, s, st, TSR_FLOAT32, TSR_CPU, &b));
  tsr_generator *g1, *g2;
  TSR_ASSERT_OK(tsr_generator_create(9, &g1));
  TSR_ASSERT_OK(tsr_generator_create(9, &g2));
  TSR_ASSERT_OK(tsr_init_normal_(a, 1.0, 2.0, g1));
  TSR_ASSERT_OK(tsr_init_normal_(b, 1.0, 2.0, g2));
  double va[30], vb[30];
  values(a, va);
  values(b, vb);
  for (int i = 0; i < 30; ++i) cr_expect_eq(va[i], vb[i]);
  cr_expect(tsr_tensor_strides(b)[0] == 1 && tsr_tensor_strides(b)[1] == 6);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_generator_release(g1);
  tsr_generator_release(g2);
}

Test(init, normal_moments) {
  const int64_t s[] = {200, 100};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_empty(2, s, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(3, &g));
  TSR_ASSERT_OK(tsr_init_normal_(t, -2.0, 0.5, g));
  double* v = malloc(20000 * sizeof(double));
  values(t, v);
  double sum = 0, sq = 0;
  for (int i = 0; i < 20000; ++i) sum += v[i];
  double mean = sum / 20000;
  for (int i = 0; i < 20000; ++i) sq += (v[i] - mean) * (v[i] - mean);
  cr_expect(fabs(mean + 2.0) < 0.02, "mean %g", mean);
  cr_expect(fabs(sqrt(sq / 20000) - 0.5) < 0.02, "std %g", sqrt(sq / 20000));
  free(v);
  tsr_tensor_release(t);
  tsr_generator_release(g);
}

Test(init, zeros_exact) {
  const int64_t s[] = {3, 4}, st[] = {1, 3};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_empty_strided(2, s, st, TSR_FLOAT64, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_fill_(t, 7.0));
  TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
  TSR_ASSERT_OK(tsr_init_zeros_(t));
  double v[12];
  values(t, v);
  for (int i = 0; i < 12; ++i) cr_expect_eq(v[i], 0.0);
  cr_expect(tsr_is_leaf(t) && tsr_requires_grad(t));
  TSR_ASSERT_FAILS(tsr_init_zeros_(NULL), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  tsr_tensor_release(t);
}

/* Errors: t and the generator unchanged. */
Test(init, errors_change_nothing) {
  const int64_t s[] = {4, 4};
  tsr_tensor *t, *ints, *one_d;
  TSR_ASSERT_OK(tsr_full(2, s, 3.0, TSR_FLOAT32, TSR_CPU, &t));
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_INT64, TSR_CPU, &ints));
  TSR_ASSERT_OK(tsr_zeros(1, s, TSR_FLOAT32, TSR_CPU, &one_d));
  tsr_generator* g;
  TSR_ASSERT_OK(tsr_generator_create(4, &g));
  TSR_ASSERT_FAILS(tsr_init_normal_(t, 0.0, -1.0, g), TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_NORMAL_STD);
  TSR_ASSERT_FAILS(tsr_init_kaiming_uniform_(t, 0.0, "fan_avg", "relu", g), TSR_ERR_INVALID_ARGUMENT,
                   TG_OPTIM_ERR_MODE);
  TSR_ASSERT_FAILS(tsr_init_kaiming_uniform_(t, 0.0, "fan_in", "foo", g), TSR_ERR_INVALID_ARGUMENT,
                   TG_OPTIM_ERR_NONLINEARITY);
  TSR_ASSERT_FAILS(tsr_init_kaiming_uniform_(one_d, 0.0, "fan_in", "relu", g), TSR_ERR_INVALID_ARGUMENT,
                   TG_OPTIM_ERR_FAN_1D);
  TSR_ASSERT_FAILS(tsr_init_xavier_uniform_(one_d, 1.0, g), TSR_ERR_INVALID_ARGUMENT, TG_OPTIM_ERR_FAN_1D);
  TSR_ASSERT_FAILS(tsr_init_kaiming_uniform_(ints, 0.0, "fan_in", "relu", g), TSR_ERR_DTYPE_MISMATCH,
                   "not implemented for 'int64'");
  TSR_ASSERT_FAILS(tsr_init_normal_(ints, 0.0, 1.0, g), TSR_ERR_DTYPE_MISMATCH, "not implemented for 'int64'");
  TSR_ASSERT_FAILS(tsr_init_uniform_(t, 1.0, 0.0, g), TSR_ERR_INVALID_ARGUMENT, "from=1 > to=0");
  TSR_ASSERT_FAILS(tsr_init_normal_(t, 0.0, 1.0, NULL), TSR_ERR_INVALID_ARGUMENT, "generator is NULL");
  /* an overlapping target: refused by the write, the generator restored */
  const int64_t s1[] = {1};
  tsr_tensor *b, *ex;
  TSR_ASSERT_OK(tsr_zeros(1, s1, TSR_FLOAT32, TSR_CPU, &b));
  const int64_t s44[] = {4, 4};
  TSR_ASSERT_OK(tsr_expand(b, 2, s44, &ex));
  TSR_ASSERT_FAILS(tsr_init_normal_(ex, 0.0, 1.0, g), TSR_ERR_INVALID_ARGUMENT, "more than one element");
  uint64_t seed, offset;
  TSR_ASSERT_OK(tsr_generator_get_state(g, &seed, &offset));
  cr_expect_eq(seed, 4);
  cr_expect_eq(offset, 0);
  double v[16];
  values(t, v);
  for (int i = 0; i < 16; ++i) cr_expect_eq(v[i], 3.0);
  cr_expect_eq(tsr_version(t), 0);
  /* zero elements: a no-op, as torch */
  const int64_t s0[] = {0, 3};
  tsr_tensor* empty;
  TSR_ASSERT_OK(tsr_zeros(2, s0, TSR_FLOAT32, TSR_CPU, &empty));
  TSR_ASSERT_OK(tsr_init_kaiming_uniform_(empty, 0.0, "fan_in", "relu", g));
  tsr_tensor* arr[] = {t, ints, one_d, b, ex, empty};
  for (int i = 0; i < 6; ++i) tsr_tensor_release(arr[i]);
  tsr_generator_release(g);
}
