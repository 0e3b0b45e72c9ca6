/* Factories: empty (every memory format), empty_strided, zeros/ones/full,
 * arange, from_data, from_blob (ownership and the deleter contract),
 * element sizes, storage sharing counts and size overflow. Expected values
 * come from tests/golden/factories_golden.h (gen_factories.py, PyTorch). */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#include "golden/factories_golden.h"

static const tsr_dtype kAllDtypes[] = {TSR_BOOL,    TSR_UINT8,    TSR_INT8,    TSR_INT16,
                                       TSR_INT32,   TSR_INT64,    TSR_FLOAT16, TSR_BFLOAT16,
                                       TSR_FLOAT32, TSR_FLOAT64};
#define NDTYPES (sizeof kAllDtypes / sizeof kAllDtypes[0])

static int64_t golden_element_size(tsr_dtype d) {
  for (size_t i = 0; i < TSR_GF_NDTYPES; ++i)
    if (tsr_gf_dtypes[i].dtype == d) return tsr_gf_dtypes[i].element_size;
  cr_assert_fail("dtype %d missing from the golden table", (int)d);
  return -1;
}

/* ---- element sizes ------------------------------------------------------------- */

Test(factories, element_size_and_nbytes_of_every_dtype) {
  cr_assert_eq(TSR_GF_NDTYPES, NDTYPES);
  const int64_t s[] = {3, 5};
  for (size_t i = 0; i < NDTYPES; ++i) {
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_empty(2, s, kAllDtypes[i], TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
    int64_t es = golden_element_size(kAllDtypes[i]);
    cr_expect_eq(tsr_tensor_element_size(t), es, "%s", tsr_dtype_name(kAllDtypes[i]));
    cr_expect_eq(tsr_tensor_nbytes(t), 15 * es, "%s", tsr_dtype_name(kAllDtypes[i]));
    cr_expect_eq(tsr_tensor_dtype(t), kAllDtypes[i]);
    cr_expect_eq(tsr_tensor_numel(t), 15);
    tsr_storage* st;
    TSR_ASSERT_OK(tsr_tensor_storage(t, &st));
    cr_expect_eq(tsr_storage_nbytes(st), 15 * es);
    tsr_storage_release(st);
    tsr_tensor_release(t);
  }
}

/* ---- empty ------------------------------------------------------------------- */

Test(factories, empty_strides_in_every_memory_format) {
  for (size_t i = 0; i < TSR_GF_NEMPTY; ++i) {
    const tsr_gf_empty* c = &tsr_gf_empties[i];
    tsr_tensor* t = SENTINEL;
    tsr_status st = tsr_empty(c->ndim, c->sizes, TSR_FLOAT32, c->format, TSR_CPU, &t);
    if (c->error) {
      cr_expect_eq(st, TSR_ERR_INVALID_ARGUMENT, "case %zu: %s", i, tsr_status_name(st));
      cr_expect(strstr(tsr_last_error_message(), c->format == TSR_CHANNELS_LAST
                                                      ? "required rank 4 tensor"
                                                      : "required rank 5 tensor"),
                "case %zu: %s", i, tsr_last_error_message());
      cr_expect_eq(t, SENTINEL);
      continue;
    }
    cr_assert_eq(st, TSR_OK, "case %zu: %s", i, tsr_last_error_message());
    tsr_assert_geometry(t, c->ndim, c->sizes, c->strides);
    cr_expect_eq(tsr_tensor_storage_offset(t), 0);
    tsr_storage* s;
    TSR_ASSERT_OK(tsr_tensor_storage(t, &s));
    cr_expect_eq(tsr_storage_nbytes(s), tsr_tensor_nbytes(t), "case %zu: storage bytes", i);
    tsr_storage_release(s);
    bool contiguous = false;
    TSR_ASSERT_OK(tsr_is_contiguous(t, c->format, &contiguous));
    cr_expect(contiguous, "case %zu: not contiguous in its own format", i);
    tsr_tensor_release(t);
  }
}

Test(factories, empty_rejects_preserve_format) {
  const int64_t s[] = {2, 3};
  tsr_tensor* t = SENTINEL;
  /* torch.empty(2, 3, memory_format=torch.preserve_format):
   * "unsupported memory format Preserve" */
  TSR_ASSERT_FAILS(tsr_empty(2, s, TSR_FLOAT32, TSR_PRESERVE_FORMAT, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "preserve");
  cr_assert_eq(t, SENTINEL);
}

Test(factories, empty_strided_storage_is_the_extent) {
  for (size_t i = 0; i < TSR_GF_NSTRIDED; ++i) {
    const tsr_gf_strided* c = &tsr_gf_strideds[i];
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_empty_strided(c->ndim, c->sizes, c->strides, c->dtype, TSR_CPU, &t));
    tsr_assert_geometry(t, c->ndim, c->sizes, c->strides);
    tsr_storage* s;
    TSR_ASSERT_OK(tsr_tensor_storage(t, &s));
    cr_expect_eq(tsr_storage_nbytes(s), c->storage_nbytes, "case %zu: %lld bytes, torch %lld", i,
                 (long long)tsr_storage_nbytes(s), (long long)c->storage_nbytes);
    tsr_storage_release(s);
    tsr_tensor_release(t);
  }
}

/* ---- zeros / ones / full ---------------------------------------------------------- */

static uint64_t first_element_bits(const tsr_tensor* t) {
  unsigned char buf[64];
  size_t need = 0;
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, buf, sizeof buf, &need));
  uint64_t b = 0;
  memcpy(&b, buf, (size_t)tsr_tensor_element_size(t));
  return b;
}

