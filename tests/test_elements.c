/* Element access: item, get/set by index (negative indices, bounds, the
 * version counter, torch's overflow rule for scalar writes) and
 * copy_to_buffer of strided tensors. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#include "golden/factories_golden.h"

static tsr_tensor* arange_view(int64_t n, tsr_dtype dtype, int64_t ndim, const int64_t* sizes) {
  tsr_tensor *a, *v;
  TSR_ASSERT_OK(tsr_arange(0, (double)n, 1, dtype, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_view(a, ndim, sizes, &v));
  tsr_tensor_release(a);
  return v;
}

/* ---- item -------------------------------------------------------------------- */

/* torch.zeros(3).item() (C++ at::Tensor::item): "a Tensor with 3 elements
 * cannot be converted to Scalar". */
Test(elements, item_needs_exactly_one_element) {
  const int64_t s3[] = {3}, s0[] = {0}, s111[] = {1, 1, 1};
  tsr_tensor *t3, *t0, *t1;
  TSR_ASSERT_OK(tsr_zeros(1, s3, TSR_FLOAT32, TSR_CPU, &t3));
  TSR_ASSERT_OK(tsr_zeros(1, s0, TSR_FLOAT32, TSR_CPU, &t0));
  TSR_ASSERT_OK(tsr_full(3, s111, -2.5, TSR_FLOAT32, TSR_CPU, &t1));
  double d = 123;
  int64_t i = 123;
  TSR_ASSERT_FAILS(tsr_item_double(t3, &d), TSR_ERR_SHAPE_MISMATCH,
                   "a Tensor with 3 elements cannot be converted to Scalar");
  TSR_ASSERT_FAILS(tsr_item_int64(t0, &i), TSR_ERR_SHAPE_MISMATCH,
                   "a Tensor with 0 elements cannot be converted to Scalar");
  cr_assert_eq(d, 123);
  cr_assert_eq(i, 123);
  TSR_ASSERT_OK(tsr_item_double(t1, &d)); /* any ndim with one element */
  cr_assert_eq(d, -2.5);
  TSR_ASSERT_OK(tsr_item_int64(t1, &i)); /* int(-2.5) == -2: truncation toward zero */
  cr_assert_eq(i, -2);
  tsr_tensor_release(t1);
  tsr_tensor_release(t0);
  tsr_tensor_release(t3);
}

Test(elements, item_of_a_view_reads_its_own_element) {
  const int64_t s[] = {3, 4};
  tsr_tensor *x = arange_view(12, TSR_INT32, 2, s), *r, *e;
  TSR_ASSERT_OK(tsr_select(x, 0, -1, &r)); /* x[-1] = [8, 9, 10, 11] */
  TSR_ASSERT_OK(tsr_select(r, 0, 2, &e));  /* x[-1][2] = 10, a 0-dim view at offset 10 */
  cr_assert_eq(tsr_tensor_storage_offset(e), 10);
  int64_t v;
  TSR_ASSERT_OK(tsr_item_int64(e, &v));
  cr_assert_eq(v, 10);
  double d;
  TSR_ASSERT_OK(tsr_item_double(e, &d));
  cr_assert_eq(d, 10.0);
  tsr_tensor_release(e);
  tsr_tensor_release(r);
  tsr_tensor_release(x);
}

Test(elements, item_in_every_dtype) {
  const tsr_dtype dts[] = {TSR_BOOL, TSR_UINT8, TSR_INT8, TSR_INT16, TSR_INT32, TSR_INT64,
                           TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_full(0, NULL, 1.0, dts[k], TSR_CPU, &t));
    double d = 0;
    int64_t i = 0;
    TSR_ASSERT_OK(tsr_item_double(t, &d));
    TSR_ASSERT_OK(tsr_item_int64(t, &i));
    cr_expect_eq(d, 1.0, "%s", tsr_dtype_name(dts[k]));
    cr_expect_eq(i, 1, "%s", tsr_dtype_name(dts[k]));
    tsr_tensor_release(t);
  }
}

Test(elements, item_int64_of_nan_or_inf_fails) {
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (int k = 0; k < 3; ++k) {
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_full(0, NULL, bad[k], TSR_FLOAT32, TSR_CPU, &t));
    int64_t i = 77;
    TSR_ASSERT_FAILS(tsr_item_int64(t, &i), TSR_ERR_INVALID_ARGUMENT, "cannot convert");
    cr_assert_eq(i, 77);
    double d = 0;
    TSR_ASSERT_OK(tsr_item_double(t, &d));
    cr_assert(isnan(bad[k]) ? isnan(d) : d == bad[k]);
    tsr_tensor_release(t);
  }
}

