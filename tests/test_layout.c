/* Layout: contiguity flags, suggest_memory_format, contiguous / clone /
 * to(dtype) strides over ~1500 generated layouts, dtype conversion bit
 * patterns and copy_ (broadcast, conversion, overlap), all against PyTorch
 * goldens from tests/golden/gen_layout.py. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#include "golden/layout_golden.h"

static tsr_tensor* strided(const tsr_tensor* base, int64_t ndim, const int64_t* sizes,
                           const int64_t* strides, int64_t offset) {
  tsr_tensor* x;
  TSR_ASSERT_OK(tsr_as_strided(base, ndim, sizes, strides, offset, &x));
  return x;
}

/* Every element of t as float64 in C order (caller frees). */
static double* values_of(const tsr_tensor* t) {
  tsr_tensor* d;
  TSR_ASSERT_OK(tsr_to_dtype(t, TSR_FLOAT64, &d));
  int64_t n = tsr_tensor_numel(d);
  double* v = malloc(sizeof(double) * (size_t)(n ? n : 1));
  TSR_ASSERT_OK(tsr_copy_to_buffer(d, v, sizeof(double) * (size_t)n, NULL));
  tsr_tensor_release(d);
  return v;
}

static void expect_strides(const tsr_tensor* t, int64_t ndim, const int64_t* want,
                           const char* name, const char* what) {
  cr_assert_eq(tsr_tensor_ndim(t), ndim);
  for (int64_t d = 0; d < ndim; ++d)
    cr_expect_eq(tsr_tensor_strides(t)[d], want[d], "%s: %s stride[%lld] = %lld, torch %lld",
                 name, what, (long long)d, (long long)tsr_tensor_strides(t)[d],
                 (long long)want[d]);
}

/* Same elements in the same logical positions. */
static void expect_same_values(const tsr_tensor* a, const tsr_tensor* b, const char* name,
                               const char* what) {
  int64_t n = tsr_tensor_numel(a);
  cr_assert_eq(n, tsr_tensor_numel(b));
  double *va = values_of(a), *vb = values_of(b);
  for (int64_t i = 0; i < n; ++i)
    cr_expect_eq(va[i], vb[i], "%s: %s value[%lld] %g != %g", name, what, (long long)i, va[i],
                 vb[i]);
  free(va);
  free(vb);
}

static bool shares(const tsr_tensor* a, const tsr_tensor* b) {
  bool s = false;
  TSR_ASSERT_OK(tsr_shares_storage(a, b, &s));
  return s;
}

static tsr_memory_format cl_format_for(int64_t ndim) {
  return ndim == 4 ? TSR_CHANNELS_LAST : TSR_CHANNELS_LAST_3D;
}

/* ---- flags ------------------------------------------------------------------ */

Test(layout_golden, contiguity_flags_and_suggest_memory_format) {
  for (size_t i = 0; i < TSR_GL_NLAYOUTS; ++i) {
    const tsr_gl_layout* c = &tsr_gl_layouts[i];
    tsr_tensor* x =
        tsr_strided_arange(c->base_numel, c->ndim, c->sizes, c->strides, c->offset, NULL);
    const struct { tsr_memory_format fmt; int want; const char* name; } fl[] = {
        {TSR_CONTIGUOUS_FORMAT, c->contiguous, "contiguous_format"},
        {TSR_CHANNELS_LAST, c->channels_last, "channels_last"},
        {TSR_CHANNELS_LAST_3D, c->channels_last_3d, "channels_last_3d"}};
    for (int k = 0; k < 3; ++k) {
      bool got = !fl[k].want;
      TSR_ASSERT_OK(tsr_is_contiguous(x, fl[k].fmt, &got));
      cr_expect_eq(got, (bool)fl[k].want, "%s: is_contiguous(%s) %d, torch %d", c->name,
                   fl[k].name, got, fl[k].want);
    }
    bool dense = !c->non_overlapping_and_dense;
    TSR_ASSERT_OK(tsr_is_non_overlapping_and_dense(x, &dense));
    cr_expect_eq(dense, (bool)c->non_overlapping_and_dense,
                 "%s: non_overlapping_and_dense %d, torch %d", c->name, dense,
                 c->non_overlapping_and_dense);
    tsr_memory_format fmt = TSR_PRESERVE_FORMAT;
    TSR_ASSERT_OK(tsr_suggest_memory_format(x, &fmt));
    cr_expect_eq((int)fmt, c->suggest_memory_format, "%s: suggest_memory_format %d, torch %d",
                 c->name, (int)fmt, c->suggest_memory_format);
    tsr_tensor_release(x);
  }
}