Test(factories, zeros_and_ones_in_every_dtype) {
  const int64_t s[] = {2, 3};
  /* bit patterns of 1 in each dtype, from torch.ones(1, dtype=d).view(uint8) */
  for (size_t i = 0; i < NDTYPES; ++i) {
    tsr_tensor *z, *o;
    TSR_ASSERT_OK(tsr_zeros(2, s, kAllDtypes[i], TSR_CPU, &z));
    TSR_ASSERT_OK(tsr_ones(2, s, kAllDtypes[i], TSR_CPU, &o));
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t c = 0; c < 3; ++c) {
        const int64_t idx[] = {r, c};
        double vz = -1, vo = -1;
        TSR_ASSERT_OK(tsr_get_double(z, 2, idx, &vz));
        TSR_ASSERT_OK(tsr_get_double(o, 2, idx, &vo));
        cr_expect_eq(vz, 0.0, "%s zeros", tsr_dtype_name(kAllDtypes[i]));
        cr_expect_eq(vo, 1.0, "%s ones", tsr_dtype_name(kAllDtypes[i]));
      }
    cr_expect_eq(first_element_bits(z), 0u, "%s: zero is all-zero bits",
                 tsr_dtype_name(kAllDtypes[i]));
    tsr_tensor_release(z);
    tsr_tensor_release(o);
  }
}