/* ---- get / set by index -------------------------------------------------------- */

Test(elements, negative_indices_count_from_the_end) {
  const int64_t s[] = {3, 4};
  tsr_tensor* x = arange_view(12, TSR_FLOAT64, 2, s);
  /* x[-1, -1] == 11, x[-3, 0] == 0, x[1, -4] == 4 */
  const int64_t a[] = {-1, -1}, b[] = {-3, 0}, c[] = {1, -4};
  double v;
  TSR_ASSERT_OK(tsr_get_double(x, 2, a, &v));
  cr_assert_eq(v, 11);
  TSR_ASSERT_OK(tsr_get_double(x, 2, b, &v));
  cr_assert_eq(v, 0);
  int64_t iv;
  TSR_ASSERT_OK(tsr_get_int64(x, 2, c, &iv));
  cr_assert_eq(iv, 4);
  TSR_ASSERT_OK(tsr_set_int64(x, 2, c, -40));
  const int64_t c2[] = {1, 0};
  TSR_ASSERT_OK(tsr_get_double(x, 2, c2, &v));
  cr_assert_eq(v, -40);
  tsr_tensor_release(x);
}

Test(elements, index_on_a_transposed_view) {
  const int64_t s[] = {3, 4};
  tsr_tensor *x = arange_view(12, TSR_INT64, 2, s), *t;
  TSR_ASSERT_OK(tsr_t(x, &t)); /* t[j, i] == x[i, j] == 4i + j */
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t i = 0; i < 3; ++i) {
      const int64_t idx[] = {j, i};
      int64_t v;
      TSR_ASSERT_OK(tsr_get_int64(t, 2, idx, &v));
      cr_assert_eq(v, 4 * i + j);
    }
  tsr_tensor_release(t);
  tsr_tensor_release(x);
}

/* torch.zeros(3)[5]: "index 5 is out of bounds for dimension 0 with size 3";
 * torch.zeros(2, 3)[1, -4]: "index -4 is out of bounds for dimension 1 with size 3" */
