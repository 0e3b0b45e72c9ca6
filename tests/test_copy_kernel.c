/* The tiled transpose path of contiguous()/clone(): ragged sizes around the
 * blocks (32 source rows of 2048 bytes, or 128 of 1024 for the streamed
 * AVX-512 tiles; taller for shorter rows; one block for tiles of at most
 * 16 KiB) and 8x8 / 4x4 / 16x16 register tiles, every element size,
 * 2-D transposes and 3-D/4-D permutes, checked element by element against
 * the source read through its own strides. Large copies (past the
 * streaming-store threshold: output plus source over the last-level cache)
 * are checked against arange's values computed here. */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const tsr_dtype kDtypes[] = {TSR_UINT8, TSR_INT16, TSR_BFLOAT16, TSR_FLOAT32, TSR_INT32,
                                    TSR_FLOAT64, TSR_INT64};

/* x = arange(n) in dtype (values wrap for small types, which is fine: the
 * check compares against the source itself). */
static tsr_tensor* arange_as(int64_t n, tsr_dtype dtype) {
  tsr_tensor *a, *b;
  TSR_ASSERT_OK(tsr_arange(0, (double)n, 1, TSR_INT64, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_to_dtype(a, dtype, &b));
  tsr_tensor_release(a);
  return b;
}

/* Every element of c (contiguous) equals the same index of src. */
static void assert_same_elements(const tsr_tensor* c, const tsr_tensor* src) {
  int64_t n = tsr_tensor_ndim(src), numel = tsr_tensor_numel(src);
  const int64_t* sizes = tsr_tensor_sizes(src);
  int64_t idx[8] = {0};
  for (int64_t k = 0; k < numel; ++k) {
    int64_t rem = k;
    for (int64_t d = n - 1; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    double a, b;
    TSR_ASSERT_OK(tsr_get_double(c, n, idx, &a));
    TSR_ASSERT_OK(tsr_get_double(src, n, idx, &b));
    cr_assert(a == b || (a != a && b != b), "element %lld differs: %g vs %g", (long long)k, a, b);
  }
}

Test(copy_kernel, ragged_transposes_every_element_size) {
  /* {67, 2100}: whole 32 x 2048-byte blocks (which prefetch the next one)
   * for every element size, then ragged ones in both directions. {512, 515}:
   * destination rows of 512 elements, 2 or 4 KiB apart for 4- and 8-byte
   * elements and over 1 MiB in all; {600, 1001} and {768, 700}: 2 MiB or
   * more for 4-byte elements, rows 2400 and 3072 bytes apart (the second
   * 64-byte aligned: AVX-512 tiles where the CPU has them). All take
   * streaming stores below the last-level cache too (copy.cpp,
   * stream_tiled_destination). */
  const int64_t shapes[][2] = {{16, 16}, {17, 33}, {129, 130}, {131, 8}, {257, 19}, {64, 200}, {67, 2100},
                               {512, 515}, {600, 1001}, {768, 700}};
  for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; ++di)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
      tsr_tensor *x = arange_as(shapes[si][0] * shapes[si][1], kDtypes[di]), *m, *t, *c;
      TSR_ASSERT_OK(tsr_view(x, 2, shapes[si], &m));
      TSR_ASSERT_OK(tsr_t(m, &t));
      TSR_ASSERT_OK(tsr_contiguous(t, TSR_CONTIGUOUS_FORMAT, &c));
      bool cont = false;
      TSR_ASSERT_OK(tsr_is_contiguous(c, TSR_CONTIGUOUS_FORMAT, &cont));
      cr_assert(cont);
      assert_same_elements(c, t);
      tsr_tensor_release(c);
      tsr_tensor_release(t);
      tsr_tensor_release(m);
      tsr_tensor_release(x);
    }
}