Test(factories, full_converts_like_torch_and_rejects_overflow) {
  const int64_t one[] = {1};
  for (size_t i = 0; i < TSR_GF_NFULL; ++i) {
    const tsr_gf_full* c = &tsr_gf_fulls[i];
    tsr_tensor* t = SENTINEL;
    tsr_clear_last_error();
    tsr_status st = tsr_full(1, one, c->value, c->dtype, TSR_CPU, &t);
    if (c->error) {
      cr_expect_eq(st, TSR_ERR_INVALID_ARGUMENT, "full(%g, %s): %s, torch raises", c->value,
                   tsr_dtype_name(c->dtype), tsr_status_name(st));
      if (st != TSR_OK) {
        cr_expect(strstr(tsr_last_error_message(), "without overflow"), "full(%g, %s): %s",
                  c->value, tsr_dtype_name(c->dtype), tsr_last_error_message());
        cr_expect_eq(t, SENTINEL);
      } else {
        tsr_tensor_release(t);
      }
      continue;
    }
    cr_expect_eq(st, TSR_OK, "full(%g, %s): %s", c->value, tsr_dtype_name(c->dtype),
                 tsr_last_error_message());
    if (st != TSR_OK) continue;
    uint64_t got = first_element_bits(t);
    if (c->any_nan) {
      double v;
      TSR_ASSERT_OK(tsr_item_double(t, &v));
      cr_expect(isnan(v), "full(nan, %s) is not NaN", tsr_dtype_name(c->dtype));
    } else {
      cr_expect_eq(got, c->bits, "full(%g, %s): bits %#llx, torch %#llx", c->value,
                   tsr_dtype_name(c->dtype), (unsigned long long)got,
                   (unsigned long long)c->bits);
    }
    tsr_tensor_release(t);
  }
}

/* ---- arange ------------------------------------------------------------------ */

/* Mantissa bits per floating dtype: PyTorch's vectorised arange computes
 * base + k*step per vector lane, which can land one unit in the last place
 * away from start + i*step; lengths and integer values must match exactly. */
static int mantissa_bits(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT16: return 10;
    case TSR_BFLOAT16: return 7;
    case TSR_FLOAT32: return 23;
    case TSR_FLOAT64: return 52;
    default: return -1;
  }
}

Test(factories, arange_lengths_and_values_match_torch) {
  for (size_t i = 0; i < TSR_GF_NARANGE; ++i) {
    const tsr_gf_arange* c = &tsr_gf_aranges[i];
    tsr_tensor* t = SENTINEL;
    tsr_clear_last_error();
    tsr_status st = tsr_arange(c->start, c->end, c->step, c->dtype, TSR_CPU, &t);
    const char* dn = tsr_dtype_name(c->dtype);
    if (c->error) {
      cr_expect_neq(st, TSR_OK, "arange(%g, %g, %g, %s): torch raises", c->start, c->end,
                    c->step, dn);
      if (st == TSR_OK) tsr_tensor_release(t);
      else cr_expect_eq(t, SENTINEL);
      continue;
    }
    cr_expect_eq(st, TSR_OK, "arange(%g, %g, %g, %s): %s", c->start, c->end, c->step, dn,
                 tsr_last_error_message());
    if (st != TSR_OK) continue;
    cr_expect_eq(tsr_tensor_ndim(t), 1);
    cr_expect_eq(tsr_tensor_numel(t), c->length, "arange(%g, %g, %g, %s): length %lld, torch %lld",
                 c->start, c->end, c->step, dn, (long long)tsr_tensor_numel(t),
                 (long long)c->length);
    for (int64_t k = 0; k < c->length && k < tsr_tensor_numel(t); ++k) {
      double v;
      TSR_ASSERT_OK(tsr_get_double(t, 1, &k, &v));
      /* torch's vector lanes compute base + j*step from a rounded base: a
       * few units in the last place of the largest bound */
      int mb = mantissa_bits(c->dtype);
      double tol = mb < 0 ? 0 : ldexp(fmax(fabs(c->start), fabs(c->end)), 2 - mb);
      cr_expect(v == c->values[k] || fabs(v - c->values[k]) <= tol,
                "arange(%g, %g, %g, %s)[%lld] = %.17g, torch %.17g", c->start, c->end, c->step,
                dn, (long long)k, v, c->values[k]);
    }
    tsr_tensor_release(t);
  }
}

Test(factories, arange_of_bool_is_a_dtype_mismatch) {
  tsr_tensor* t = SENTINEL;
  /* torch.arange(3, dtype=torch.bool): "arange_cpu" not implemented for 'Bool' */
  TSR_ASSERT_FAILS(tsr_arange(0, 3, 1, TSR_BOOL, TSR_CPU, &t), TSR_ERR_DTYPE_MISMATCH,
                   "not implemented for 'Bool'");
  cr_assert_eq(t, SENTINEL);
}

