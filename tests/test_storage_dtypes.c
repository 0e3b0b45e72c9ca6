/* The storage-only dtypes uint16/32/64, float8_e4m3fn and float8_e5m2:
 * creation, views, copy, to(dtype), printing, save/load, and clear errors
 * from every op that computes on them.
 *
 * Float8 has no golden values from torch here (Debian's torch 1.13 predates
 * it), so the expected bytes come from an independent reference written
 * below from the OCP FP8 definition: decode by the formula, encode by
 * searching all finite values for the nearest (ties to the even pattern),
 * with c10's overflow rules (e4m3fn: beyond the halfway point above 448 ->
 * NaN, no saturation; e5m2: beyond the halfway point above 57344 -> inf). */
#define _GNU_SOURCE /* memmem */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"

static const tsr_dtype kNew[] = {TSR_UINT16, TSR_UINT32, TSR_UINT64, TSR_FLOAT8_E4M3FN,
                                 TSR_FLOAT8_E5M2};
#define N_NEW ((int)(sizeof kNew / sizeof kNew[0]))
static const tsr_dtype kOld[] = {TSR_BOOL,    TSR_UINT8,    TSR_INT8,    TSR_INT16,  TSR_INT32,
                                 TSR_INT64,   TSR_FLOAT16,  TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};
#define N_OLD ((int)(sizeof kOld / sizeof kOld[0]))

/* ---- reference float8 ------------------------------------------------------ */

static double ref_decode(unsigned b, int e4m3) {
  const int ebits = e4m3 ? 4 : 5, mbits = 7 - ebits, bias = e4m3 ? 7 : 15;
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  const unsigned e = (b >> mbits) & ((1u << ebits) - 1), m = b & ((1u << mbits) - 1);
  if (e4m3 && (b & 0x7f) == 0x7f) return NAN;
  if (!e4m3 && e == 31) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexp((double)m, 1 - bias - mbits);
  return sign * ldexp((double)((1u << mbits) + m), (int)e - bias - mbits);
}

/* Nearest finite pattern to x (a float32 value), ties to the even pattern,
 * then c10's out-of-range rules. */
static unsigned ref_encode(float xf, int e4m3) {
  const double x = xf;
  const unsigned sign = signbit(x) ? 0x80 : 0;
  if (isnan(x)) return sign | 0x7f;
  const double ax = fabs(x);
  const double maxv = e4m3 ? 448.0 : 57344.0, next = e4m3 ? 480.0 : 65536.0;
  if (ax > (maxv + next) / 2 || (ax == (maxv + next) / 2 && !e4m3) || isinf(ax))
    return sign | (e4m3 ? 0x7f : 0x7c);
  /* (e4m3: the tie at 464 goes to 448, whose pattern 0x7E is even; e5m2:
   * the tie at 61440 goes to inf 0x7C, even, as 57344 is 0x7B.) */
  unsigned best = 0;
  double bestd = INFINITY;
  for (unsigned p = 0; p < 0x80; ++p) {
    const double v = ref_decode(p, e4m3);
    if (isnan(v) || isinf(v)) continue;
    const double d = fabs(v - ax);
    if (d < bestd || (d == bestd && (p & 1) == 0)) {
      bestd = d;
      best = p;
    }
  }
  return sign | best;
}

/* float32 values -> float8 bytes through tsr_to_dtype. */
static void encode_all(const float* xs, size_t n, tsr_dtype dt, unsigned char* out) {
  tsr_tensor *f = NULL, *e = NULL;
  TSR_ASSERT_OK(tsr_from_data(xs, n * 4, 1, (int64_t[]){(int64_t)n}, TSR_FLOAT32, &f));
  TSR_ASSERT_OK(tsr_to_dtype(f, dt, &e));
  cr_assert_eq(tsr_tensor_dtype(e), dt);
  cr_assert_eq(tsr_tensor_element_size(e), 1);
  memcpy(out, tsr_tensor_data_ptr(e), n);
  tsr_tensor_release(f);
  tsr_tensor_release(e);
}

