/* Replays a golden program (tests/golden/opsprog.py) through the C API.
 *
 * A program is a few input tensors and a list of steps; step k applies one
 * tessera op to earlier registers and stores its result in register
 * ninputs + k. PyTorch ran the same program to produce the expected result,
 * the grad_fn name of every step and the gradients, so the C side only has to
 * map each op code to the tsr_ call of the same name. */
#ifndef TSR_TESTS_OPS_PROGRAM_H
#define TSR_TESTS_OPS_PROGRAM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"
#include <criterion/parameterized.h>

#define TG_MAXDIM 6
#define TG_MAXIN 6
#define TG_MAXSTEP 16
#define TG_MAXARGS 16

typedef enum tg_op {
  TG_ADD, TG_SUB, TG_MUL, TG_DIV, TG_MUL_SCALAR, TG_ADD_SCALAR, TG_NEG, TG_RELU, TG_EXP,
  TG_LOG, TG_MATMUL, TG_SUM, TG_MEAN, TG_MAX_DIM_VALUES, TG_MAX_DIM_INDICES, TG_ARGMAX, TG_MAX,
  TG_LOG_SOFTMAX, TG_CROSS_ENTROPY, TG_TRANSPOSE, TG_T, TG_PERMUTE, TG_NARROW, TG_SLICE,
  TG_SELECT, TG_EXPAND, TG_SQUEEZE, TG_SQUEEZE_DIM, TG_UNSQUEEZE, TG_VIEW, TG_RESHAPE,
  TG_FLATTEN, TG_AS_STRIDED, TG_UNFOLD, TG_DIAGONAL, TG_CLONE, TG_CONTIGUOUS, TG_TO_DTYPE,
  /* torch.nn.functional-style ops (tests/golden/gen_nn.py) */
  TG_LINEAR, TG_GELU, TG_TANH, TG_SIGMOID, TG_SQRT, TG_SOFTMAX, TG_LAYER_NORM,
  TG_CAT, TG_STACK, TG_WHERE, TG_POW_SCALAR, TG_POW, TG_CLAMP,
  TG_INDEX_SELECT, TG_GATHER, TG_EMBEDDING,
  /* convolutional layers (tests/golden/gen_cnn.py) */
  TG_CONV2D, TG_MAX_POOL2D, TG_MAX_POOL2D_INDICES, TG_AVG_POOL2D, TG_ADAPTIVE_AVG_POOL2D, TG_BATCH_NORM,
  /* scans and products (tests/golden/gen_reductions_more.py) */
  TG_CUMSUM, TG_CUMPROD, TG_PROD, TG_PROD_DIM,
  TG_VAR, TG_STD, TG_VAR_MEAN_VAR, TG_VAR_MEAN_MEAN, TG_STD_MEAN_STD, TG_STD_MEAN_MEAN, TG_LOGSUMEXP, TG_ANY, TG_ALL, TG_ANY_DIM, TG_ALL_DIM,
  TG_MIN, TG_MIN_DIM_VALUES, TG_MIN_DIM_INDICES, TG_ARGMIN,
  /* pointwise math (tests/golden/gen_pointwise.py) */
  TG_SILU, TG_LEAKY_RELU, TG_ELU, TG_SOFTPLUS, TG_HARDTANH, TG_SIN, TG_COS, TG_RSQRT,
  TG_RECIPROCAL, TG_FLOOR, TG_CEIL, TG_ROUND, TG_TRUNC, TG_SIGN, TG_CLAMP_TENSOR, TG_BMM, TG_OUTER, TG_BADDBMM,
  /* losses with the mean reduction (tests/golden/gen_autocast.py) */
  TG_MSE_LOSS, TG_L1_LOSS, TG_NLL_LOSS
} tg_op;

/* x = base.as_strided(sizes, strides, offset), base a 1-D contiguous tensor
 * of dtype holding storage[0..storage_numel). */
typedef struct {
  tsr_dtype dtype;
  int64_t ndim;
  int64_t sizes[TG_MAXDIM];
  int64_t strides[TG_MAXDIM];
  int64_t offset;
  int64_t storage_numel;
  const double* storage;
  bool requires_grad;
} tg_input;

/* A tensor torch produced: values in C order, converted to double. */
typedef struct {
  tsr_dtype dtype;
  int64_t ndim;
  int64_t sizes[TG_MAXDIM];
  int64_t strides[TG_MAXDIM];
  int64_t numel;
  const double* values; /* NULL: no tensor (an input without .grad) */
} tg_value;