/* ---- clone ------------------------------------------------------------------ */

Test(layout_golden, clone_preserve_format_strides) {
  for (size_t i = 0; i < TSR_GL_NLAYOUTS; ++i) {
    const tsr_gl_layout* c = &tsr_gl_layouts[i];
    tsr_tensor* x =
        tsr_strided_arange(c->base_numel, c->ndim, c->sizes, c->strides, c->offset, NULL);
    tsr_tensor* y;
    TSR_ASSERT_OK(tsr_clone(x, TSR_PRESERVE_FORMAT, &y));
    expect_strides(y, c->ndim, c->clone_preserve_strides, c->name, "clone(preserve_format)");
    cr_expect_eq(tsr_tensor_storage_offset(y), 0, "%s: clone offset", c->name);
    cr_expect(!shares(x, y), "%s: clone shares storage", c->name);
    expect_same_values(x, y, c->name, "clone(preserve_format)");
    tsr_tensor_release(y);
    if (c->ndim == 4 || c->ndim == 5) {
      TSR_ASSERT_OK(tsr_clone(x, cl_format_for(c->ndim), &y));
      expect_strides(y, c->ndim, c->cl_clone_strides, c->name, "clone(channels_last)");
      expect_same_values(x, y, c->name, "clone(channels_last)");
      tsr_tensor_release(y);
    }
    tsr_tensor_release(x);
  }
}

/* ---- contiguous ------------------------------------------------------------- */

static void check_contiguous(const tsr_gl_layout* c, const tsr_tensor* x, tsr_memory_format fmt,
                             const int64_t* want_strides, int want_same, const char* what) {
  tsr_tensor* y;
  TSR_ASSERT_OK(tsr_contiguous(x, fmt, &y));
  expect_strides(y, c->ndim, want_strides, c->name, what);
  cr_expect_eq(shares(x, y), (bool)want_same, "%s: %s shares storage %d, torch %d", c->name, what,
               shares(x, y), want_same);
  if (want_same) /* the same tensor: same first element, not merely the same storage */
    cr_expect_eq(tsr_tensor_data_ptr(y), tsr_tensor_data_ptr(x), "%s: %s data_ptr", c->name,
                 what);
  else
    cr_expect_eq(tsr_tensor_storage_offset(y), 0, "%s: %s copy has an offset", c->name, what);
  expect_same_values(x, y, c->name, what);
  tsr_tensor_release(y);
}

Test(layout_golden, contiguous_returns_self_or_a_copy_in_the_format) {
  for (size_t i = 0; i < TSR_GL_NLAYOUTS; ++i) {
    const tsr_gl_layout* c = &tsr_gl_layouts[i];
    tsr_tensor* x =
        tsr_strided_arange(c->base_numel, c->ndim, c->sizes, c->strides, c->offset, NULL);
    check_contiguous(c, x, TSR_CONTIGUOUS_FORMAT, c->contiguous_strides, c->contiguous_same,
                     "contiguous()");
    if (c->ndim == 4 || c->ndim == 5)
      check_contiguous(c, x, cl_format_for(c->ndim), c->cl_contiguous_strides,
                       c->cl_contiguous_same, "contiguous(channels_last)");
    tsr_tensor_release(x);
  }
}

/* ---- to(dtype) -------------------------------------------------------------- */