static void check_all_patterns(tsr_dtype dt, int e4m3) {
  unsigned char bytes[256], back[256];
  for (int i = 0; i < 256; ++i) bytes[i] = (unsigned char)i;
  tsr_tensor *t = NULL, *f = NULL, *d = NULL;
  TSR_ASSERT_OK(tsr_from_data(bytes, 256, 1, (int64_t[]){256}, dt, &t));
  TSR_ASSERT_OK(tsr_to_dtype(t, TSR_FLOAT32, &f));
  TSR_ASSERT_OK(tsr_to_dtype(t, TSR_FLOAT64, &d));
  const float* fv = tsr_tensor_data_ptr(f);
  const double* dv = tsr_tensor_data_ptr(d);
  for (int i = 0; i < 256; ++i) {
    const double want = ref_decode((unsigned)i, e4m3);
    if (isnan(want)) {
      cr_assert(isnan(fv[i]) && isnan(dv[i]), "pattern 0x%02x: expected NaN", i);
      cr_assert_eq(!!signbit(fv[i]), !!(i & 0x80), "pattern 0x%02x: NaN sign", i);
    } else {
      cr_assert(fv[i] == want && !!signbit(fv[i]) == !!signbit(want),
                "pattern 0x%02x: %.9g, expected %.9g", i, fv[i], want);
      cr_assert(dv[i] == want, "pattern 0x%02x as float64: %.17g", i, dv[i]);
    }
    double g = 0;
    TSR_ASSERT_OK(tsr_get_double(t, 1, (int64_t[]){i}, &g));
    cr_assert(isnan(want) ? isnan(g) : g == want, "get_double 0x%02x", i);
  }
  /* and back: every pattern survives float32 (NaNs become the canonical one) */
  encode_all(fv, 256, dt, back);
  for (int i = 0; i < 256; ++i) {
    unsigned want = (unsigned)i;
    if (isnan(ref_decode((unsigned)i, e4m3))) want = (unsigned)(i & 0x80) | 0x7f;
    cr_assert_eq(back[i], want, "pattern 0x%02x came back as 0x%02x", i, back[i]);
  }
  tsr_tensor_release(t);
  tsr_tensor_release(f);
  tsr_tensor_release(d);
}

Test(float8, e4m3fn_all_256_patterns) { check_all_patterns(TSR_FLOAT8_E4M3FN, 1); }
Test(float8, e5m2_all_256_patterns) { check_all_patterns(TSR_FLOAT8_E5M2, 0); }

/* Inputs: every finite value, the midpoints between neighbours (the ties),
 * one float32 ulp either side of each, and the special cases. */
static size_t rounding_inputs(int e4m3, float* xs) {
  size_t n = 0;
  double vals[128];
  int nv = 0;
  for (unsigned p = 0; p < 0x80; ++p) {
    double v = ref_decode(p, e4m3);
    if (!isnan(v) && !isinf(v)) vals[nv++] = v;
  }
  vals[nv] = e4m3 ? 480.0 : 65536.0; /* the first value past the max */
  for (int i = 0; i < nv; ++i) {
    const float v = (float)vals[i], mid = (float)((vals[i] + vals[i + 1]) / 2);
    const float list[] = {v, mid, nextafterf(mid, -INFINITY), nextafterf(mid, INFINITY)};
    for (int k = 0; k < 4; ++k) {
      xs[n++] = list[k];
      xs[n++] = -list[k];
    }
  }
  const float special[] = {0.0f,      -0.0f,    INFINITY, -INFINITY, NAN, -NAN,
                           1e30f,     -1e30f,   1e-30f,   -1e-30f,   0x1p-20f,
                           500.0f,    70000.0f, 464.0f,   61440.0f,  61439.996f};
  for (size_t k = 0; k < sizeof special / sizeof special[0]; ++k) xs[n++] = special[k];
  return n;
}

static void check_rounding(tsr_dtype dt, int e4m3) {
  float xs[1200];
  unsigned char got[1200];
  const size_t n = rounding_inputs(e4m3, xs);
  encode_all(xs, n, dt, got);
  for (size_t i = 0; i < n; ++i)
    cr_assert_eq(got[i], ref_encode(xs[i], e4m3), "%s(%.9g) = 0x%02x, expected 0x%02x",
                 tsr_dtype_name(dt), xs[i], got[i], ref_encode(xs[i], e4m3));
}

Test(float8, e4m3fn_rounding_matches_reference) { check_rounding(TSR_FLOAT8_E4M3FN, 1); }
Test(float8, e5m2_rounding_matches_reference) { check_rounding(TSR_FLOAT8_E5M2, 0); }

