/* Copies with dtype conversion through every path of the CPU copy kernel:
 * contiguous runs (SIMD conversions), broadcast sources (stride 0 on the
 * inner and on the outer dim: fills), transposes, channels_last, step-2
 * slices, odd lengths and tails, outputs large enough for streaming stores,
 * and thread counts. The reference for each result is the per-element loop:
 * the same conversion done between two step-2 views, whose strides keep it
 * off every vectorized or blocked path. */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"

static const tsr_dtype kAll[] = {TSR_BOOL,    TSR_UINT8,    TSR_INT8,    TSR_INT16,
                                 TSR_INT32,   TSR_INT64,    TSR_FLOAT16, TSR_BFLOAT16,
                                 TSR_FLOAT32, TSR_FLOAT64};
#define NDT (sizeof kAll / sizeof kAll[0])

/* Values of every kind (specials, signed zeros, subnormals of each float
 * type, ties of each rounding, out-of-range for each integer type), then a
 * ramp; element i of a source of n is value i % count. */
static double value_at(int64_t i) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.0, 128.0,
                                   255.0, 256.0, -129.0, 32767.5, 65504.0, 65520.0, 1e10, -1e10,
                                   3e9, -3e9, 9.3e18, -9.3e18, 1e300, -1e300, 1e-300,
                                   5.9604644775390625e-08, 2.98023223876953125e-08, 1e-45,
                                   -1e-45, 1.0000000596046448, 1.0009765625 + 0.00048828125,
                                   1.00390625 + 0.001953125};
  const int64_t ns = (int64_t)(sizeof special / sizeof special[0]);
  const int64_t k = i % (ns + 4 + 97);
  if (k < ns) return special[k];
  if (k == ns) return INFINITY;
  if (k == ns + 1) return -INFINITY;
  if (k == ns + 2) return NAN;
  if (k == ns + 3) return -NAN;
  return ldexp(1.0 + (double)(k % 7) / 7.0, (int)(k % 61) - 30) * (k % 3 ? 1.0 : -1.0);
}

/* A contiguous [n] tensor of dtype holding value_at(0..n-1). */
static tsr_tensor* values(int64_t n, tsr_dtype dtype) {
  double* buf = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; ++i) buf[i] = value_at(i);
  tsr_tensor *d, *t;
  TSR_ASSERT_OK(tsr_from_data(buf, (size_t)n * sizeof(double), 1, &n, TSR_FLOAT64, &d));
  free(buf);
  TSR_ASSERT_OK(tsr_to_dtype(d, dtype, &t));
  tsr_tensor_release(d);
  return t;
}

/* The [m] view with stride 2 of a fresh [m, 2] tensor of dtype. */
static tsr_tensor* step2(int64_t m, tsr_dtype dtype, tsr_tensor** owner) {
  const int64_t s[2] = {m, 2};
  tsr_tensor* v;
  TSR_ASSERT_OK(tsr_empty(2, s, dtype, TSR_CONTIGUOUS_FORMAT, TSR_CPU, owner));
  TSR_ASSERT_OK(tsr_select(*owner, 1, 0, &v));
  return v;
}

/* The reference: x (any layout) converted to dtype by the per-element loop,
 * as a contiguous tensor of x's shape. */