typedef struct {
  tg_op op;
  int a, b; /* registers; -1 when unused */
  int64_t nargs;
  int64_t args[TG_MAXARGS];
  double scalar;
  bool keepdim;
  /* What torch says about the result: */
  const char* grad_fn; /* type(y.grad_fn).__name__, NULL when None */
  bool requires_grad;
  bool is_leaf;
} tg_step;

typedef struct {
  const char* name;
  int ninputs;
  tg_input inputs[TG_MAXIN];
  int nsteps;
  tg_step steps[TG_MAXSTEP];
  tg_value out;
  bool check_strides;
  double rtol, atol;
  /* Autograd cases: the gradient given to backward (out's sizes, C order),
   * NULL for a 0-dim result (implicit 1); grads[k] is input k's .grad. */
  const double* grad_out;
  tg_value grads[TG_MAXIN];
} tg_case;

#define TG_REGS (TG_MAXIN + TG_MAXSTEP)

/* A parameterized test over the cases of a golden table. Criterion hands
 * parameters to the test process by value (BoxFort re-executes the binary,
 * so the tables' addresses differ there), hence indices, not case pointers.
 * The body sees `c`, the case. */
#define TG_PARAMETERIZED(suite, name, table, count)                     \
  ParameterizedTestParameters(suite, name) {                            \
    static size_t idx[count];                                           \
    for (size_t i = 0; i < (count); ++i) idx[i] = i;                    \
    return cr_make_param_array(size_t, idx, (count));                   \
  }                                                                     \
  static void suite##_##name##_body(const tg_case* c);                  \
  ParameterizedTest(const size_t* i, suite, name) { suite##_##name##_body(&(table)[*i]); } \
  static void suite##_##name##_body(const tg_case* c)

/* Registers of one run. bases hold the inputs' storages. */
typedef struct {
  tsr_tensor* bases[TG_MAXIN];
  tsr_tensor* regs[TG_REGS];
  int nregs;
} tg_run;

static inline tsr_tensor* tg_from_doubles(const double* v, int64_t n, tsr_dtype dtype) {
  tsr_tensor *f64, *t;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &f64));
  TSR_ASSERT_OK(tsr_to_dtype(f64, dtype, &t));
  tsr_tensor_release(f64);
  return t;
}

static inline void tg_make_input(const tg_input* in, tsr_tensor** base, tsr_tensor** x) {
  *base = tg_from_doubles(in->storage, in->storage_numel, in->dtype);
  TSR_ASSERT_OK(tsr_as_strided(*base, in->ndim, in->sizes, in->strides, in->offset, x));
  if (in->requires_grad) TSR_ASSERT_OK(tsr_set_requires_grad(*x, true));
}

/* Applies one step; returns its status (the result in *out on TSR_OK). */
/* args[i] holding the bits of a double (pointwise parameters). */
static inline double tg_arg_double(const int64_t* args, int i) {
  double v;
  memcpy(&v, &args[i], sizeof v);
  return v;
}