/* A few bytes written out by hand from the OCP tables, so the reference
 * above is itself checked. */
Test(float8, hand_checked_bytes) {
  const float x[] = {1.0f,  448.0f, 464.0f, 464.00003f, 480.0f, -448.0f, 0x1p-9f, 0x1p-10f,
                     0x1.8p-10f, 0x1p-6f, INFINITY, -INFINITY, -0.0f, NAN, 0.1f};
  const unsigned char e4[] = {0x38, 0x7e, 0x7e, 0x7f, 0x7f, 0xfe, 0x01, 0x00,
                              0x01, 0x08, 0x7f, 0xff, 0x80, 0x7f, 0x1d};
  const float y[] = {1.0f,    57344.0f, 61439.996f, 61440.0f, 0x1p-16f, 0x1p-17f, 0x1.8p-17f,
                     0x1p-14f, INFINITY, -INFINITY, -0.0f,     NAN,     -2.5f};
  const unsigned char e5[] = {0x3c, 0x7b, 0x7b, 0x7c, 0x01, 0x00, 0x01,
                              0x04, 0x7c, 0xfc, 0x80, 0x7f, 0xc1};
  unsigned char got[16];
  const size_t nx = sizeof x / sizeof x[0], ny = sizeof y / sizeof y[0];
  encode_all(x, nx, TSR_FLOAT8_E4M3FN, got);
  for (size_t i = 0; i < nx; ++i) {
    cr_assert_eq(got[i], e4[i], "e4m3fn(%a) = 0x%02x, expected 0x%02x", x[i], got[i], e4[i]);
    cr_assert_eq(ref_encode(x[i], 1), e4[i], "reference e4m3fn(%a)", x[i]);
  }
  encode_all(y, ny, TSR_FLOAT8_E5M2, got);
  for (size_t i = 0; i < ny; ++i) {
    cr_assert_eq(got[i], e5[i], "e5m2(%a) = 0x%02x, expected 0x%02x", y[i], got[i], e5[i]);
    cr_assert_eq(ref_encode(y[i], 0), e5[i], "reference e5m2(%a)", y[i]);
  }
}

/* ---- conversions with every existing dtype ------------------------------------ */

static tsr_tensor* values_in(tsr_dtype dt, const double* v, int n) {
  tsr_tensor *d = NULL, *t = NULL;
  TSR_ASSERT_OK(tsr_from_data(v, (size_t)n * 8, 1, (int64_t[]){n}, TSR_FLOAT64, &d));
  TSR_ASSERT_OK(tsr_to_dtype(d, dt, &t));
  tsr_tensor_release(d);
  return t;
}

/* Values every dtype holds exactly: through new dtype N and back to old
 * dtype O, and straight from O to N, give the same numbers. */
Test(convert, new_dtypes_to_and_from_every_dtype) {
  const double v[] = {0, 1, 2, 3, 6, 12, 0, 1};
  const double vb[] = {0, 1, 1, 0, 1, 0, 0, 1};
  for (int i = 0; i < N_OLD; ++i)
    for (int j = 0; j < N_NEW; ++j) {
      const double* src = kOld[i] == TSR_BOOL ? vb : v;
      tsr_tensor* o = values_in(kOld[i], src, 8);
      tsr_tensor *n = NULL, *back = NULL;
      TSR_ASSERT_OK(tsr_to_dtype(o, kNew[j], &n));
      cr_assert_eq(tsr_tensor_dtype(n), kNew[j]);
      TSR_ASSERT_OK(tsr_to_dtype(n, kOld[i], &back));
      for (int64_t k = 0; k < 8; ++k) {
        double a = -1, b = -1;
        TSR_ASSERT_OK(tsr_get_double(n, 1, &k, &a));
        TSR_ASSERT_OK(tsr_get_double(back, 1, &k, &b));
        cr_assert_eq(a, src[k], "%s -> %s element %lld: %g", tsr_dtype_name(kOld[i]),
                     tsr_dtype_name(kNew[j]), (long long)k, a);
        cr_assert_eq(b, src[k], "%s -> %s -> back element %lld: %g", tsr_dtype_name(kOld[i]),
                     tsr_dtype_name(kNew[j]), (long long)k, b);
      }
      tsr_tensor_release(o);
      tsr_tensor_release(n);
      tsr_tensor_release(back);
    }
  /* between the new dtypes too */
  for (int i = 0; i < N_NEW; ++i)
    for (int j = 0; j < N_NEW; ++j) {
      tsr_tensor* a = values_in(kNew[i], v, 8);
      tsr_tensor* b = NULL;
      TSR_ASSERT_OK(tsr_to_dtype(a, kNew[j], &b));
      for (int64_t k = 0; k < 8; ++k) {
        double x = -1;
        TSR_ASSERT_OK(tsr_get_double(b, 1, &k, &x));
        cr_assert_eq(x, v[k], "%s -> %s", tsr_dtype_name(kNew[i]), tsr_dtype_name(kNew[j]));
      }
      tsr_tensor_release(a);
      tsr_tensor_release(b);
    }
}