/* ---- from_data ---------------------------------------------------------------- */

Test(factories, from_data_copies_the_buffer) {
  float src[6] = {1, 2, 3, 4, 5, 6};
  const int64_t s[] = {2, 3};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_data(src, sizeof src, 2, s, TSR_FLOAT32, &t));
  cr_assert_neq(tsr_tensor_data_ptr(t), (void*)src);
  src[0] = 100; /* a later write to the source does not show */
  const int64_t i00[] = {0, 0}, i12[] = {1, 2};
  double v;
  TSR_ASSERT_OK(tsr_get_double(t, 2, i00, &v));
  cr_assert_eq(v, 1.0);
  TSR_ASSERT_OK(tsr_get_double(t, 2, i12, &v));
  cr_assert_eq(v, 6.0);
  /* and a write to the tensor does not reach the source */
  TSR_ASSERT_OK(tsr_set_double(t, 2, i12, -1));
  cr_assert_eq(src[5], 6.0f);
  tsr_tensor_release(t);
}

Test(factories, from_data_empty_and_scalar) {
  tsr_tensor *e, *s;
  const int64_t z[] = {0, 4};
  TSR_ASSERT_OK(tsr_from_data(NULL, 0, 2, z, TSR_INT32, &e));
  cr_assert_eq(tsr_tensor_numel(e), 0);
  const int64_t st[] = {4, 1};
  tsr_assert_geometry(e, 2, z, st);
  int64_t v = 42, got = 0;
  TSR_ASSERT_OK(tsr_from_data(&v, sizeof v, 0, NULL, TSR_INT64, &s));
  cr_assert_eq(tsr_tensor_ndim(s), 0);
  TSR_ASSERT_OK(tsr_item_int64(s, &got));
  cr_assert_eq(got, 42);
  tsr_tensor_release(s);
  tsr_tensor_release(e);
}

/* ---- from_blob ------------------------------------------------------------------ */

typedef struct {
  int calls;
  void* last_data;
} deleter_log;

static void count_deleter(void* data, void* ctx) {
  deleter_log* log = ctx;
  log->calls++;
  log->last_data = data;
}

Test(factories, from_blob_shares_memory_both_ways) {
  double buf[6] = {0, 1, 2, 3, 4, 5};
  deleter_log log = {0, NULL};
  const int64_t s[] = {2, 3};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_blob(buf, 2, s, NULL, TSR_FLOAT64, TSR_DEVICE_CPU, count_deleter, &log,
                              &t));
  cr_assert_eq(tsr_tensor_data_ptr(t), (void*)buf);
  const int64_t st[] = {3, 1};
  tsr_assert_geometry(t, 2, s, st);
  buf[4] = 40; /* caller writes show in the tensor */
  const int64_t i11[] = {1, 1}, i02[] = {0, 2};
  double v;
  TSR_ASSERT_OK(tsr_get_double(t, 2, i11, &v));
  cr_assert_eq(v, 40.0);
  TSR_ASSERT_OK(tsr_set_double(t, 2, i02, -2)); /* tensor writes show in the buffer */
  cr_assert_eq(buf[2], -2.0);
  cr_assert_eq(log.calls, 0);
  tsr_tensor_release(t);
  cr_assert_eq(log.calls, 1);
  cr_assert_eq(log.last_data, (void*)buf);
}