static inline tsr_status tg_apply(tsr_tensor* const* r, const tg_step* s, tsr_tensor** out) {
  const tsr_tensor* a = r[s->a];
  const tsr_tensor* b = s->b >= 0 ? r[s->b] : NULL;
  const int64_t* g = s->args;
  switch (s->op) {
    case TG_ADD: return tsr_add(a, b, out);
    case TG_SUB: return tsr_sub(a, b, out);
    case TG_MUL: return tsr_mul(a, b, out);
    case TG_DIV: return tsr_div(a, b, out);
    case TG_MUL_SCALAR: return tsr_mul_scalar(a, s->scalar, out);
    case TG_ADD_SCALAR: return tsr_add_scalar(a, s->scalar, out);
    case TG_NEG: return tsr_neg(a, out);
    case TG_RELU: return tsr_relu(a, out);
    case TG_EXP: return tsr_exp(a, out);
    case TG_LOG: return tsr_log(a, out);
    case TG_MATMUL: return tsr_matmul(a, b, out);
    case TG_SUM: return tsr_sum(a, s->nargs, g, s->keepdim, out);
    case TG_MEAN: return tsr_mean(a, s->nargs, g, s->keepdim, out);
    case TG_MAX_DIM_VALUES: return tsr_max_dim(a, g[0], s->keepdim, out, NULL);
    case TG_MAX_DIM_INDICES: return tsr_max_dim(a, g[0], s->keepdim, NULL, out);
    case TG_ARGMAX: return tsr_argmax(a, g[0], s->keepdim, out);
    case TG_MAX: return tsr_max(a, out);
    case TG_LOG_SOFTMAX: return tsr_log_softmax(a, g[0], out);
    case TG_CROSS_ENTROPY: return tsr_cross_entropy(a, b, out);
    case TG_TRANSPOSE: return tsr_transpose(a, g[0], g[1], out);
    case TG_T: return tsr_t(a, out);
    case TG_PERMUTE: return tsr_permute(a, s->nargs, g, out);
    case TG_NARROW: return tsr_narrow(a, g[0], g[1], g[2], out);
    case TG_SLICE: return tsr_slice(a, g[0], g[1], g[2], g[3], out);
    case TG_SELECT: return tsr_select(a, g[0], g[1], out);
    case TG_EXPAND: return tsr_expand(a, s->nargs, g, out);
    case TG_SQUEEZE: return tsr_squeeze(a, out);
    case TG_SQUEEZE_DIM: return tsr_squeeze_dim(a, g[0], out);
    case TG_UNSQUEEZE: return tsr_unsqueeze(a, g[0], out);
    case TG_VIEW: return tsr_view(a, s->nargs, g, out);
    case TG_RESHAPE: return tsr_reshape(a, s->nargs, g, out);
    case TG_FLATTEN: return tsr_flatten(a, g[0], g[1], out);
    case TG_AS_STRIDED: return tsr_as_strided(a, g[0], g + 1, g + 1 + g[0], g[1 + 2 * g[0]], out);
    case TG_UNFOLD: return tsr_unfold(a, g[0], g[1], g[2], out);
    case TG_DIAGONAL: return tsr_diagonal(a, g[0], g[1], g[2], out);
    case TG_CLONE: return tsr_clone(a, (tsr_memory_format)g[0], out);
    case TG_CONTIGUOUS: return tsr_contiguous(a, (tsr_memory_format)g[0], out);
    case TG_TO_DTYPE: return tsr_to_dtype(a, (tsr_dtype)g[0], out);
    /* Extra tensor operands are registers in args (-1: none). */
    case TG_LINEAR: return tsr_linear(a, b, s->nargs && g[0] >= 0 ? r[g[0]] : NULL, out);
    case TG_GELU: return tsr_gelu(a, s->nargs && g[0] ? TSR_GELU_TANH : TSR_GELU_NONE, out);
    case TG_TANH: return tsr_tanh(a, out);
    case TG_SIGMOID: return tsr_sigmoid(a, out);
    case TG_SQRT: return tsr_sqrt(a, out);
    case TG_SOFTMAX: return tsr_softmax(a, g[0], out);
    case TG_LAYER_NORM: /* args: n, shape[n], weight register, bias register */
      return tsr_layer_norm(a, g[0], g + 1, g[1 + g[0]] >= 0 ? r[g[1 + g[0]]] : NULL,
                            g[2 + g[0]] >= 0 ? r[g[2 + g[0]]] : NULL, s->scalar, out);
    case TG_CAT:
    case TG_STACK: { /* args: dim, n, registers[n] */
      const tsr_tensor* list[TG_MAXARGS];
      for (int64_t k = 0; k < g[1]; ++k) list[k] = r[g[2 + k]];
      return s->op == TG_CAT ? tsr_cat(g[1], list, g[0], out) : tsr_stack(g[1], list, g[0], out);
    }
    case TG_WHERE: return tsr_where(a, b, r[g[0]], out); /* args: register of the "else" tensor */
    case TG_POW_SCALAR: return tsr_pow_scalar(a, s->scalar, out);
    case TG_POW: return tsr_pow(a, b, out);
    case TG_CLAMP: { /* args: has_min, has_max, bits of min, bits of max */
      double lo, hi;
      memcpy(&lo, &g[2], sizeof lo);
      memcpy(&hi, &g[3], sizeof hi);
      return tsr_clamp(a, g[0] ? &lo : NULL, g[1] ? &hi : NULL, out);
    }
    /* pointwise math; args: the bits of each double parameter */
    case TG_SILU: return tsr_silu(a, out);
    case TG_LEAKY_RELU: return tsr_leaky_relu(a, tg_arg_double(g, 0), out);
    case TG_ELU: return tsr_elu(a, tg_arg_double(g, 0), out);
    case TG_SOFTPLUS: return tsr_softplus(a, tg_arg_double(g, 0), tg_arg_double(g, 1), out);
    case TG_HARDTANH: return tsr_hardtanh(a, tg_arg_double(g, 0), tg_arg_double(g, 1), out);
    case TG_SIN: return tsr_sin(a, out);
    case TG_COS: return tsr_cos(a, out);
    case TG_RSQRT: return tsr_rsqrt(a, out);
    case TG_RECIPROCAL: return tsr_reciprocal(a, out);
    case TG_FLOOR: return tsr_floor(a, out);
    case TG_CEIL: return tsr_ceil(a, out);
    case TG_ROUND: return tsr_round(a, out);
    case TG_TRUNC: return tsr_trunc(a, out);
    case TG_SIGN: return tsr_sign(a, out);
    /* args: min, max registers (-1: None) */
    case TG_BMM: return tsr_bmm(a, b, out);
    case TG_OUTER: return tsr_outer(a, b, out);
    case TG_MSE_LOSS: return tsr_mse_loss(a, b, TSR_REDUCTION_MEAN, out);
    case TG_L1_LOSS: return tsr_l1_loss(a, b, TSR_REDUCTION_MEAN, out);
    case TG_NLL_LOSS: return tsr_nll_loss(a, b, NULL, TSR_REDUCTION_MEAN, -100, out);
    /* args: batch2 register, bits of beta, bits of alpha */
    case TG_BADDBMM: return tsr_baddbmm(a, b, r[g[0]], tg_arg_double(g, 1), tg_arg_double(g, 2), out);
    case TG_CLAMP_TENSOR: return tsr_clamp_tensor(a, g[0] >= 0 ? r[g[0]] : NULL, g[1] >= 0 ? r[g[1]] : NULL, out);
    case TG_INDEX_SELECT: return tsr_index_select(a, g[0], b, out);
    case TG_GATHER: return tsr_gather(a, g[0], b, out);
    case TG_EMBEDDING: return tsr_embedding(a, b, out); /* a: weight, b: indices */
    /* args: bias register, stride[2], padding[2], dilation[2], groups */
    case TG_CONV2D: return tsr_conv2d(a, b, g[0] >= 0 ? r[g[0]] : NULL, g + 1, g + 3, g + 5, g[7], out);
    /* args: kernel[2], has_stride, stride[2], padding[2], dilation[2], ceil_mode */
    case TG_MAX_POOL2D:
      return tsr_max_pool2d(a, g, g[2] ? g + 3 : NULL, g + 5, g + 7, g[9] != 0, out, NULL);
    case TG_MAX_POOL2D_INDICES: {
      tsr_tensor* values = NULL;
      tsr_status st = tsr_max_pool2d(a, g, g[2] ? g + 3 : NULL, g + 5, g + 7, g[9] != 0, &values, out);
      tsr_tensor_release(values);
      return st;
    }
    /* args: kernel[2], has_stride, stride[2], padding[2], ceil_mode, count_include_pad */
    case TG_AVG_POOL2D: return tsr_avg_pool2d(a, g, g[2] ? g + 3 : NULL, g + 5, g[7] != 0, g[8] != 0, out);
    case TG_ADAPTIVE_AVG_POOL2D: return tsr_adaptive_avg_pool2d(a, g, out); /* args: output_size[2] */
    case TG_BATCH_NORM: { /* args: running_mean, running_var, weight, bias (registers), training,
                             bits of momentum; eps in scalar. Running stats are copies, as the
                             generator's. */
      double momentum;
      memcpy(&momentum, &g[5], sizeof momentum);
      tsr_tensor *rm = NULL, *rv = NULL;
      if (g[0] >= 0) TSR_ASSERT_OK(tsr_clone(r[g[0]], TSR_CONTIGUOUS_FORMAT, &rm));
      if (g[1] >= 0) TSR_ASSERT_OK(tsr_clone(r[g[1]], TSR_CONTIGUOUS_FORMAT, &rv));
      tsr_status st = tsr_batch_norm(a, rm, rv, g[2] >= 0 ? r[g[2]] : NULL, g[3] >= 0 ? r[g[3]] : NULL,
                                     g[4] != 0, momentum, s->scalar, out);
      tsr_tensor_release(rm);
      tsr_tensor_release(rv);
      return st;
    }
    /* scans and products; dtype codes: -1 for none (torch's default). */
    case TG_CUMSUM:
    case TG_CUMPROD:
    case TG_PROD:
    case TG_PROD_DIM: {
      const int64_t code = s->op == TG_PROD ? g[0] : g[1];
      const tsr_dtype d = (tsr_dtype)code, *dp = code >= 0 ? &d : NULL;
      if (s->op == TG_CUMSUM) return tsr_cumsum(a, g[0], dp, out);
      if (s->op == TG_CUMPROD) return tsr_cumprod(a, g[0], dp, out);
      if (s->op == TG_PROD) return tsr_prod(a, dp, out);
      return tsr_prod_dim(a, g[0], s->keepdim, dp, out);
    }
    /* var/std family: args = correction, dims... */
    case TG_LOGSUMEXP: return tsr_logsumexp(a, s->nargs, g, s->keepdim, out);
    case TG_ANY: return tsr_any(a, out);
    case TG_ALL: return tsr_all(a, out);
    case TG_ANY_DIM: return tsr_any_dim(a, g[0], s->keepdim, out);
    case TG_ALL_DIM: return tsr_all_dim(a, g[0], s->keepdim, out);
    case TG_MIN: return tsr_min(a, out);
    case TG_MIN_DIM_VALUES: return tsr_min_dim(a, g[0], s->keepdim, out, NULL);
    case TG_MIN_DIM_INDICES: return tsr_min_dim(a, g[0], s->keepdim, NULL, out);
    case TG_ARGMIN: return tsr_argmin(a, g[0], s->keepdim, out);
    case TG_VAR: return tsr_var(a, s->nargs - 1, g + 1, g[0], s->keepdim, out);
    case TG_STD: return tsr_std(a, s->nargs - 1, g + 1, g[0], s->keepdim, out);
    case TG_VAR_MEAN_VAR:
    case TG_VAR_MEAN_MEAN:
    case TG_STD_MEAN_STD:
    case TG_STD_MEAN_MEAN: {
      tsr_tensor *first = NULL, *mean = NULL;
      const bool is_std = s->op == TG_STD_MEAN_STD || s->op == TG_STD_MEAN_MEAN;
      tsr_status st = is_std ? tsr_std_mean(a, s->nargs - 1, g + 1, g[0], s->keepdim, &first, &mean)
                             : tsr_var_mean(a, s->nargs - 1, g + 1, g[0], s->keepdim, &first, &mean);
      if (st != TSR_OK) return st;
      const bool want_mean = s->op == TG_VAR_MEAN_MEAN || s->op == TG_STD_MEAN_MEAN;
      *out = want_mean ? mean : first;
      tsr_tensor_release(want_mean ? first : mean);
      return TSR_OK;
    }
  }
  cr_assert_fail("unknown golden op %d", (int)s->op);
  return TSR_ERR_INTERNAL;
}