Test(elements, out_of_range_index) {
  const int64_t s3[] = {3}, s23[] = {2, 3}, s0[] = {0};
  tsr_tensor *a, *b, *e;
  TSR_ASSERT_OK(tsr_zeros(1, s3, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_zeros(2, s23, TSR_FLOAT32, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_zeros(1, s0, TSR_FLOAT32, TSR_CPU, &e));
  const int64_t i5[] = {5}, im4[] = {1, -4}, i0[] = {0}, i3[] = {3}, im3[] = {-3};
  double v = 9;
  TSR_ASSERT_FAILS(tsr_get_double(a, 1, i5, &v), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 5 is out of bounds for dimension 0 with size 3");
  TSR_ASSERT_FAILS(tsr_get_double(b, 2, im4, &v), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index -4 is out of bounds for dimension 1 with size 3");
  TSR_ASSERT_FAILS(tsr_get_double(e, 1, i0, &v), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 0 is out of bounds for dimension 0 with size 0");
  TSR_ASSERT_FAILS(tsr_set_double(a, 1, i3, 1), TSR_ERR_INDEX_OUT_OF_RANGE, "index 3");
  int64_t iv = 9;
  TSR_ASSERT_FAILS(tsr_get_int64(a, 1, i3, &iv), TSR_ERR_INDEX_OUT_OF_RANGE, "index 3");
  TSR_ASSERT_FAILS(tsr_set_int64(b, 2, im4, 1), TSR_ERR_INDEX_OUT_OF_RANGE, "index -4");
  cr_assert_eq(v, 9);
  cr_assert_eq(iv, 9);
  TSR_ASSERT_OK(tsr_get_double(a, 1, im3, &v)); /* -3 is the first element */
  cr_assert_eq(v, 0);
  /* nothing was written and no version was bumped by the failures */
  cr_assert_eq(tsr_version(a), 0);
  cr_assert_eq(tsr_version(b), 0);
  tsr_tensor_release(e);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
}

Test(elements, index_count_must_equal_ndim) {
  const int64_t s23[] = {2, 3}, idx[] = {0, 0, 0};
  tsr_tensor* b;
  TSR_ASSERT_OK(tsr_zeros(2, s23, TSR_FLOAT32, TSR_CPU, &b));
  double v = 5;
  TSR_ASSERT_FAILS(tsr_get_double(b, 1, idx, &v), TSR_ERR_INVALID_ARGUMENT,
                   "expected 2 indices, got 1");
  TSR_ASSERT_FAILS(tsr_set_double(b, 3, idx, 1), TSR_ERR_INVALID_ARGUMENT,
                   "expected 2 indices, got 3");
  TSR_ASSERT_FAILS(tsr_get_double(b, 2, NULL, &v), TSR_ERR_INVALID_ARGUMENT, "index is NULL");
  cr_assert_eq(v, 5);
  /* a 0-dim tensor takes zero indices (index may be NULL) */
  tsr_tensor* s;
  TSR_ASSERT_OK(tsr_full(0, NULL, 7, TSR_INT16, TSR_CPU, &s));
  TSR_ASSERT_OK(tsr_get_double(s, 0, NULL, &v));
  cr_assert_eq(v, 7);
  TSR_ASSERT_OK(tsr_set_double(s, 0, NULL, -3));
  TSR_ASSERT_OK(tsr_item_double(s, &v));
  cr_assert_eq(v, -3);
  tsr_tensor_release(s);
  tsr_tensor_release(b);
}

/* t = torch.zeros(3); t[0] = 1 -> t._version == 1; v = t[1:]; v[0] = 2 ->
 * t._version == v._version == 2. */
Test(elements, set_bumps_the_shared_version_counter) {
  const int64_t s3[] = {3}, i0[] = {0};
  tsr_tensor *t, *v;
  TSR_ASSERT_OK(tsr_zeros(1, s3, TSR_FLOAT32, TSR_CPU, &t));
  cr_assert_eq(tsr_version(t), 0);
  TSR_ASSERT_OK(tsr_set_double(t, 1, i0, 1));
  cr_assert_eq(tsr_version(t), 1);
  TSR_ASSERT_OK(tsr_slice(t, 0, 1, INT64_MAX, 1, &v));
  TSR_ASSERT_OK(tsr_set_int64(v, 1, i0, 2));
  cr_assert_eq(tsr_version(t), 2);
  cr_assert_eq(tsr_version(v), 2);
  /* reads do not bump it */
  double d;
  TSR_ASSERT_OK(tsr_get_double(t, 1, i0, &d));
  cr_assert_eq(tsr_version(t), 2);
  tsr_tensor_release(v);
  tsr_tensor_release(t);
}

/* b = torch.zeros(3); b.expand(2, 3)[0, 0] = 1 writes b[0] (one element
 * does not overlap itself), and every row of the expanded view shows it. */
Test(elements, set_through_an_expanded_view_writes_the_shared_element) {
  const int64_t s3[] = {3}, s23[] = {2, 3}, i00[] = {0, 0}, i10[] = {1, 0}, i0[] = {0};
  tsr_tensor *b, *x;
  TSR_ASSERT_OK(tsr_zeros(1, s3, TSR_FLOAT32, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_expand(b, 2, s23, &x));
  TSR_ASSERT_OK(tsr_set_double(x, 2, i00, 1));
  double v;
  TSR_ASSERT_OK(tsr_get_double(b, 1, i0, &v));
  cr_assert_eq(v, 1);
  TSR_ASSERT_OK(tsr_get_double(x, 2, i10, &v));
  cr_assert_eq(v, 1);
  cr_assert_eq(tsr_version(b), 1);
  tsr_tensor_release(x);
  tsr_tensor_release(b);
}

/* w = torch.zeros(2, requires_grad=True); w[0] = 1 raises (a leaf that
 * requires grad cannot be written in place while grad mode is on); under
 * torch.no_grad() it is allowed. */
Test(elements, set_on_a_leaf_that_requires_grad) {
  const int64_t s2[] = {2}, i0[] = {0};
  tsr_tensor* w;
  TSR_ASSERT_OK(tsr_zeros(1, s2, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_FAILS(tsr_set_double(w, 1, i0, 1), TSR_ERR_AUTOGRAD, "leaf Variable");
  cr_assert_eq(tsr_version(w), 0);
  bool prev = tsr_set_grad_enabled(false);
  TSR_ASSERT_OK(tsr_set_double(w, 1, i0, 1));
  tsr_set_grad_enabled(prev);
  double v;
  TSR_ASSERT_OK(tsr_get_double(w, 1, i0, &v));
  cr_assert_eq(v, 1);
  tsr_tensor_release(w);
}

static uint64_t element_bits(const tsr_tensor* t, int64_t i) {
  unsigned char buf[16];
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, buf, sizeof buf, NULL));
  uint64_t b = 0;
  size_t es = (size_t)tsr_tensor_element_size(t);
  memcpy(&b, buf + es * (size_t)i, es);
  return b;
}

/* t = torch.zeros(2, dtype=d); t[0] = v (Python int): PyTorch's result or
 * its overflow error (tests/golden/factories_golden.h). */
Test(elements, set_int64_follows_torch_conversion_and_overflow) {
  const int64_t s2[] = {2}, i0[] = {0};
  for (size_t k = 0; k < TSR_GF_NSET_INT; ++k) {
    const tsr_gf_set_int* c = &tsr_gf_set_ints[k];
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_zeros(1, s2, c->dtype, TSR_CPU, &t));
    tsr_clear_last_error();
    tsr_status st = tsr_set_int64(t, 1, i0, c->value);
    if (c->error) {
      cr_expect_eq(st, TSR_ERR_INVALID_ARGUMENT, "t[0] = %lld on %s: %s, torch raises",
                   (long long)c->value, tsr_dtype_name(c->dtype), tsr_status_name(st));
      cr_expect(st == TSR_OK || strstr(tsr_last_error_message(), "without overflow"), "%s",
                tsr_last_error_message());
      cr_expect_eq(element_bits(t, 0), 0u, "failed write changed the tensor");
      cr_expect_eq(tsr_version(t), st == TSR_OK ? 1 : 0);
    } else {
      cr_expect_eq(st, TSR_OK, "t[0] = %lld on %s: %s", (long long)c->value,
                   tsr_dtype_name(c->dtype), tsr_last_error_message());
      cr_expect_eq(element_bits(t, 0), c->bits, "t[0] = %lld on %s: bits %#llx, torch %#llx",
                   (long long)c->value, tsr_dtype_name(c->dtype),
                   (unsigned long long)element_bits(t, 0), (unsigned long long)c->bits);
    }
    tsr_tensor_release(t);
  }
}

/* t[0] = v with a Python float follows the same rule as torch.full. */
Test(elements, set_double_follows_torch_conversion_and_overflow) {
  const int64_t s2[] = {2}, i0[] = {0};
  for (size_t k = 0; k < TSR_GF_NFULL; ++k) {
    const tsr_gf_full* c = &tsr_gf_fulls[k];
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_zeros(1, s2, c->dtype, TSR_CPU, &t));
    tsr_status st = tsr_set_double(t, 1, i0, c->value);
    if (c->error) {
      cr_expect_eq(st, TSR_ERR_INVALID_ARGUMENT, "t[0] = %g on %s: torch raises", c->value,
                   tsr_dtype_name(c->dtype));
      cr_expect_eq(element_bits(t, 0), 0u);
    } else if (c->any_nan) {
      double v;
      TSR_ASSERT_OK(tsr_get_double(t, 1, i0, &v));
      cr_expect(isnan(v));
    } else {
      cr_expect_eq(st, TSR_OK, "t[0] = %g on %s: %s", c->value, tsr_dtype_name(c->dtype),
                   tsr_last_error_message());
      cr_expect_eq(element_bits(t, 0), c->bits, "t[0] = %g on %s: bits %#llx, torch %#llx",
                   c->value, tsr_dtype_name(c->dtype), (unsigned long long)element_bits(t, 0),
                   (unsigned long long)c->bits);
    }
    tsr_tensor_release(t);
  }
}

/* ---- copy_to_buffer -------------------------------------------------------------- */

static void expect_c_order(const tsr_tensor* t, const float* want, size_t n) {
  float got[64];
  size_t need = 0;
  memset(got, 0xAB, sizeof got);
  TSR_ASSERT_OK(tsr_copy_to_buffer(t, got, sizeof got, &need));
  cr_assert_eq(need, n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    cr_expect_eq(got[i], want[i], "element %zu: %g vs %g", i, got[i], want[i]);
  unsigned char tail[sizeof(float)];
  memset(tail, 0xAB, sizeof tail);
  cr_expect(memcmp(&got[n], tail, sizeof tail) == 0, "wrote past nbytes");
}

Test(elements, copy_to_buffer_gives_c_order_of_strided_tensors) {
  const int64_t s23[] = {2, 3};
  tsr_tensor *x = arange_view(6, TSR_FLOAT32, 2, s23), *t, *sl, *a, *cl;
  /* torch.arange(6.).view(2, 3).t() -> [[0, 3], [1, 4], [2, 5]] */
  TSR_ASSERT_OK(tsr_t(x, &t));
  const float wt[] = {0, 3, 1, 4, 2, 5};
  expect_c_order(t, wt, 6);
  /* torch.arange(6.).view(2, 3)[:, ::2] -> [[0, 2], [3, 5]] */
  TSR_ASSERT_OK(tsr_slice(x, 1, 0, INT64_MAX, 2, &sl));
  const float ws[] = {0, 2, 3, 5};
  expect_c_order(sl, ws, 4);
  /* channels_last: torch.arange(24.).view(1, 2, 3, 4).contiguous(memory_format=
   * torch.channels_last) keeps the logical order 0..23 */
  const int64_t s1234[] = {1, 2, 3, 4};
  a = arange_view(24, TSR_FLOAT32, 4, s1234);
  TSR_ASSERT_OK(tsr_contiguous(a, TSR_CHANNELS_LAST, &cl));
  const int64_t clst[] = {24, 1, 8, 2};
  tsr_assert_geometry(cl, 4, s1234, clst);
  float w24[24];
  for (int i = 0; i < 24; ++i) w24[i] = (float)i;
  expect_c_order(cl, w24, 24);
  /* the physical order is NHWC: data_ptr holds 0, 12, 1, 13, ... */
  const float* phys = tsr_tensor_data_ptr(cl);
  cr_assert_eq(phys[0], 0.0f);
  cr_assert_eq(phys[1], 12.0f);
  cr_assert_eq(phys[2], 1.0f);
  tsr_tensor_release(cl);
  tsr_tensor_release(a);
  tsr_tensor_release(sl);
  tsr_tensor_release(t);
  tsr_tensor_release(x);
}

Test(elements, copy_to_buffer_of_an_expanded_view_repeats_elements) {
  const int64_t s23[] = {2, 3};
  tsr_tensor *b, *x;
  TSR_ASSERT_OK(tsr_arange(1, 4, 1, TSR_FLOAT32, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_expand(b, 2, s23, &x));
  const float w[] = {1, 2, 3, 1, 2, 3};
  expect_c_order(x, w, 6);
  tsr_tensor_release(x);
  tsr_tensor_release(b);
}

Test(elements, copy_to_buffer_too_small_writes_nothing) {
  const int64_t s23[] = {2, 3};
  tsr_tensor* x = arange_view(6, TSR_FLOAT64, 2, s23);
  unsigned char buf[48];
  memset(buf, 0xAB, sizeof buf);
  size_t need = 0;
  TSR_ASSERT_FAILS(tsr_copy_to_buffer(x, buf, 47, &need), TSR_ERR_INVALID_ARGUMENT,
                   "buffer holds 47 bytes, the tensor needs 48");
  cr_assert_eq(need, 48);
  for (size_t i = 0; i < sizeof buf; ++i) cr_assert_eq(buf[i], 0xAB, "byte %zu written", i);
  /* capacity 0 with NULL asks for the size */
  need = 0;
  TSR_ASSERT_FAILS(tsr_copy_to_buffer(x, NULL, 0, &need), TSR_ERR_INVALID_ARGUMENT, "needs 48");
  cr_assert_eq(need, 48);
  /* needed_bytes may be NULL */
  TSR_ASSERT_OK(tsr_copy_to_buffer(x, buf, sizeof buf, NULL));
  double first;
  memcpy(&first, buf + 8, sizeof first);
  cr_assert_eq(first, 1.0);
  tsr_tensor_release(x);
}

Test(elements, copy_to_buffer_of_an_empty_tensor) {
  const int64_t s[] = {0, 3};
  tsr_tensor* e;
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_CPU, &e));
  size_t need = 99;
  TSR_ASSERT_OK(tsr_copy_to_buffer(e, NULL, 0, &need));
  cr_assert_eq(need, 0);
  tsr_tensor_release(e);
}