Test(factories, from_blob_with_strides_spans_what_they_reach) {
  float buf[12];
  for (int i = 0; i < 12; ++i) buf[i] = (float)i;
  const int64_t s[] = {3, 2}, st[] = {1, 6};  /* a transposed view of 2x6 rows, cols 0..2 */
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_blob(buf, 2, s, st, TSR_FLOAT32, TSR_DEVICE_CPU, NULL, NULL, &t));
  tsr_assert_geometry(t, 2, s, st);
  tsr_storage* sto;
  TSR_ASSERT_OK(tsr_tensor_storage(t, &sto));
  /* elements reached: 1 + (3-1)*1 + (2-1)*6 = 9 floats */
  cr_assert_eq(tsr_storage_nbytes(sto), 9 * 4);
  cr_assert_eq(tsr_storage_data_ptr(sto), (void*)buf);
  float out[6];
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, out, sizeof out, NULL));
  const float want[6] = {0, 6, 1, 7, 2, 8};
  cr_assert_arr_eq(out, want, sizeof want);
  tsr_storage_release(sto);
  tsr_tensor_release(t);
}

Test(factories, from_blob_deleter_waits_for_every_user) {
  float* buf = malloc(8 * sizeof(float));
  deleter_log log = {0, NULL};
  const int64_t s[] = {8}, s24[] = {2, 4};
  tsr_tensor *t, *v, *u;
  TSR_ASSERT_OK(tsr_from_blob(buf, 1, s, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, count_deleter, &log,
                              &t));
  TSR_ASSERT_OK(tsr_view(t, 2, s24, &v));
  tsr_storage* sto;
  TSR_ASSERT_OK(tsr_tensor_storage(t, &sto));
  tsr_tensor_retain(t);
  tsr_tensor_release(t);  /* still one reference */
  cr_assert_eq(log.calls, 0);
  tsr_tensor_release(t);
  cr_assert_eq(log.calls, 0, "the view still uses the memory");
  TSR_ASSERT_OK(tsr_select(v, 0, 1, &u));
  tsr_tensor_release(v);
  cr_assert_eq(log.calls, 0, "the select view still uses the memory");
  tsr_tensor_release(u);
  cr_assert_eq(log.calls, 0, "the storage handle still holds the memory");
  cr_assert_eq(tsr_storage_data_ptr(sto), (void*)buf);
  tsr_storage_release(sto);
  cr_assert_eq(log.calls, 1);
  free(buf);
}

/* Every failure of from_blob runs the deleter exactly once before returning
 * and leaves *out alone (tensor.h). */
static void expect_blob_failure(const char* what, void* data, int64_t ndim, const int64_t* sizes,
                                const int64_t* strides, tsr_dtype dtype,
                                tsr_device_type device, tsr_tensor** out, tsr_status status,
                                const char* needle) {
  deleter_log log = {0, NULL};
  tsr_clear_last_error();
  tsr_status st = tsr_from_blob(data, ndim, sizes, strides, dtype, device, count_deleter, &log, out);
  cr_expect_eq(st, status, "%s: %s (%s)", what, tsr_status_name(st), tsr_last_error_message());
  cr_expect(strstr(tsr_last_error_message(), needle), "%s: message \"%s\" lacks \"%s\"", what,
            tsr_last_error_message(), needle);
  cr_expect_eq(log.calls, 1, "%s: deleter ran %d times", what, log.calls);
  cr_expect_eq(log.last_data, data, "%s: deleter got the wrong pointer", what);
  if (out) cr_expect_eq(*out, SENTINEL, "%s: out written", what);
}