/* The documented rule: float -> uint16/32/64 wraps negatives through int64
 * (as c10), saturates above the max, NaN -> 0; integer -> integer wraps. */
Test(convert, unsigned_edge_values) {
  const double x[] = {-1.0, -2.5, 3.7, NAN, 1e30, 65535.0, 4294967295.0};
  const uint16_t w16[] = {65535, 65534, 3, 0, 65535, 65535, 65535};
  const uint32_t w32[] = {4294967295u, 4294967294u, 3, 0, 4294967295u, 65535, 4294967295u};
  const uint64_t w64[] = {UINT64_MAX, UINT64_MAX - 1, 3, 0, UINT64_MAX, 65535, 4294967295u};
  tsr_tensor* d = values_in(TSR_FLOAT64, x, 7);
  tsr_tensor *a = NULL, *b = NULL, *c = NULL;
  TSR_ASSERT_OK(tsr_to_dtype(d, TSR_UINT16, &a));
  TSR_ASSERT_OK(tsr_to_dtype(d, TSR_UINT32, &b));
  TSR_ASSERT_OK(tsr_to_dtype(d, TSR_UINT64, &c));
  cr_assert_eq(memcmp(tsr_tensor_data_ptr(a), w16, sizeof w16), 0);
  cr_assert_eq(memcmp(tsr_tensor_data_ptr(b), w32, sizeof w32), 0);
  cr_assert_eq(memcmp(tsr_tensor_data_ptr(c), w64, sizeof w64), 0);
  /* uint64 max to float64 and int64 (wraps to -1, as a C cast) */
  tsr_tensor *f = NULL, *l = NULL, *i32 = NULL;
  TSR_ASSERT_OK(tsr_to_dtype(c, TSR_FLOAT64, &f));
  TSR_ASSERT_OK(tsr_to_dtype(c, TSR_INT64, &l));
  TSR_ASSERT_OK(tsr_to_dtype(b, TSR_INT32, &i32));
  cr_assert_eq(((const double*)tsr_tensor_data_ptr(f))[0], 18446744073709551615.0);
  cr_assert_eq(((const int64_t*)tsr_tensor_data_ptr(l))[0], -1);
  cr_assert_eq(((const int32_t*)tsr_tensor_data_ptr(i32))[0], -1);
  int64_t big = 0;
  TSR_ASSERT_OK(tsr_get_int64(b, 1, (int64_t[]){0}, &big));
  cr_assert_eq(big, 4294967295LL);
  TSR_ASSERT_OK(tsr_get_int64(c, 1, (int64_t[]){0}, &big));
  cr_assert_eq(big, -1, "uint64 max reads as int64 -1 (documented wrap)");
  double dbig = 0;
  TSR_ASSERT_OK(tsr_get_double(c, 1, (int64_t[]){0}, &dbig));
  cr_assert_eq(dbig, 18446744073709551615.0);
  tsr_tensor_release(d);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
  tsr_tensor_release(f);
  tsr_tensor_release(l);
  tsr_tensor_release(i32);
}

/* ---- creation, views, copy ------------------------------------------------------ */

/* Element k of the test tensor: exact in every new dtype (float8_e5m2 has
 * only two mantissa bits). */
#define VAL(k) ((double)((k) % 6) * 2)

static void noop_deleter(void* data, void* ctx) {
  (void)data;
  ++*(int*)ctx;
}

