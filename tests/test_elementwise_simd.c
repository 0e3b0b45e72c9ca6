/* The elementwise ops whose integer, bool, comparison, where and pow loops
 * are vectorized (src/cpu/kernels/{integer,mask,pow}_simd.cpp) against
 * PyTorch 1.13 bit for bit (golden/elementwise_simd_golden.h, from
 * golden/gen_elementwise_simd.py): rows of 37 elements (a tail past every
 * vector length), operands contiguous, transposed, every other column and
 * broadcast, every dtype each op takes, wrapping extremes, NaN, -0.0 and
 * infinities; pow's SLEEF body and scalar tail on a long row. */
#include "helpers.h"

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