Test(copy_kernel, permutes_and_channels_last_with_ragged_sizes) {
  const int64_t sizes[4] = {3, 21, 19, 17};
  const int64_t perm3[3] = {2, 0, 1};
  for (size_t di = 0; di < sizeof kDtypes / sizeof kDtypes[0]; ++di) {
    tsr_tensor *x = arange_as(3 * 21 * 19 * 17, kDtypes[di]), *v, *cl, *p3, *v3, *c3;
    TSR_ASSERT_OK(tsr_view(x, 4, sizes, &v));
    TSR_ASSERT_OK(tsr_contiguous(v, TSR_CHANNELS_LAST, &cl));
    bool is_cl = false;
    TSR_ASSERT_OK(tsr_is_contiguous(cl, TSR_CHANNELS_LAST, &is_cl));
    cr_assert(is_cl);
    assert_same_elements(cl, v);
    const int64_t s3[3] = {63, 19, 17};
    TSR_ASSERT_OK(tsr_view(x, 3, s3, &v3));
    TSR_ASSERT_OK(tsr_permute(v3, 3, perm3, &p3));
    TSR_ASSERT_OK(tsr_contiguous(p3, TSR_CONTIGUOUS_FORMAT, &c3));
    assert_same_elements(c3, p3);
    tsr_tensor* all[] = {x, v, cl, p3, v3, c3};
    for (int i = 0; i < 6; ++i) tsr_tensor_release(all[i]);
  }
}

/* Large copies, element sizes 1/2/4/8: c (any layout) must hold, at every
 * index, the integer value of x = arange(numel) (cast to c's integer dtype,
 * two's complement wrap; float32 holds it exactly below 2^24) at src's
 * element for that index. src is a view of x; x_base is x's data pointer. */