Test(layout_golden, to_dtype_preserves_layout_like_torch) {
  for (size_t i = 0; i < TSR_GL_NLAYOUTS; ++i) {
    const tsr_gl_layout* c = &tsr_gl_layouts[i];
    tsr_tensor* x =
        tsr_strided_arange(c->base_numel, c->ndim, c->sizes, c->strides, c->offset, NULL);
    tsr_tensor* y;
    TSR_ASSERT_OK(tsr_to_dtype(x, TSR_FLOAT32, &y));
    cr_expect_eq(tsr_tensor_dtype(y), TSR_FLOAT32);
    expect_strides(y, c->ndim, c->to_float32_strides, c->name, "to(float32)");
    cr_expect(!shares(x, y), "%s: to(float32) shares storage", c->name);
    expect_same_values(x, y, c->name, "to(float32)");
    tsr_tensor_release(y);
    /* to() the same dtype is the tensor itself (torch returns self) */
    TSR_ASSERT_OK(tsr_to_dtype(x, TSR_FLOAT64, &y));
    cr_expect(shares(x, y) && tsr_tensor_data_ptr(x) == tsr_tensor_data_ptr(y),
              "%s: to(same dtype) copied", c->name);
    tsr_tensor_release(y);
    tsr_tensor_release(x);
  }
}

/* ---- dtype conversions, bit for bit ------------------------------------------- */

static size_t esize(tsr_dtype d) {
  switch (d) {
    case TSR_BOOL: case TSR_UINT8: case TSR_INT8: return 1;
    case TSR_INT16: case TSR_FLOAT16: case TSR_BFLOAT16: return 2;
    case TSR_INT32: case TSR_FLOAT32: return 4;
    default: return 8;
  }
}

/* NaN in dtype's bit layout. PyTorch's NaN payloads depend on which of its
 * loops ran (bfloat16: 0x7fc0 from the scalar path, 0xffff from the AVX2
 * one), so any NaN matches a NaN. */
static bool is_nan_bits(tsr_dtype d, uint64_t b) {
  switch (d) {
    case TSR_FLOAT16: return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
    case TSR_BFLOAT16: return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
    case TSR_FLOAT32: return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu);
    case TSR_FLOAT64:
      return (b & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000) &&
             (b & UINT64_C(0xfffffffffffff));
    default: return false;
  }
}

Test(layout_golden, to_dtype_values_match_torch_bit_patterns) {
  for (size_t i = 0; i < TSR_GL_NCONVERSIONS; ++i) {
    const tsr_gl_conversion* c = &tsr_gl_conversions[i];
    size_t es = esize(c->src), ed = esize(c->dst);
    unsigned char in[32 * 8], out[32 * 8];
    for (int k = 0; k < c->n; ++k) memcpy(in + k * es, &c->src_bits[k], es); /* little endian */
    tsr_tensor *x, *y;
    const int64_t n = c->n;
    TSR_ASSERT_OK(tsr_from_data(in, es * (size_t)n, 1, &n, c->src, &x));
    TSR_ASSERT_OK(tsr_to_dtype(x, c->dst, &y));
    TSR_ASSERT_OK(tsr_copy_to_buffer(y, out, sizeof out, NULL));
    for (int k = 0; k < c->n; ++k) {
      uint64_t got = 0;
      memcpy(&got, out + k * ed, ed);
      if (is_nan_bits(c->dst, c->dst_bits[k])) {
        cr_expect(is_nan_bits(c->dst, got), "%s -> %s: element %d should be NaN, got bits %#llx",
                  tsr_dtype_name(c->src), tsr_dtype_name(c->dst), k, (unsigned long long)got);
        continue;
      }
      cr_expect_eq(got, c->dst_bits[k],
                   "%s -> %s: element %d (source bits %#llx) gave bits %#llx, torch %#llx",
                   tsr_dtype_name(c->src), tsr_dtype_name(c->dst), k,
                   (unsigned long long)c->src_bits[k], (unsigned long long)got,
                   (unsigned long long)c->dst_bits[k]);
    }
    tsr_tensor_release(y);
    tsr_tensor_release(x);
  }
}

