/* tsr_set_num_threads / tsr_get_num_threads (torch.set_num_threads). */
#include "helpers.h"

/* a [64, 48] @ b [48, 32] with values from arange, as doubles. */
static void product(double* out) {
  const int64_t sa[] = {64, 48}, sb[] = {48, 32};
  tsr_tensor *fa, *fb, *a, *b, *c;
  TSR_ASSERT_OK(tsr_arange(0, 64 * 48, 1, TSR_FLOAT64, TSR_CPU, &fa));
  TSR_ASSERT_OK(tsr_arange(0, 48 * 32, 1, TSR_FLOAT64, TSR_CPU, &fb));
  TSR_ASSERT_OK(tsr_view(fa, 2, sa, &a));
  TSR_ASSERT_OK(tsr_view(fb, 2, sb, &b));
  TSR_ASSERT_OK(tsr_matmul(a, b, &c));
  TSR_ASSERT_OK(tsr_copy_to_buffer(c, out, 64 * 32 * sizeof(double), NULL));
  tsr_tensor* all[] = {fa, fb, a, b, c};
  for (int i = 0; i < 5; ++i) tsr_tensor_release(all[i]);
}

Test(parallel, set_and_get_num_threads) {
  const int64_t before = tsr_get_num_threads();
  cr_assert_geq(before, 1);
  static double one[64 * 32], two[64 * 32];
  TSR_ASSERT_OK(tsr_set_num_threads(1));
  cr_expect_eq(tsr_get_num_threads(), 1);
  product(one);
  /* Two threads where the default gave at least two (OpenBLAS caps the
   * count at the machine's). */
  const int64_t many = before >= 2 ? 2 : 1;
  TSR_ASSERT_OK(tsr_set_num_threads(many));
  cr_expect_eq(tsr_get_num_threads(), many);
  product(two);
  cr_expect(memcmp(one, two, sizeof one) == 0, "an integer-valued product is exact on any thread count");
  TSR_ASSERT_FAILS(tsr_set_num_threads(0), TSR_ERR_INVALID_ARGUMENT, "set_num_threads expects a positive integer");
  TSR_ASSERT_FAILS(tsr_set_num_threads(-3), TSR_ERR_INVALID_ARGUMENT, "got -3");
  TSR_ASSERT_FAILS(tsr_set_num_threads(1 << 20), TSR_ERR_INVALID_ARGUMENT, "more than 1024");
  cr_expect_eq(tsr_get_num_threads(), many, "a refused count changes nothing");
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}