Test(create, factories_views_and_copies) {
  static const int64_t kSize[] = {2, 4, 8, 1, 1};
  for (int j = 0; j < N_NEW; ++j) {
    const tsr_dtype dt = kNew[j];
    const char* nm = tsr_dtype_name(dt);
    tsr_tensor *e = NULL, *z = NULL, *o = NULL, *f = NULL;
    TSR_ASSERT_OK(tsr_empty(2, (int64_t[]){3, 4}, dt, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &e));
    cr_assert_eq(tsr_tensor_element_size(e), kSize[j], "%s", nm);
    cr_assert_eq(tsr_tensor_nbytes(e), 12 * kSize[j], "%s", nm);
    TSR_ASSERT_OK(tsr_zeros(2, (int64_t[]){3, 4}, dt, TSR_CPU, &z));
    TSR_ASSERT_OK(tsr_ones(2, (int64_t[]){3, 4}, dt, TSR_CPU, &o));
    TSR_ASSERT_OK(tsr_full(2, (int64_t[]){3, 4}, 5.0, dt, TSR_CPU, &f));
    for (int64_t i = 0; i < 12; ++i) {
      int64_t idx[2] = {i / 4, i % 4};
      double vz, vo, vf;
      TSR_ASSERT_OK(tsr_get_double(z, 2, idx, &vz));
      TSR_ASSERT_OK(tsr_get_double(o, 2, idx, &vo));
      TSR_ASSERT_OK(tsr_get_double(f, 2, idx, &vf));
      cr_assert(vz == 0 && vo == 1 && vf == 5, "%s: %g %g %g", nm, vz, vo, vf);
    }
    /* set elements, view, transpose, narrow, expand, then copy them */
    for (int64_t i = 0; i < 12; ++i)
      TSR_ASSERT_OK(tsr_set_double(e, 2, (int64_t[]){i / 4, i % 4}, VAL(i)));
    tsr_tensor *tr = NULL, *c = NULL, *cl = NULL, *v = NULL, *nr = NULL, *ex = NULL, *exc = NULL;
    TSR_ASSERT_OK(tsr_transpose(e, 0, 1, &tr));
    TSR_ASSERT_OK(tsr_contiguous(tr, TSR_CONTIGUOUS_FORMAT, &c));
    TSR_ASSERT_OK(tsr_clone(tr, TSR_PRESERVE_FORMAT, &cl));
    TSR_ASSERT_OK(tsr_view(c, 1, (int64_t[]){12}, &v));
    TSR_ASSERT_OK(tsr_narrow(e, 1, 1, 2, &nr));
    TSR_ASSERT_OK(tsr_expand(nr, 3, (int64_t[]){2, 3, 2}, &ex));
    TSR_ASSERT_OK(tsr_contiguous(ex, TSR_CONTIGUOUS_FORMAT, &exc));
    for (int64_t i = 0; i < 12; ++i) {
      double a, b;
      TSR_ASSERT_OK(tsr_get_double(v, 1, &i, &a));
      TSR_ASSERT_OK(tsr_get_double(cl, 2, (int64_t[]){i / 3, i % 3}, &b));
      const double want = VAL((i % 3) * 4 + i / 3);
      cr_assert(a == want && b == want, "%s transposed copy %lld: %g %g", nm, (long long)i, a, b);
    }
    for (int64_t i = 0; i < 12; ++i) {
      double a;
      int64_t idx[3] = {i / 6, (i / 2) % 3, i % 2};
      TSR_ASSERT_OK(tsr_get_double(exc, 3, idx, &a));
      cr_assert_eq(a, VAL(idx[1] * 4 + 1 + idx[2]), "%s expanded copy", nm);
    }
    /* copy_ converts and broadcasts from another dtype */
    tsr_tensor* row = values_in(TSR_FLOAT32, (const double[]){2, 4, 6, 8}, 4);
    TSR_ASSERT_OK(tsr_copy_(z, row));
    for (int64_t i = 0; i < 12; ++i) {
      double a;
      TSR_ASSERT_OK(tsr_get_double(z, 2, (int64_t[]){i / 4, i % 4}, &a));
      cr_assert_eq(a, (double)(2 + 2 * (i % 4)), "%s copy_", nm);
    }
    /* from_blob over caller memory */
    uint64_t mem[4] = {0};
    int calls = 0;
    tsr_tensor* b = NULL;
    TSR_ASSERT_OK(tsr_from_blob(mem, 1, (int64_t[]){4}, NULL, dt, TSR_DEVICE_CPU, noop_deleter, &calls,
                                &b));
    TSR_ASSERT_OK(tsr_copy_(b, row));
    tsr_tensor* b32 = NULL;
    TSR_ASSERT_OK(tsr_to_dtype(b, TSR_FLOAT32, &b32));
    cr_assert_eq(((const float*)tsr_tensor_data_ptr(b32))[3], 8.0f, "%s from_blob", nm);
    /* printing */
    char* s = NULL;
    TSR_ASSERT_OK(tsr_tensor_to_string(o, NULL, &s));
    cr_assert(strstr(s, "1") != NULL, "%s: %s", nm, s);
    tsr_free_string(s);
    tsr_tensor* all[] = {e, z, o, f, tr, c, cl, v, nr, ex, exc, row, b, b32};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) tsr_tensor_release(all[k]);
    cr_assert_eq(calls, 1, "deleter ran once");
  }
}