/* ---- copy_ ------------------------------------------------------------------ */

/* arange-style bases of gen_layout.py, built in float64 and converted (the
 * values are exact in every dtype used). */
static tsr_tensor* copy_base(int64_t n, tsr_dtype dtype, int is_src) {
  double* v = malloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == TSR_BOOL) v[i] = is_src ? (i % 3 == 0) : (i % 2 == 1);
    else if (!is_src) v[i] = (double)i;
    else if (dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16 || dtype == TSR_FLOAT32 ||
             dtype == TSR_FLOAT64)
      v[i] = (double)i * 0.75 - 2.5;
    else v[i] = (double)(i - 3);
  }
  tsr_tensor *f, *t;
  TSR_ASSERT_OK(tsr_from_data(v, sizeof(double) * (size_t)n, 1, &n, TSR_FLOAT64, &f));
  TSR_ASSERT_OK(tsr_to_dtype(f, dtype, &t));
  tsr_tensor_release(f);
  free(v);
  return t;
}

enum copy_group { COPY_SEPARATE, COPY_SAME_STORAGE, COPY_ORDER_DEPENDENT };

static void run_copy_case(const tsr_gl_copy* c) {
  tsr_tensor* dbase = copy_base(c->dst_base_numel, c->dst_dtype, 0);
  double* before = values_of(dbase);
  tsr_tensor* sbase = c->same_storage ? (tsr_tensor_retain(dbase), dbase)
                                      : copy_base(c->src_base_numel, c->src_dtype, 1);
  tsr_tensor* dst = strided(dbase, c->dst_ndim, c->dst_sizes, c->dst_strides, c->dst_offset);
  tsr_tensor* src = strided(sbase, c->src_ndim, c->src_sizes, c->src_strides, c->src_offset);
  int64_t v0 = tsr_version(dst);
  tsr_clear_last_error();
  tsr_status st = tsr_copy_(dst, src);
  double* after = values_of(dbase);
  if (c->error) {
    cr_expect_neq(st, TSR_OK, "%s: PyTorch raises, tessera returned TSR_OK", c->name);
    for (int64_t i = 0; i < c->dst_base_numel; ++i)
      cr_expect_eq(after[i], before[i], "%s: failed copy_ changed element %lld", c->name,
                   (long long)i);
    if (st != TSR_OK) cr_expect_eq(tsr_version(dst), v0, "%s: version bumped on failure", c->name);
  } else if (c->order_dependent) {
    /* torch copies these element by element in its loop order, so its
     * result depends on that order (and is undefined by its docs). tessera
     * reads all of src before writing: the result equals copying from a
     * clone of src, which the test computes on a second copy of the base. */
    cr_expect_eq(st, TSR_OK, "%s: %s", c->name, tsr_last_error_message());
    tsr_tensor* ebase = copy_base(c->dst_base_numel, c->dst_dtype, 0);
    tsr_tensor* edst = strided(ebase, c->dst_ndim, c->dst_sizes, c->dst_strides, c->dst_offset);
    tsr_tensor* esbase = c->same_storage ? (tsr_tensor_retain(ebase), ebase)
                                         : copy_base(c->src_base_numel, c->src_dtype, 1);
    tsr_tensor* esrc = strided(esbase, c->src_ndim, c->src_sizes, c->src_strides, c->src_offset);
    tsr_tensor* snapshot;
    TSR_ASSERT_OK(tsr_clone(esrc, TSR_CONTIGUOUS_FORMAT, &snapshot));
    TSR_ASSERT_OK(tsr_copy_(edst, snapshot));
    double* expect = values_of(ebase);
    for (int64_t i = 0; st == TSR_OK && i < c->dst_base_numel; ++i)
      cr_expect_eq(after[i], expect[i], "%s: storage[%lld] = %g, expected %g", c->name,
                   (long long)i, after[i], expect[i]);
    free(expect);
    tsr_tensor_release(snapshot);
    tsr_tensor_release(esrc);
    tsr_tensor_release(esbase);
    tsr_tensor_release(edst);
    tsr_tensor_release(ebase);
  } else {
    cr_expect_eq(st, TSR_OK, "%s: %s", c->name, tsr_last_error_message());
    for (int64_t i = 0; st == TSR_OK && i < c->dst_base_numel; ++i)
      cr_expect_eq(after[i], c->dst_after[i], "%s: storage[%lld] = %g, torch %g", c->name,
                   (long long)i, after[i], c->dst_after[i]);
    if (st == TSR_OK) cr_expect_eq(tsr_version(dst), v0 + 1, "%s: version not bumped", c->name);
  }
  free(before);
  free(after);
  tsr_tensor_release(src);
  tsr_tensor_release(dst);
  tsr_tensor_release(sbase);
  tsr_tensor_release(dbase);
}

