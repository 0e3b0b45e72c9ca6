/* The elementwise ops whose integer, bool, comparison, where and pow loops
 * are vectorized (src/cpu/kernels/{integer,mask,pow}_simd.cpp) against
 * PyTorch 1.13 bit for bit (golden/elementwise_simd_golden.h, from
 * golden/gen_elementwise_simd.py): rows of 37 elements (a tail past every
 * vector length), operands contiguous, transposed, every other column and
 * broadcast, every dtype each op takes, wrapping extremes, NaN, -0.0 and
 * infinities; pow's SLEEF body and scalar tail on a long row. */
#include "helpers.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden/elementwise_simd_golden.h"

static uint8_t* unhex(const char* hex, size_t* n) {
  *n = strlen(hex) / 2;
  uint8_t* out = malloc(*n ? *n : 1);
  cr_assert(out);
  for (size_t i = 0; i < *n; ++i) {
    unsigned v;
    cr_assert_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
    out[i] = (uint8_t)v;
  }
  return out;
}

/* The operand as the case lays it out: its base tensor, then a transposed
 * or every-other-column view of it. */
static tsr_tensor* operand(const esimd_operand* o) {
  size_t n;
  uint8_t* bytes = unhex(o->hex, &n);
  tsr_tensor *base = NULL, *v = NULL;
  TSR_ASSERT_OK(tsr_from_data(bytes, n, o->ndim, o->sizes, o->dtype, &base));
  free(bytes);
  if (o->layout == 0) return base;
  if (o->layout == 1) TSR_ASSERT_OK(tsr_transpose(base, 0, 1, &v));
  else TSR_ASSERT_OK(tsr_slice(base, 1, 0, o->sizes[1], 2, &v));
  tsr_tensor_release(base);
  return v;
}

typedef tsr_status (*binary_fn)(const tsr_tensor*, const tsr_tensor*, tsr_tensor**);

static binary_fn binary_by_name(const char* op) {
  static const struct {
    const char* name;
    binary_fn fn;
  } fns[] = {{"add", tsr_add}, {"sub", tsr_sub}, {"mul", tsr_mul}, {"pow", tsr_pow}, {"eq", tsr_eq},
             {"ne", tsr_ne},   {"lt", tsr_lt},   {"le", tsr_le},   {"gt", tsr_gt},  {"ge", tsr_ge}};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; ++i)
    if (strcmp(fns[i].name, op) == 0) return fns[i].fn;
  return NULL;
}

Test(elementwise_simd, matches_torch_bit_for_bit) {
  for (size_t i = 0; i < N_ESIMD_CASES; ++i) {
    const esimd_case* c = &esimd_cases[i];
    tsr_tensor *a = operand(&c->a), *b = NULL, *w = NULL, *r = NULL;
    if (strcmp(c->op, "neg") == 0) {
      TSR_ASSERT_OK(tsr_neg(a, &r));
    } else if (strcmp(c->op, "relu") == 0) {
      TSR_ASSERT_OK(tsr_relu(a, &r));
    } else if (strcmp(c->op, "pow_scalar") == 0) {
      TSR_ASSERT_OK(tsr_pow_scalar(a, c->exponent, &r));
    } else if (strcmp(c->op, "where") == 0) {
      b = operand(&c->b);
      w = operand(&c->c);
      TSR_ASSERT_OK(tsr_where(a, b, w, &r));
    } else {
      b = operand(&c->b);
      binary_fn fn = binary_by_name(c->op);
      cr_assert(fn, "unknown op %s", c->op);
      TSR_ASSERT_OK(fn(a, b, &r));
    }
    cr_assert_eq(tsr_tensor_dtype(r), c->dtype, "case %zu (%s)", i, c->op);
    cr_assert_eq(tsr_tensor_ndim(r), c->ndim, "case %zu (%s)", i, c->op);
    for (int64_t d = 0; d < c->ndim; ++d)
      cr_assert_eq(tsr_tensor_sizes(r)[d], c->sizes[d], "case %zu (%s) size %ld", i, c->op, (long)d);
    size_t n;
    uint8_t* want = unhex(c->hex, &n);
    uint8_t* got = malloc(n ? n : 1);
    size_t needed = 0;
    TSR_ASSERT_OK(tsr_copy_to_buffer(r, got, n, &needed));
    cr_assert_eq(needed, n, "case %zu (%s)", i, c->op);
    const size_t es = n / (size_t)tsr_tensor_numel(r);
    for (size_t k = 0; k < n; ++k)
      cr_assert_eq(got[k], want[k], "case %zu (%s, %s, layouts %d/%d): element %zu differs from torch's", i,
                   c->op, tsr_dtype_name(c->a.dtype), c->a.layout, c->b.layout, k / es);
    free(got);
    free(want);
    tsr_tensor_release(r);
    if (w) tsr_tensor_release(w);
    if (b) tsr_tensor_release(b);
    tsr_tensor_release(a);
  }
}