Test(factories, from_blob_failure_runs_the_deleter_once) {
  float buf[4];
  tsr_tensor* t = SENTINEL;
  const int64_t s[] = {4}, neg[] = {-1}, s2[] = {2, 2}, negst[] = {2, -1};
  const int64_t huge[] = {INT64_C(1) << 62, 4};
  expect_blob_failure("bad dtype", buf, 1, s, NULL, (tsr_dtype)42, TSR_DEVICE_CPU, &t,
                      TSR_ERR_INVALID_ARGUMENT, "dtype");
  expect_blob_failure("NULL out", buf, 1, s, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, NULL,
                      TSR_ERR_INVALID_ARGUMENT, "out");
  expect_blob_failure("negative size", buf, 1, neg, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, &t,
                      TSR_ERR_INVALID_ARGUMENT, "negative");
  expect_blob_failure("negative ndim", buf, -1, s, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, &t,
                      TSR_ERR_INVALID_ARGUMENT, "number of dims");
  expect_blob_failure("NULL sizes", buf, 1, NULL, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, &t,
                      TSR_ERR_INVALID_ARGUMENT, "NULL");
  expect_blob_failure("negative stride", buf, 2, s2, negst, TSR_FLOAT32, TSR_DEVICE_CPU, &t,
                      TSR_ERR_INVALID_ARGUMENT, "negative strides");
  expect_blob_failure("CUDA device", buf, 1, s, NULL, TSR_FLOAT32, TSR_DEVICE_CUDA, &t,
                      TSR_ERR_UNSUPPORTED, "CUDA");
  expect_blob_failure("unknown device", buf, 1, s, NULL, TSR_FLOAT32, (tsr_device_type)9, &t,
                      TSR_ERR_INVALID_ARGUMENT, "device");
  expect_blob_failure("element count overflow", buf, 2, huge, NULL, TSR_FLOAT32, TSR_DEVICE_CPU,
                      &t, TSR_ERR_INVALID_ARGUMENT, "overflows");
  expect_blob_failure("NULL data with elements", NULL, 1, s, NULL, TSR_FLOAT32, TSR_DEVICE_CPU,
                      &t, TSR_ERR_INVALID_ARGUMENT, "NULL");
}

Test(factories, from_blob_without_deleter_and_empty) {
  const int64_t z[] = {0};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_blob(NULL, 1, z, NULL, TSR_FLOAT32, TSR_DEVICE_CPU, NULL, NULL, &t));
  cr_assert_eq(tsr_tensor_numel(t), 0);
  tsr_tensor_release(t);
  /* a failing call with no deleter simply fails */
  tsr_tensor* u = SENTINEL;
  TSR_ASSERT_FAILS(tsr_from_blob(NULL, 1, z, NULL, (tsr_dtype)42, TSR_DEVICE_CPU, NULL, NULL, &u),
                   TSR_ERR_INVALID_ARGUMENT, "dtype");
  cr_assert_eq(u, SENTINEL);
}

/* ---- storage use_count ------------------------------------------------------- */

/* A NULL deleter means tessera never frees the memory: wrapping a live
 * tessera tensor's memory and releasing the wrapper must not hand that
 * block back to the caching allocator (where the next allocation of the same
 * size would reuse it while x still owns it). */
Test(factories, from_blob_without_deleter_never_frees_the_memory) {
  int64_t sizes[1] = {1024};
  tsr_tensor *x = NULL, *wrapper = NULL, *y = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, sizes, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_from_blob(tsr_tensor_data_ptr(x), 1, sizes, NULL, TSR_FLOAT32, TSR_DEVICE_CPU,
                              NULL, NULL, &wrapper));
  tsr_tensor_release(wrapper);
  TSR_ASSERT_OK(tsr_ones(1, sizes, TSR_FLOAT32, TSR_CPU, &y));
  cr_assert_neq(tsr_tensor_data_ptr(y), tsr_tensor_data_ptr(x),
                "x's block was returned to the cache and reused while x lives");
  int64_t i0[1] = {0};
  double v = -1;
  TSR_ASSERT_OK(tsr_get_double(x, 1, i0, &v));
  cr_assert_eq(v, 0.0);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