/* Builds the inputs and runs every step, checking each step's autograd
 * metadata against torch's. */
static inline void tg_run_program(const tg_case* c, tg_run* run) {
  for (int k = 0; k < c->ninputs; ++k) tg_make_input(&c->inputs[k], &run->bases[k], &run->regs[k]);
  run->nregs = c->ninputs;
  for (int k = 0; k < c->nsteps; ++k) {
    const tg_step* s = &c->steps[k];
    tsr_tensor* y = NULL;
    tsr_status st = tg_apply(run->regs, s, &y);
    cr_assert_eq(st, TSR_OK, "%s: step %d (op %d) failed: %s: %s", c->name, k, (int)s->op,
                 tsr_status_name(st), tsr_last_error_message());
    run->regs[run->nregs++] = y;
    const char* name = tsr_grad_fn_name(y);
    if (s->grad_fn)
      cr_expect(name && strcmp(name, s->grad_fn) == 0, "%s: step %d grad_fn %s, torch says %s",
                c->name, k, name ? name : "NULL", s->grad_fn);
    else
      cr_expect(name == NULL, "%s: step %d grad_fn %s, torch says None", c->name, k, name);
    cr_expect_eq(tsr_requires_grad(y), s->requires_grad, "%s: step %d requires_grad %d", c->name,
                 k, tsr_requires_grad(y));
    cr_expect_eq(tsr_is_leaf(y), s->is_leaf, "%s: step %d is_leaf %d", c->name, k,
                 tsr_is_leaf(y));
  }
}