/* x[i] for the in-place tests: magnitudes from 1e-3 to 1e3, both signs,
 * with NaN, infinities and -0.0 among them. */
static double inplace_value(int64_t i) {
  if (i % 97 == 5) return NAN;
  if (i % 89 == 7) return i % 2 ? INFINITY : -INFINITY;
  if (i % 83 == 3) return -0.0;
  const int64_t h = (i * 7919) % 10007;
  return (h % 2 ? -1.0 : 1.0) * (double)h / 1009.0 * pow(10.0, (double)(h % 7) - 3.0);
}

/* A [n] tensor of dtype d with inplace_value(i + shift), dense, or (when
 * strided) the column 0 of a [n, 2] one: every other element, which
 * add_into / scale_inplace run through their scalar loops. */
static tsr_tensor* inplace_operand(tsr_dtype d, int64_t n, int64_t shift, bool strided) {
  double* v = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; ++i) v[i] = inplace_value(i + shift);
  tsr_tensor *f64, *dense, *out;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &f64));
  free(v);
  TSR_ASSERT_OK(tsr_to_dtype(f64, d, &dense));
  tsr_tensor_release(f64);
  if (!strided) return dense;
  const int64_t s2[] = {n, 2};
  tsr_tensor* wide;
  TSR_ASSERT_OK(tsr_zeros(2, s2, d, TSR_CPU, &wide));
  TSR_ASSERT_OK(tsr_select(wide, 1, 0, &out));
  TSR_ASSERT_OK(tsr_copy_(out, dense));
  tsr_tensor_release(wide);
  tsr_tensor_release(dense);
  return out;
}

/* a and b hold the same bits, element by element, except that a NaN
 * matches any NaN: which NaN an operation on two NaNs (or an invalid
 * operation on a NaN) returns depends on the order of the instruction's
 * operands, which the compiler picks; torch's loops differ the same way. */
static void expect_same_bits(const tsr_tensor* a, const tsr_tensor* b, const char* what, tsr_dtype d) {
  const int64_t n = tsr_tensor_numel(a);
  double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
  const tsr_tensor* in[] = {a, b};
  double* out[] = {x, y};
  for (int k = 0; k < 2; ++k) { /* every value of the four dtypes is exact in float64 */
    tsr_tensor* f64;
    TSR_ASSERT_OK(tsr_to_dtype(in[k], TSR_FLOAT64, &f64));
    TSR_ASSERT_OK(tsr_copy_to_buffer(f64, out[k], (size_t)n * sizeof(double), NULL));
    tsr_tensor_release(f64);
  }
  for (int64_t i = 0; i < n; ++i)
    if (!(isnan(x[i]) && isnan(y[i])) && memcmp(&x[i], &y[i], sizeof(double)) != 0) {
      cr_expect(false, "%s, %s: element %ld of the dense (vectorized) run is %a, the strided one %a", what,
                tsr_dtype_name(d), (long)i, x[i], y[i]);
      break;
    }
  free(x);
  free(y);
}

/* The optimizers' p.add_(g, alpha=a) and p.mul_(s): dense runs go through
 * the SIMD loops (elementwise_simd.h add_scaled / binary_scalar), strided
 * ones through the scalar loops; both give the same bits (product rounded,
 * then the sum: never one fma), for every floating dtype, over more than one
 * 1024-element chunk and a tail. */
Test(elementwise_simd, add_alpha_and_mul_scalar_in_place_match_the_scalar_loops) {
  const tsr_dtype dts[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16};
  const double alphas[] = {0.1, -0.75, 1e-3, 0.0};
  const int64_t n = 2 * 1024 + 37;
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k)
    for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; ++a) {
      tsr_tensor* p[2];
      tsr_tensor* g[2];
      for (int s = 0; s < 2; ++s) {
        p[s] = inplace_operand(dts[k], n, 0, s == 1);
        g[s] = inplace_operand(dts[k], n, 11, s == 1);
        TSR_ASSERT_OK(tsr_add_(p[s], g[s], alphas[a]));
      }
      expect_same_bits(p[0], p[1], "add_(alpha)", dts[k]);
      for (int s = 0; s < 2; ++s) TSR_ASSERT_OK(tsr_mul_scalar_(p[s], 1 - alphas[a] * 3));
      expect_same_bits(p[0], p[1], "mul_(scalar)", dts[k]);
      for (int s = 0; s < 2; ++s) {
        tsr_tensor_release(p[s]);
        tsr_tensor_release(g[s]);
      }
    }
}