static void assert_arange_copy(const tsr_tensor* c, const tsr_tensor* src, const void* x_base) {
  const int64_t n = tsr_tensor_ndim(c), numel = tsr_tensor_numel(c), es = tsr_tensor_element_size(c);
  const int64_t *sizes = tsr_tensor_sizes(c), *cs = tsr_tensor_strides(c), *ss = tsr_tensor_strides(src);
  const int64_t s0 = ((const char*)tsr_tensor_data_ptr(src) - (const char*)x_base) / es;
  const unsigned char* cp = tsr_tensor_data_ptr(c);
  const bool f32 = tsr_tensor_dtype(c) == TSR_FLOAT32;
  int64_t idx[8] = {0}, co = 0, so = s0;
  for (int64_t k = 0; k < numel; ++k) {
    uint64_t got = 0, want;
    memcpy(&got, cp + co * es, (size_t)es); /* little endian: the low es bytes */
    if (f32) {
      const float f = (float)so;
      uint32_t bits;
      memcpy(&bits, &f, 4);
      want = bits;
    } else {
      want = es == 8 ? (uint64_t)so : (uint64_t)so & ((UINT64_C(1) << (8 * es)) - 1);
    }
    if (got != want)
      cr_assert_fail("%s element %lld (source offset %lld): got %llu, want %llu", tsr_dtype_name(tsr_tensor_dtype(c)),
               (long long)k, (long long)so, (unsigned long long)got, (unsigned long long)want);
    for (int64_t d = n - 1; d >= 0; --d) { /* odometer over c's C-order index */
      co += cs[d];
      so += ss[d];
      if (++idx[d] < sizes[d]) break;
      co -= cs[d] * sizes[d];
      so -= ss[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

/* contiguous() of the transpose of x viewed as [r, c] after dropping
 * `skip` leading elements (an unaligned source), into a fresh tensor, into
 * the [c, r] columns 1.. of a [c, r + 1] buffer (an unaligned destination
 * whose row stride is no multiple of 32 bytes), and into the columns 0..r-1
 * of a [c, r rounded up to 16] buffer (64-byte aligned rows for 4-byte
 * elements, so float32 and int32 past the threshold take the AVX-512 16x16
 * tiles where the CPU has them, with r ragged to the tiles). */
static void check_large_transpose(tsr_dtype dt, int64_t r, int64_t c, int64_t skip) {
  tsr_tensor *x = arange_as(r * c + skip, dt), *flat, *m, *t, *out, *buf, *dst, *buf16, *dst16;
  TSR_ASSERT_OK(tsr_narrow(x, 0, skip, r * c, &flat));
  const int64_t rc[2] = {r, c}, wide[2] = {c, r + 1}, rows16[2] = {c, (r + 15) / 16 * 16};
  TSR_ASSERT_OK(tsr_view(flat, 2, rc, &m));
  TSR_ASSERT_OK(tsr_t(m, &t));
  TSR_ASSERT_OK(tsr_contiguous(t, TSR_CONTIGUOUS_FORMAT, &out));
  assert_arange_copy(out, t, tsr_tensor_data_ptr(x));
  TSR_ASSERT_OK(tsr_zeros(2, wide, dt, TSR_CPU, &buf));
  TSR_ASSERT_OK(tsr_narrow(buf, 1, 1, r, &dst));
  TSR_ASSERT_OK(tsr_copy_(dst, t));
  assert_arange_copy(dst, t, tsr_tensor_data_ptr(x));
  TSR_ASSERT_OK(tsr_zeros(2, rows16, dt, TSR_CPU, &buf16));
  TSR_ASSERT_OK(tsr_narrow(buf16, 1, 0, r, &dst16));
  TSR_ASSERT_OK(tsr_copy_(dst16, t));
  assert_arange_copy(dst16, t, tsr_tensor_data_ptr(x));
  tsr_tensor* all[] = {x, flat, m, t, out, buf, dst, buf16, dst16};
  for (int i = 0; i < 9; ++i) tsr_tensor_release(all[i]);
}

/* Transposes whose source plus destination (2 x 33-41 MB) exceed a 32 MiB
 * last-level cache, so they take the streaming stores, with ragged sizes
 * (no multiple of the blocks nor of the 8x8 / 4x4 / 16x16 tiles; 2896 rows
 * make a contiguous float32 result 64-byte aligned) for every element
 * size, aligned and unaligned sources and destinations; and the same
 * shapes' small cousins below the threshold (cached stores). */
Test(copy_kernel, transposes_above_and_below_the_streaming_threshold, .timeout = 120) {
  struct {
    tsr_dtype dt;
    int64_t r, c;
  } big[] = {{TSR_UINT8, 4103, 5003}, {TSR_INT16, 3001, 3007}, {TSR_FLOAT32, 2901, 2903},
             {TSR_FLOAT32, 2896, 2903}, {TSR_INT32, 2053, 4111}, {TSR_INT64, 2053, 2111}};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; ++i)
    for (int64_t skip = 0; skip < 2; ++skip) {
      check_large_transpose(big[i].dt, big[i].r, big[i].c, skip);
      check_large_transpose(big[i].dt, big[i].r / 16 + 3, big[i].c / 16 + 1, skip);
    }
}

/* channels_last and a 5-D permute past the threshold: a [5,67,123,127]
 * int32 tensor (20.9 MB, under a 32 MiB cache alone; with its source over
 * it) both ways, and permute(0,2,4,1,3) of [6,33,31,35,29] float32. */
Test(copy_kernel, channels_last_and_permutes_past_the_threshold, .timeout = 120) {
  const int64_t s4[4] = {5, 67, 123, 127};
  tsr_tensor *x = arange_as(5 * 67 * 123 * 127, TSR_INT32), *v, *cl, *back;
  TSR_ASSERT_OK(tsr_view(x, 4, s4, &v));
  TSR_ASSERT_OK(tsr_contiguous(v, TSR_CHANNELS_LAST, &cl));
  assert_arange_copy(cl, v, tsr_tensor_data_ptr(x));
  TSR_ASSERT_OK(tsr_contiguous(cl, TSR_CONTIGUOUS_FORMAT, &back));
  assert_arange_copy(back, v, tsr_tensor_data_ptr(x));
  const int64_t s5[5] = {6, 33, 31, 35, 29}, perm[5] = {0, 2, 4, 1, 3};
  tsr_tensor *y = arange_as(6 * 33 * 31 * 35 * 29, TSR_FLOAT32), *v5, *p5, *c5;
  TSR_ASSERT_OK(tsr_view(y, 5, s5, &v5));
  TSR_ASSERT_OK(tsr_permute(v5, 5, perm, &p5));
  TSR_ASSERT_OK(tsr_contiguous(p5, TSR_CONTIGUOUS_FORMAT, &c5));
  assert_arange_copy(c5, p5, tsr_tensor_data_ptr(y));
  tsr_tensor* all[] = {x, v, cl, back, y, v5, p5, c5};
  for (int i = 0; i < 8; ++i) tsr_tensor_release(all[i]);
}