static tsr_tensor* reference(const tsr_tensor* x, tsr_dtype dtype) {
  const int64_t n = tsr_tensor_numel(x);
  tsr_tensor *flat, *xc, *so, *s2, *do_, *d2, *dc, *out;
  TSR_ASSERT_OK(tsr_contiguous(x, TSR_CONTIGUOUS_FORMAT, &xc));  /* same dtype: exact */
  TSR_ASSERT_OK(tsr_reshape(xc, 1, &n, &flat));
  s2 = step2(n, tsr_tensor_dtype(x), &so);
  d2 = step2(n, dtype, &do_);
  TSR_ASSERT_OK(tsr_copy_(s2, flat));
  TSR_ASSERT_OK(tsr_copy_(d2, s2));
  TSR_ASSERT_OK(tsr_contiguous(d2, TSR_CONTIGUOUS_FORMAT, &dc));
  TSR_ASSERT_OK(tsr_reshape(dc, tsr_tensor_ndim(x), tsr_tensor_sizes(x), &out));
  tsr_tensor* all[] = {flat, xc, so, s2, do_, d2, dc};
  for (int i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
  return out;
}

/* a and b hold the same bytes in C order (b contiguous). */
static void assert_same_bytes(const tsr_tensor* a, const tsr_tensor* b, const char* what,
                              tsr_dtype to, tsr_dtype from) {
  tsr_tensor* ac;
  TSR_ASSERT_OK(tsr_contiguous(a, TSR_CONTIGUOUS_FORMAT, &ac));
  cr_assert_eq(tsr_tensor_nbytes(ac), tsr_tensor_nbytes(b));
  const unsigned char *p = tsr_tensor_data_ptr(ac), *q = tsr_tensor_data_ptr(b);
  const int64_t es = tsr_tensor_element_size(b);
  for (int64_t i = 0; i < tsr_tensor_nbytes(b); ++i)
    cr_assert_eq(p[i], q[i], "%s %s -> %s: element %lld differs", what, tsr_dtype_name(from),
                 tsr_dtype_name(to), (long long)(i / es));
  tsr_tensor_release(ac);
}

/* copy_ of src (any layout) into a fresh dst of dtype `to` and memory
 * format fmt, checked against the reference. */
static void check_copy(const tsr_tensor* src, tsr_dtype to, tsr_memory_format fmt, const char* what) {
  tsr_tensor *dst, *ref = reference(src, to);
  TSR_ASSERT_OK(tsr_empty(tsr_tensor_ndim(src), tsr_tensor_sizes(src), to, fmt, TSR_CPU, &dst));
  TSR_ASSERT_OK(tsr_copy_(dst, src));
  assert_same_bytes(dst, ref, what, to, tsr_tensor_dtype(src));
  tsr_tensor_release(dst);
  tsr_tensor_release(ref);
}

Test(copy_convert, every_pair_contiguous_with_odd_lengths) {
  const int64_t lengths[] = {1, 7, 33, 1000003};
  for (size_t f = 0; f < NDT; ++f)
    for (size_t li = 0; li < 4; ++li) {
      tsr_tensor* x = values(lengths[li], kAll[f]);
      for (size_t t = 0; t < NDT; ++t) check_copy(x, kAll[t], TSR_CONTIGUOUS_FORMAT, "contiguous");
      tsr_tensor_release(x);
    }
}

Test(copy_convert, every_pair_transposed_sliced_and_channels_last) {
  for (size_t f = 0; f < NDT; ++f) {
    tsr_tensor *x = values(33 * 66, kAll[f]), *m, *tr, *sl, *v4, *cl;
    const int64_t s2[2] = {33, 66}, s4[4] = {3, 5, 7, 9};
    TSR_ASSERT_OK(tsr_view(x, 2, s2, &m));
    TSR_ASSERT_OK(tsr_t(m, &tr));
    TSR_ASSERT_OK(tsr_slice(m, 1, 0, 66, 2, &sl)); /* x[:, ::2] */
    tsr_tensor* x4 = values(3 * 5 * 7 * 9, kAll[f]);
    TSR_ASSERT_OK(tsr_view(x4, 4, s4, &v4));
    TSR_ASSERT_OK(tsr_contiguous(v4, TSR_CHANNELS_LAST, &cl));
    for (size_t t = 0; t < NDT; ++t) {
      check_copy(tr, kAll[t], TSR_CONTIGUOUS_FORMAT, "transposed");
      check_copy(sl, kAll[t], TSR_CONTIGUOUS_FORMAT, "step-2 slice");
      check_copy(v4, kAll[t], TSR_CHANNELS_LAST, "contiguous -> channels_last");
      check_copy(cl, kAll[t], TSR_CONTIGUOUS_FORMAT, "channels_last -> contiguous");
    }
    tsr_tensor* all[] = {x, m, tr, sl, x4, v4, cl};
    for (int i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
  }
}

/* expand of [r, 1] (stride 0 on the inner dim: each row a fill) and of
 * [1, c] (stride 0 on the outer dim: one row copied r times). */
static void check_broadcasts(int64_t r, int64_t c, const tsr_dtype* tos, size_t nto,
                             const tsr_dtype* froms, size_t nfrom) {
  for (size_t f = 0; f < nfrom; ++f) {
    tsr_tensor *col = values(r, froms[f]), *row = values(c, froms[f]), *cv, *rv, *ce, *re;
    const int64_t sc[2] = {r, 1}, sr[2] = {1, c}, full[2] = {r, c};
    TSR_ASSERT_OK(tsr_view(col, 2, sc, &cv));
    TSR_ASSERT_OK(tsr_view(row, 2, sr, &rv));
    TSR_ASSERT_OK(tsr_expand(cv, 2, full, &ce));
    TSR_ASSERT_OK(tsr_expand(rv, 2, full, &re));
    for (size_t t = 0; t < nto; ++t) {
      check_copy(ce, tos[t], TSR_CONTIGUOUS_FORMAT, "expand [r,1]");
      check_copy(re, tos[t], TSR_CONTIGUOUS_FORMAT, "expand [1,c]");
    }
    tsr_tensor* all[] = {col, row, cv, rv, ce, re};
    for (int i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  }
}

Test(copy_convert, every_pair_broadcast_inner_and_outer) {
  check_broadcasts(37, 53, kAll, NDT, kAll, NDT);
  check_broadcasts(1, 1000003, kAll, NDT, kAll, NDT);
}

/* Outputs over 32 MiB (past this machine's last-level cache): the
 * streaming-store variants of the fill, the contiguous conversions and
 * copies, and the transpose. */
Test(copy_convert, outputs_larger_than_the_last_level_cache) {
  const tsr_dtype floats[] = {TSR_FLOAT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_FLOAT64};
  const tsr_dtype f32[] = {TSR_FLOAT32};
  check_broadcasts(2053, 4099, f32, 1, floats, 4);
  tsr_tensor* x = values(9000011, TSR_FLOAT32);
  for (size_t t = 0; t < 4; ++t) check_copy(x, floats[t], TSR_CONTIGUOUS_FORMAT, "large contiguous");
  tsr_tensor* h = values(9000011, TSR_FLOAT16);
  check_copy(h, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, "large contiguous");
  tsr_tensor *sq = values(2901 * 2901, TSR_FLOAT32), *m, *tr;
  const int64_t s2[2] = {2901, 2901};
  TSR_ASSERT_OK(tsr_view(sq, 2, s2, &m));
  TSR_ASSERT_OK(tsr_t(m, &tr));
  check_copy(tr, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, "large transpose");
  tsr_tensor* all[] = {x, h, sq, m, tr};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

/* The same copies on 1, 2 and 3 threads give the same bytes. */
Test(copy_convert, results_do_not_depend_on_the_thread_count) {
  const int64_t before = tsr_get_num_threads();
  tsr_tensor *x = values(1000003, TSR_FLOAT32), *sq = values(1031 * 1029, TSR_BFLOAT16), *m, *tr,
             *col = values(1031, TSR_INT32), *cv, *ce;
  const int64_t s2[2] = {1031, 1029}, sc[2] = {1031, 1}, full[2] = {1031, 1029};
  TSR_ASSERT_OK(tsr_view(sq, 2, s2, &m));
  TSR_ASSERT_OK(tsr_t(m, &tr));
  TSR_ASSERT_OK(tsr_view(col, 2, sc, &cv));
  TSR_ASSERT_OK(tsr_expand(cv, 2, full, &ce));
  const tsr_tensor* srcs[] = {x, x, tr, ce};
  const tsr_dtype tos[] = {TSR_FLOAT16, TSR_INT64, TSR_BFLOAT16, TSR_FLOAT32};
  for (int c = 0; c < 4; ++c) {
    tsr_tensor* one = NULL;
    for (int64_t threads = 1; threads <= 3; ++threads) {
      TSR_ASSERT_OK(tsr_set_num_threads(threads));
      tsr_tensor* out;
      TSR_ASSERT_OK(tsr_empty(tsr_tensor_ndim(srcs[c]), tsr_tensor_sizes(srcs[c]), tos[c],
                              TSR_CONTIGUOUS_FORMAT, TSR_CPU, &out));
      TSR_ASSERT_OK(tsr_copy_(out, srcs[c]));
      if (!one) {
        one = out;
        continue;
      }
      cr_assert(memcmp(tsr_tensor_data_ptr(one), tsr_tensor_data_ptr(out),
                       (size_t)tsr_tensor_nbytes(out)) == 0,
                "case %d: %lld threads differ from 1", c, (long long)threads);
      tsr_tensor_release(out);
    }
    tsr_tensor_release(one);
  }
  TSR_ASSERT_OK(tsr_set_num_threads(before));
  tsr_tensor* all[] = {x, sq, m, tr, col, cv, ce};
  for (int i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
}

/* x[off::2] of a source whose last element is the slice's last one, for
 * every element size (bool, uint8, int16, bfloat16, float32, int64,
 * float64), lengths around every vector width and tail, offsets 0 and 1
 * (an odd start), and one long enough for streaming stores: contiguous()
 * must hold src element off + 2i at i, byte for byte. Same dtype, so this
 * takes the vector de-interleaving path (gather_even_n); the check reads
 * the source's bytes directly, not through another copy. */
Test(copy_convert, step2_slices_every_element_size_length_and_offset, .timeout = 60) {
  const tsr_dtype dts[] = {TSR_BOOL, TSR_UINT8, TSR_INT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_INT64, TSR_FLOAT64};
  const int64_t lens[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 1031, 9000011};
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; ++di)
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li)
      for (int64_t off = 0; off < 2; ++off) {
        if (lens[li] > 100000 && (off == 1 || dts[di] == TSR_BOOL)) continue; /* one large per size */
        const int64_t n = lens[li], total = off + 2 * n - 1;
        tsr_tensor *x = values(total, dts[di]), *sl, *c;
        TSR_ASSERT_OK(tsr_slice(x, 0, off, total, 2, &sl));
        cr_assert_eq(tsr_tensor_numel(sl), n);
        TSR_ASSERT_OK(tsr_contiguous(sl, TSR_CONTIGUOUS_FORMAT, &c));
        const int64_t es = tsr_tensor_element_size(x);
        const unsigned char *p = tsr_tensor_data_ptr(c), *q = tsr_tensor_data_ptr(x);
        for (int64_t i = 0; i < n; ++i)
          if (memcmp(p + i * es, q + (off + 2 * i) * es, (size_t)es) != 0)
            cr_assert_fail("%s length %lld offset %lld: element %lld differs", tsr_dtype_name(dts[di]), (long long)n,
                     (long long)off, (long long)i);
        tsr_tensor_release(c);
        tsr_tensor_release(sl);
        tsr_tensor_release(x);
      }
}

static void no_free(void* data, void* ctx) {
  (void)data;
  (void)ctx;
}

/* The de-interleaving loads read two elements per kept one; a slice whose
 * last element ends a readable page, with an unreadable page after it,
 * must be copied without touching that page (a fault here is a read past
 * src[2n - 2]). Every element size, lengths around the vector widths. */
Test(copy_convert, step2_slices_read_nothing_past_their_last_element) {
  const long page = sysconf(_SC_PAGESIZE);
  unsigned char* m = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cr_assert(m != MAP_FAILED);
  cr_assert_eq(mprotect(m + page, (size_t)page, PROT_NONE), 0);
  for (int64_t i = 0; i < page; ++i) m[i] = (unsigned char)(i * 7 + 3);
  const tsr_dtype dts[] = {TSR_UINT8, TSR_INT16, TSR_FLOAT32, TSR_FLOAT64};
  const int64_t lens[] = {2, 9, 17, 33, 65, 200};
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; ++di)
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; ++li) {
      const int64_t es = (int64_t)(dts[di] == TSR_UINT8 ? 1 : dts[di] == TSR_INT16 ? 2 : dts[di] == TSR_FLOAT32 ? 4 : 8);
      const int64_t n = lens[li], total = 2 * n - 1, stride = 2;
      unsigned char* base = m + page - total * es; /* ends at the guard page */
      tsr_tensor *sl, *c;
      TSR_ASSERT_OK(tsr_from_blob(base, 1, &n, &stride, dts[di], TSR_DEVICE_CPU, no_free, NULL, &sl));
      TSR_ASSERT_OK(tsr_contiguous(sl, TSR_CONTIGUOUS_FORMAT, &c));
      const unsigned char* p = tsr_tensor_data_ptr(c);
      for (int64_t i = 0; i < n; ++i)
        cr_assert(memcmp(p + i * es, base + 2 * i * es, (size_t)es) == 0, "%s length %lld: element %lld differs",
                  tsr_dtype_name(dts[di]), (long long)n, (long long)i);
      tsr_tensor_release(c);
      tsr_tensor_release(sl);
    }
  munmap(m, (size_t)(2 * page));
}