static void run_copies(enum copy_group g) {
  int ran = 0;
  for (size_t i = 0; i < TSR_GL_NCOPIES; ++i) {
    const tsr_gl_copy* c = &tsr_gl_copies[i];
    enum copy_group cg = c->order_dependent ? COPY_ORDER_DEPENDENT
                         : c->same_storage  ? COPY_SAME_STORAGE
                                            : COPY_SEPARATE;
    if (cg != g) continue;
    run_copy_case(c);
    ++ran;
  }
  cr_assert_gt(ran, 0);
}

Test(layout_golden, copy_broadcasts_and_converts) { run_copies(COPY_SEPARATE); }
Test(layout_golden, copy_between_views_of_one_storage) { run_copies(COPY_SAME_STORAGE); }
/* Non-dense operands that overlap ("TOO_HARD" for ATen): torch copies
 * element by element, so its result depends on its loop order; tessera
 * reads all of src first (see tsr_copy_ in layout.h). */
Test(layout_golden, copy_order_dependent_overlap_reads_src_first) { run_copies(COPY_ORDER_DEPENDENT); }

/* ---- explicit cases ----------------------------------------------------------- */

/* x = torch.empty(10, 3, 32, 32).to(memory_format=torch.channels_last):
 * x.stride() == (3072, 1, 96, 3), shape unchanged. */