/* c10's checked_convert rule for full(): out-of-range values refused,
 * naming the type; nothing is made. */
Test(create, full_checks_range) {
  tsr_tensor* t = (tsr_tensor*)0x1;
  TSR_ASSERT_FAILS(tsr_full(1, (int64_t[]){2}, 70000.0, TSR_UINT16, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "value cannot be converted to type uint16_t without overflow");
  TSR_ASSERT_FAILS(tsr_full(1, (int64_t[]){2}, 5e9, TSR_UINT32, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "uint32_t");
  TSR_ASSERT_FAILS(tsr_full(1, (int64_t[]){2}, 500.0, TSR_FLOAT8_E4M3FN, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "c10::Float8_e4m3fn");
  TSR_ASSERT_FAILS(tsr_full(1, (int64_t[]){2}, 60000.0, TSR_FLOAT8_E5M2, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "c10::Float8_e5m2");
  cr_assert_eq(t, (tsr_tensor*)0x1, "out untouched");
  t = NULL;
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){2}, NAN, TSR_FLOAT8_E4M3FN, TSR_CPU, &t));
  cr_assert_eq(((const unsigned char*)tsr_tensor_data_ptr(t))[0], 0x7f);
  tsr_tensor_release(t);
  TSR_ASSERT_OK(tsr_full(1, (int64_t[]){2}, 448.0, TSR_FLOAT8_E4M3FN, TSR_CPU, &t));
  cr_assert_eq(((const unsigned char*)tsr_tensor_data_ptr(t))[1], 0x7e);
  tsr_tensor_release(t);
}

/* ---- math refused ------------------------------------------------------------------ */

Test(ops, math_on_storage_only_dtypes_is_refused) {
  for (int j = 0; j < N_NEW; ++j) {
    const tsr_dtype dt = kNew[j];
    const char* nm = tsr_dtype_name(dt);
    tsr_tensor *a = NULL, *m = NULL, *f32 = NULL;
    TSR_ASSERT_OK(tsr_ones(1, (int64_t[]){4}, dt, TSR_CPU, &a));
    TSR_ASSERT_OK(tsr_ones(2, (int64_t[]){2, 2}, dt, TSR_CPU, &m));
    TSR_ASSERT_OK(tsr_ones(1, (int64_t[]){4}, TSR_FLOAT32, TSR_CPU, &f32));
    tsr_tensor* sentinel = (tsr_tensor*)0x1;
    tsr_tensor* out = sentinel;
    struct {
      const char* what;
      tsr_status st;
    } r[4];
    r[0].what = "add";
    r[0].st = tsr_add(a, a, &out);
    char msg0[512];
    snprintf(msg0, sizeof msg0, "%s", tsr_last_error_message());
    cr_assert_neq(r[0].st, TSR_OK, "add on %s", nm);
    cr_assert(strstr(msg0, nm) != NULL, "add on %s: %s", nm, msg0);
    cr_assert_eq(r[0].st, TSR_ERR_UNSUPPORTED, "add on %s: %s", nm, msg0);
    r[1].st = tsr_sum(a, 0, NULL, false, &out);
    cr_assert(r[1].st == TSR_ERR_UNSUPPORTED || r[1].st == TSR_ERR_DTYPE_MISMATCH, "sum on %s", nm);
    cr_assert(strstr(tsr_last_error_message(), nm) != NULL, "sum on %s: %s", nm,
              tsr_last_error_message());
    r[2].st = tsr_matmul(m, m, &out);
    cr_assert(r[2].st == TSR_ERR_UNSUPPORTED || r[2].st == TSR_ERR_DTYPE_MISMATCH, "matmul on %s",
              nm);
    cr_assert(strstr(tsr_last_error_message(), nm) != NULL, "matmul on %s: %s", nm,
              tsr_last_error_message());
    /* mixed with float32: PyTorch 2.x's promotion error */
    TSR_ASSERT_FAILS(tsr_add(a, f32, &out), TSR_ERR_UNSUPPORTED, "is not supported, attempted to promote");
    cr_assert(strstr(tsr_last_error_message(), nm) != NULL, "%s", tsr_last_error_message());
    cr_assert_eq(out, sentinel, "out untouched on failure (%s)", nm);
    /* the input is unchanged */
    double v = 0;
    TSR_ASSERT_OK(tsr_get_double(a, 1, (int64_t[]){3}, &v));
    cr_assert_eq(v, 1.0);
    tsr_tensor_release(a);
    tsr_tensor_release(m);
    tsr_tensor_release(f32);
  }
}

/* ---- files ------------------------------------------------------------------------------ */

Test(io, save_load_and_open_file_all_new_dtypes) {
  tsr_save_options zstd = TSR_SAVE_OPTIONS_INIT, planes = TSR_SAVE_OPTIONS_INIT;
  zstd.compression = TSR_COMPRESSION_ZSTD;
  planes.compression = TSR_COMPRESSION_ZSTD_PLANES;
  const tsr_save_options* modes[3] = {NULL, &zstd, &planes};
  tsr_tensor* ts[N_NEW];
  const char* names[N_NEW];
  const double v[] = {0, 1, 2, 3, 6, 12, 0.5, 0.25};
  for (int j = 0; j < N_NEW; ++j) {
    ts[j] = values_in(kNew[j], v, 8);
    names[j] = tsr_dtype_name(kNew[j]);
  }
  for (int mode = 0; mode < 3; ++mode) {
    char path[512];
    snprintf(path, sizeof path, "%s/storage_dtypes_%d.safetensors", TSR_TEST_TMP_DIR, mode);
    TSR_ASSERT_OK(tsr_save(path, N_NEW, names, ts, modes[mode]));
    tsr_tensor_map* m = NULL;
    TSR_ASSERT_OK(tsr_load(path, NULL, &m));
    tsr_file* f = NULL;
    TSR_ASSERT_OK(tsr_open_file(path, NULL, &f));
    for (int j = 0; j < N_NEW; ++j) {
      tsr_tensor *a = NULL, *b = NULL;
      TSR_ASSERT_OK(tsr_tensor_map_get_by_name(m, names[j], &a));
      TSR_ASSERT_OK(tsr_file_get_by_name(f, names[j], &b));
      cr_assert_eq(tsr_tensor_dtype(a), kNew[j]);
      cr_assert_eq(tsr_tensor_dtype(b), kNew[j]);
      const size_t nb = (size_t)tsr_tensor_nbytes(ts[j]);
      cr_assert_eq(memcmp(tsr_tensor_data_ptr(a), tsr_tensor_data_ptr(ts[j]), nb), 0, "%s", names[j]);
      cr_assert_eq(memcmp(tsr_tensor_data_ptr(b), tsr_tensor_data_ptr(ts[j]), nb), 0, "%s", names[j]);
      tsr_tensor_release(a);
      tsr_tensor_release(b);
    }
    tsr_file_release(f);
    tsr_tensor_map_release(m);
    /* the header names the dtypes as safetensors does */
    if (mode == 0) {
      FILE* fp = fopen(path, "rb");
      char buf[4096];
      size_t n = fread(buf, 1, sizeof buf - 1, fp);
      buf[n] = 0;
      fclose(fp);
      const char* want[] = {"\"U16\"", "\"U32\"", "\"U64\"", "\"F8_E4M3\"", "\"F8_E5M2\""};
      for (int j = 0; j < N_NEW; ++j) cr_assert(memmem(buf, n, want[j], strlen(want[j])) != NULL, "%s", want[j]);
    }
    unlink(path);
  }
  for (int j = 0; j < N_NEW; ++j) tsr_tensor_release(ts[j]);
}