static inline void tg_release(tg_run* run, int ninputs) {
  for (int k = 0; k < run->nregs; ++k) tsr_tensor_release(run->regs[k]);
  for (int k = 0; k < ninputs; ++k) tsr_tensor_release(run->bases[k]);
}

static inline bool tg_close(double got, double want, double rtol, double atol) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Elements of t in C order as doubles (caller frees). */
static inline double* tg_values(const tsr_tensor* t) {
  bool prev = tsr_set_grad_enabled(false);
  tsr_tensor* f64;
  TSR_ASSERT_OK(tsr_to_dtype(t, TSR_FLOAT64, &f64));
  tsr_set_grad_enabled(prev);
  int64_t n = tsr_tensor_numel(t);
  double* v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  cr_assert(v);
  size_t needed = 0;
  TSR_ASSERT_OK(tsr_copy_to_buffer(f64, v, (size_t)n * sizeof(double), &needed));
  tsr_tensor_release(f64);
  return v;
}

/* Compares dtype, sizes, (strides) and values of t with torch's. */
static inline void tg_check_value(const tsr_tensor* t, const tg_value* want, bool strides,
                                  double rtol, double atol, const char* name, const char* what) {
  cr_assert(t != NULL, "%s: %s is NULL", name, what);
  cr_expect_eq(tsr_tensor_dtype(t), want->dtype, "%s: %s dtype %s, torch says %s", name, what,
               tsr_dtype_name(tsr_tensor_dtype(t)), tsr_dtype_name(want->dtype));
  cr_assert_eq(tsr_tensor_ndim(t), want->ndim, "%s: %s ndim %lld, torch says %lld", name, what,
               (long long)tsr_tensor_ndim(t), (long long)want->ndim);
  for (int64_t i = 0; i < want->ndim; ++i) {
    cr_assert_eq(tsr_tensor_sizes(t)[i], want->sizes[i], "%s: %s size[%lld] = %lld, torch %lld",
                 name, what, (long long)i, (long long)tsr_tensor_sizes(t)[i],
                 (long long)want->sizes[i]);
    if (strides)
      cr_expect_eq(tsr_tensor_strides(t)[i], want->strides[i],
                   "%s: %s stride[%lld] = %lld, torch %lld", name, what, (long long)i,
                   (long long)tsr_tensor_strides(t)[i], (long long)want->strides[i]);
  }
  double* v = tg_values(t);
  int bad = 0;
  for (int64_t i = 0; i < want->numel && bad < 5; ++i)
    if (!tg_close(v[i], want->values[i], rtol, atol)) {
      cr_expect_fail("%s: %s[%lld] = %.17g, torch says %.17g", name, what, (long long)i, v[i],
                     want->values[i]);
      ++bad;
    }
  free(v);
}