Test(layout, seed_channels_last_strides) {
  const int64_t s[] = {10, 3, 32, 32}, want[] = {3072, 1, 96, 3};
  tsr_tensor *x, *y, *e;
  TSR_ASSERT_OK(tsr_empty(4, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_contiguous(x, TSR_CHANNELS_LAST, &y));
  tsr_assert_geometry(y, 4, s, want);
  TSR_ASSERT_OK(tsr_empty(4, s, TSR_FLOAT32, TSR_CHANNELS_LAST, TSR_CPU, &e));
  tsr_assert_geometry(e, 4, s, want);
  bool c = false;
  TSR_ASSERT_OK(tsr_is_contiguous(y, TSR_CHANNELS_LAST, &c));
  cr_assert(c);
  TSR_ASSERT_OK(tsr_is_contiguous(y, TSR_CONTIGUOUS_FORMAT, &c));
  cr_assert(!c);
  tsr_memory_format f;
  TSR_ASSERT_OK(tsr_suggest_memory_format(y, &f));
  cr_assert_eq(f, TSR_CHANNELS_LAST);
  tsr_tensor_release(e);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

/* contiguous() of a contiguous tensor is that tensor: torch returns self. */
Test(layout, contiguous_of_contiguous_is_the_same_tensor) {
  const int64_t s[] = {2, 3};
  tsr_tensor *x, *y;
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_CPU, &x));
  TSR_ASSERT_OK(tsr_contiguous(x, TSR_CONTIGUOUS_FORMAT, &y));
  cr_assert(shares(x, y));
  cr_assert_eq(tsr_tensor_data_ptr(x), tsr_tensor_data_ptr(y));
  /* a write through one shows in the other */
  const int64_t i[] = {1, 2};
  TSR_ASSERT_OK(tsr_set_double(y, 2, i, 4.5));
  double v = 0;
  TSR_ASSERT_OK(tsr_get_double(x, 2, i, &v));
  cr_assert_eq(v, 4.5);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

/* torch.zeros(5).expand(3, 5).copy_(torch.ones(3, 5)) raises
 * "unsupported operation: more than one element of the written-to tensor
 * refers to a single memory location. Please clone() the tensor before
 * performing the operation." and leaves the storage alone. */
Test(layout, copy_into_expanded_tensor_fails) {
  const int64_t five[] = {5}, s35[] = {3, 5};
  tsr_tensor *z, *e, *o;
  TSR_ASSERT_OK(tsr_zeros(1, five, TSR_FLOAT32, TSR_CPU, &z));
  TSR_ASSERT_OK(tsr_expand(z, 2, s35, &e));
  TSR_ASSERT_OK(tsr_ones(2, s35, TSR_FLOAT32, TSR_CPU, &o));
  int64_t v0 = tsr_version(z);
  TSR_ASSERT_FAILS(tsr_copy_(e, o), TSR_ERR_INVALID_ARGUMENT,
                   "more than one element of the written-to tensor refers to a single memory "
                   "location");
  float got[5];
  TSR_ASSERT_OK(tsr_copy_to_buffer(z, got, sizeof got, NULL));
  for (int i = 0; i < 5; ++i) cr_assert_eq(got[i], 0.0f);
  cr_assert_eq(tsr_version(z), v0);
  tsr_tensor_release(o);
  tsr_tensor_release(e);
  tsr_tensor_release(z);
}

/* torch.zeros(2, 3).copy_(torch.zeros(2)) raises "The size of tensor a (3)
 * must match the size of tensor b (2) at non-singleton dimension 1"; tessera
 * words it as expand does ("The expanded size of the tensor (3) must match
 * the existing size (2) ..."), so only the common part is checked. */
Test(layout, copy_of_non_broadcastable_source_is_a_shape_mismatch) {
  const int64_t s23[] = {2, 3}, two[] = {2};
  tsr_tensor *d, *s;
  TSR_ASSERT_OK(tsr_zeros(2, s23, TSR_FLOAT32, TSR_CPU, &d));
  TSR_ASSERT_OK(tsr_ones(1, two, TSR_FLOAT32, TSR_CPU, &s));
  TSR_ASSERT_FAILS(tsr_copy_(d, s), TSR_ERR_SHAPE_MISMATCH, "must match");
  cr_assert(strstr(tsr_last_error_message(), "(3)") && strstr(tsr_last_error_message(), "(2)"),
            "message lacks the sizes: %s", tsr_last_error_message());
  tsr_tensor_release(s);
  tsr_tensor_release(d);
}

/* b = torch.arange(10.); b[2:8].copy_(b[0:6]) raises "unsupported operation:
 * some elements of the input tensor and the written-to tensor refer to a
 * single memory location" (ATen's assert_no_partial_overlap for dense
 * operands) and leaves b alone. */
Test(layout, copy_between_partially_overlapping_dense_views_fails_like_torch) {
  tsr_tensor* b;
  TSR_ASSERT_OK(tsr_arange(0, 10, 1, TSR_FLOAT64, TSR_CPU, &b));
  const int64_t six[] = {6}, one[] = {1};
  tsr_tensor* dst = strided(b, 1, six, one, 2);
  tsr_tensor* src = strided(b, 1, six, one, 0);
  TSR_ASSERT_FAILS(tsr_copy_(dst, src), TSR_ERR_INVALID_ARGUMENT,
                   "some elements of the input tensor and the written-to tensor refer to a "
                   "single memory location");
  double* v = values_of(b);
  for (int i = 0; i < 10; ++i) cr_assert_eq(v[i], (double)i);
  free(v);
  tsr_tensor_release(src);
  tsr_tensor_release(dst);
  tsr_tensor_release(b);
}
