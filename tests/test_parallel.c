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

/* A float32 product split over threads (matmul cuts the output's rows into
 * blocks, each one OpenBLAS gemm) is bit-identical to the one-thread one:
 * every element is summed over k in the same order. */
static void random_product(int64_t threads, const int64_t* sa, const int64_t* sb, float* out,
                           size_t nbytes) {
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  tsr_tensor *a, *b, *c;
  TSR_ASSERT_OK(tsr_randn(2, sa, TSR_FLOAT32, g, &a));
  TSR_ASSERT_OK(tsr_randn(2, sb, TSR_FLOAT32, g, &b));
  TSR_ASSERT_OK(tsr_set_num_threads(threads));
  TSR_ASSERT_OK(tsr_matmul(a, b, &c));
  TSR_ASSERT_OK(tsr_copy_to_buffer(c, out, nbytes, NULL));
  tsr_tensor_release(c);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
  tsr_generator_release(g);
}

Test(parallel, float_gemm_same_on_any_thread_count) {
  const int64_t before = tsr_get_num_threads();
  /* examples/fashion's linear layer and its two backward products, and a
   * square one. */
  const int64_t shapes[][3] = {{64, 3136, 10}, {10, 64, 3136}, {64, 10, 3136}, {300, 200, 250}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    const int64_t sa[] = {shapes[s][0], shapes[s][1]}, sb[] = {shapes[s][1], shapes[s][2]};
    const size_t nbytes = (size_t)(shapes[s][0] * shapes[s][2]) * sizeof(float);
    float* one = malloc(nbytes);
    float* more = malloc(nbytes);
    random_product(1, sa, sb, one, nbytes);
    for (int64_t threads = 2; threads <= 4; ++threads) {
      random_product(threads, sa, sb, more, nbytes);
      cr_expect(memcmp(one, more, nbytes) == 0, "%ldx%ldx%ld on %ld threads", (long)sa[0], (long)sa[1],
                (long)sb[1], (long)threads);
    }
    free(more);
    free(one);
  }
  TSR_ASSERT_OK(tsr_set_num_threads(before));
}