/* The forward check: replay, then compare the result with torch's. */
static inline void tg_check_forward(const tg_case* c) {
  tg_run run;
  tg_run_program(c, &run);
  tg_check_value(run.regs[run.nregs - 1], &c->out, c->check_strides, c->rtol, c->atol, c->name,
                 "result");
  tg_release(&run, c->ninputs);
}

/* The gradient check: replay, backward (torch's gradient, or the implicit 1
 * for a 0-dim result), then compare every input's .grad with torch's. */
static inline void tg_check_backward(const tg_case* c) {
  tg_run run;
  tg_run_program(c, &run);
  tsr_tensor* out = run.regs[run.nregs - 1];
  tg_check_value(out, &c->out, c->check_strides, c->rtol, c->atol, c->name, "result");
  tsr_tensor* gout = NULL;
  if (c->grad_out) {
    tsr_tensor* flat = tg_from_doubles(c->grad_out, c->out.numel, c->out.dtype);
    TSR_ASSERT_OK(tsr_reshape(flat, c->out.ndim, c->out.sizes, &gout));
    tsr_tensor_release(flat);
  }
  tsr_status st = tsr_backward(out, gout, false);
  cr_assert_eq(st, TSR_OK, "%s: backward failed: %s: %s", c->name, tsr_status_name(st),
               tsr_last_error_message());
  for (int k = 0; k < c->ninputs; ++k) {
    tsr_tensor* g = (tsr_tensor*)(uintptr_t)1;
    TSR_ASSERT_OK(tsr_grad(run.regs[k], &g));
    char what[32];
    snprintf(what, sizeof what, "grad of input %d", k);
    if (c->grads[k].values) {
      tg_check_value(g, &c->grads[k], c->check_strides, c->rtol, c->atol, c->name, what);
    } else {
      cr_expect_null(g, "%s: %s exists, torch has None", c->name, what);
    }
    tsr_tensor_release(g);
  }
  tsr_tensor_release(gout);
  tg_release(&run, c->ninputs);
}

#endif