Test(factories, storage_use_count_follows_views) {
  const int64_t s[] = {4, 4};
  tsr_tensor *x, *v1, *v2, *c;
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_CPU, &x));
  tsr_storage* st;
  TSR_ASSERT_OK(tsr_tensor_storage(x, &st));
  cr_assert_eq(tsr_storage_use_count(st), 1);
  TSR_ASSERT_OK(tsr_t(x, &v1));
  cr_assert_eq(tsr_storage_use_count(st), 2);
  TSR_ASSERT_OK(tsr_narrow(v1, 0, 1, 2, &v2));
  cr_assert_eq(tsr_storage_use_count(st), 3);
  tsr_tensor_retain(v2); /* another handle to the same tensor is not another user */
  cr_assert_eq(tsr_storage_use_count(st), 3);
  tsr_tensor_release(v2);
  /* contiguous() of a contiguous tensor is that tensor: no new user */
  TSR_ASSERT_OK(tsr_contiguous(x, TSR_CONTIGUOUS_FORMAT, &c));
  cr_assert_eq(tsr_storage_use_count(st), 3);
  tsr_tensor_release(c);
  /* clone() has storage of its own */
  TSR_ASSERT_OK(tsr_clone(x, TSR_PRESERVE_FORMAT, &c));
  cr_assert_eq(tsr_storage_use_count(st), 3);
  tsr_tensor_release(c);
  tsr_tensor_release(v1);
  cr_assert_eq(tsr_storage_use_count(st), 2);
  tsr_tensor_release(v2);
  cr_assert_eq(tsr_storage_use_count(st), 1);
  tsr_tensor_release(x);
  cr_assert_eq(tsr_storage_use_count(st), 0);
  cr_assert_eq(tsr_storage_nbytes(st), 64, "the storage handle keeps the storage alive");
  tsr_storage_release(st);
}

/* ---- int64 overflow of sizes --------------------------------------------------- */

/* torch.empty(2**40, 2**40): "Storage size calculation overflowed with
 * sizes=[1099511627776, 1099511627776]"; the product must not wrap. */
Test(factories, size_overflow_is_invalid_argument) {
  const int64_t elems[] = {INT64_C(1) << 40, INT64_C(1) << 40};
  const int64_t bytes[] = {INT64_C(1) << 61, 8}; /* 2^64 elements... */
  const int64_t bytes2[] = {INT64_C(1) << 60, 2}; /* 2^61 elements fit, * 8 bytes does not */
  const int64_t strides[] = {1, INT64_C(1) << 62};
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_empty(2, elems, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "overflows");
  TSR_ASSERT_FAILS(tsr_zeros(2, bytes, TSR_FLOAT32, TSR_CPU, &t), TSR_ERR_INVALID_ARGUMENT,
                   "overflows");
  TSR_ASSERT_FAILS(tsr_empty(2, bytes2, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "overflows");
  TSR_ASSERT_FAILS(tsr_full(2, elems, 1.0, TSR_INT8, TSR_CPU, &t), TSR_ERR_INVALID_ARGUMENT,
                   "overflows");
  /* empty_strided: each size fits, the extent 1 + 3*2^62 does not */
  const int64_t s4[] = {2, 4};
  TSR_ASSERT_FAILS(tsr_empty_strided(2, s4, strides, TSR_FLOAT32, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "overflows");
  int64_t one = 1;
  TSR_ASSERT_FAILS(tsr_from_data(&one, sizeof one, 2, elems, TSR_INT64, &t),
                   TSR_ERR_INVALID_ARGUMENT, "overflows");
  cr_assert_eq(t, SENTINEL);
  /* a view to an overflowing shape */
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &x));
  const int64_t vs[] = {INT64_C(1) << 40, INT64_C(1) << 40, -1};
  TSR_ASSERT_FAILS(tsr_view(x, 3, vs, &t), TSR_ERR_INVALID_ARGUMENT, "overflows");
  const int64_t es[] = {INT64_C(1) << 40, INT64_C(1) << 40, 4};
  TSR_ASSERT_FAILS(tsr_expand(x, 3, es, &t), TSR_ERR_INVALID_ARGUMENT, "overflows");
  cr_assert_eq(t, SENTINEL);
  tsr_tensor_release(x);
}
