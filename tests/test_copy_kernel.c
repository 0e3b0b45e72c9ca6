/* The tiled transpose path of contiguous()/clone(): ragged sizes around the
 * 128-element blocks and 8x8 / 4x4 register tiles, every element size,
 * 2-D transposes and 3-D/4-D permutes, checked element by element against
 * the source read through its own strides. */
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
  const int64_t shapes[][2] = {{16, 16}, {17, 33}, {129, 130}, {131, 8}, {257, 19}, {64, 200}};
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
