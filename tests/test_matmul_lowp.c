/* bfloat16 and float16 tsr_matmul, tsr_bmm, tsr_baddbmm and tsr_linear against
 * PyTorch (tests/golden/gen_matmul_lowp.py: torch 1.13's bfloat16 results, and
 * for float16, which torch 1.13's CPU refuses, float32 products of the
 * float16 values rounded once, as torch 2.x): values, strides, grad_fn names
 * and gradients over transposed, sliced, expanded and empty operands; results
 * that do not depend on the thread count; mixed dtypes refused with torch's
 * messages, nothing written. */
#include <stdint.h>
#include <string.h>

#include "golden/matmul_lowp_golden.h"
#include "gradcheck.h"

TG_PARAMETERIZED(matmul_lowp, bfloat16_forward, tg_lowp_bf16_fwd, TG_LOWP_BF16_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(matmul_lowp, bfloat16_grads, tg_lowp_bf16_grad, TG_LOWP_BF16_GRAD_N) { tg_check_backward(c); }
TG_PARAMETERIZED(matmul_lowp, float16_forward, tg_lowp_f16_fwd, TG_LOWP_F16_FWD_N) { tg_check_forward(c); }
TG_PARAMETERIZED(matmul_lowp, float16_grads, tg_lowp_f16_grad, TG_LOWP_F16_GRAD_N) { tg_check_backward(c); }

static tsr_tensor* randn(tsr_generator* g, int64_t ndim, const int64_t* sizes, tsr_dtype dtype) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_randn(ndim, sizes, dtype, g, &t));
  return t;
}

/* The product of a and b (b transposed first when tb), computed on `threads`
 * threads. */
static tsr_tensor* product(tsr_tensor* a, tsr_tensor* b, bool tb, int64_t threads) {
  TSR_ASSERT_OK(tsr_set_num_threads(threads));
  tsr_tensor *bt = NULL, *out = NULL;
  if (tb) TSR_ASSERT_OK(tsr_transpose(b, -2, -1, &bt));
  TSR_ASSERT_OK(tsr_matmul(a, tb ? bt : b, &out));
  if (bt) tsr_tensor_release(bt);
  return out;
}

static bool same_bits(const tsr_tensor* x, const tsr_tensor* y) {
  const int64_t n = tsr_tensor_numel(x);
  return n == tsr_tensor_numel(y) && memcmp(tsr_tensor_data_ptr(x), tsr_tensor_data_ptr(y), (size_t)n * 2) == 0;
}

/* Every element is summed in one order whatever the thread count: oneDNN's
 * bfloat16 kernel (the only one taken splits rows, columns and batches, never
 * K) and the float32 gemm float16 goes through. Long K with few outputs is
 * where a library would split K over threads. */
Test(matmul_lowp, thread_count_independent) {
  const int64_t before = tsr_get_num_threads();
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(31, &g));
  const int64_t shapes[][4] = {/* batch, M, K, N */ {0, 300, 500, 260}, {0, 8, 60000, 8}, {0, 2, 200000, 2},
                               {0, 1, 4096, 700}, {0, 700, 33, 1}, {6, 96, 300, 80}, {3, 4, 20000, 5}};
  const tsr_dtype dtypes[] = {TSR_BFLOAT16, TSR_FLOAT16};
  for (size_t d = 0; d < 2; ++d) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
      const int64_t* sh = shapes[s];
      const int64_t nd = sh[0] ? 3 : 2;
      const int64_t sa[] = {sh[0], sh[1], sh[2]}, sb[] = {sh[0], sh[3], sh[2]};
      tsr_tensor *a = randn(g, nd, sh[0] ? sa : sa + 1, dtypes[d]), *b = randn(g, nd, sh[0] ? sb : sb + 1, dtypes[d]);
      tsr_tensor* one = product(a, b, true, 1);
      for (int64_t threads = 2; threads <= 4; ++threads) {
        tsr_tensor* many = product(a, b, true, threads);
        cr_expect(same_bits(one, many), "dtype %d, shape %zu: %lld threads differ from one", (int)dtypes[d], s,
                  (long long)threads);
        tsr_tensor_release(many);
      }
      tsr_tensor_release(one);
      tsr_tensor_release(a);
      tsr_tensor_release(b);
    }
  }
  TSR_ASSERT_OK(tsr_set_num_threads(before));
  tsr_generator_release(g);
}

/* A large bfloat16 product (oneDNN's blocked kernel, with row and column
 * tails) against the float32 product of the same values rounded once: within
 * one bfloat16 ulp of the result plus the float32 sums' own order error. */
Test(matmul_lowp, large_bfloat16_matches_float32) {
  tsr_generator* g = NULL;
  TSR_ASSERT_OK(tsr_generator_create(7, &g));
  const int64_t sa[] = {517, 700}, sb[] = {700, 389};
  tsr_tensor *a = randn(g, 2, sa, TSR_BFLOAT16), *b = randn(g, 2, sb, TSR_BFLOAT16), *a32 = NULL, *b32 = NULL,
             *want = NULL, *got = NULL, *got32 = NULL;
  TSR_ASSERT_OK(tsr_to_dtype(a, TSR_FLOAT32, &a32));
  TSR_ASSERT_OK(tsr_to_dtype(b, TSR_FLOAT32, &b32));
  TSR_ASSERT_OK(tsr_matmul(a32, b32, &want));
  TSR_ASSERT_OK(tsr_matmul(a, b, &got));
  cr_assert_eq(tsr_tensor_dtype(got), TSR_BFLOAT16);
  TSR_ASSERT_OK(tsr_to_dtype(got, TSR_FLOAT32, &got32));
  const float *w = tsr_tensor_data_ptr(want), *v = tsr_tensor_data_ptr(got32);
  int64_t bad = 0;
  for (int64_t i = 0; i < 517 * 389; ++i)
    if (fabsf(v[i] - w[i]) > fabsf(w[i]) * 0x1p-8f + 1e-3f) ++bad;
  cr_expect_eq(bad, 0, "%lld of %d elements further than half a bfloat16 ulp from the float32 product",
               (long long)bad, 517 * 389);
  tsr_tensor* all[] = {a, b, a32, b32, want, got, got32};
  for (size_t i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
  tsr_generator_release(g);
}

Test(matmul_lowp, dtype_errors) {
  const int64_t s[] = {2, 2}, s3[] = {2, 2, 2}, s2[] = {2};
  tsr_tensor *f = filled(2, s, TSR_FLOAT32, 1), *bf = filled(2, s, TSR_BFLOAT16, 1),
             *h = filled(2, s, TSR_FLOAT16, 1), *bf3 = filled(3, s3, TSR_BFLOAT16, 1),
             *f3 = filled(3, s3, TSR_FLOAT32, 1), *h3 = filled(3, s3, TSR_FLOAT16, 1),
             *bias = filled(1, s2, TSR_FLOAT32, 1), *out = SENTINEL;
  /* torch: "expected scalar type BFloat16 but found Float" (no promotion). */
  TSR_ASSERT_FAILS(tsr_matmul(bf, f, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type BFloat16 but found Float");
  TSR_ASSERT_FAILS(tsr_matmul(f, bf, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type Float but found BFloat16");
  TSR_ASSERT_FAILS(tsr_matmul(bf, h, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type BFloat16 but found Half");
  TSR_ASSERT_FAILS(tsr_bmm(bf3, f3, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type BFloat16 but found Float");
  TSR_ASSERT_FAILS(tsr_bmm(h3, bf3, &out), TSR_ERR_DTYPE_MISMATCH, "expected scalar type Half but found BFloat16");
  TSR_ASSERT_FAILS(tsr_baddbmm(f3, bf3, h3, 1.0, 1.0, &out), TSR_ERR_DTYPE_MISMATCH,
                   "expected scalar type BFloat16 but found Half");
  /* torch: "self and mat2 must have the same dtype" for a bias of another dtype. */
  TSR_ASSERT_FAILS(tsr_linear(bf, bf, bias, &out), TSR_ERR_DTYPE_MISMATCH, "self and mat2 must have the same dtype");
  TSR_ASSERT_FAILS(tsr_linear(h, bf, NULL, &out), TSR_ERR_DTYPE_MISMATCH, "self and mat2 must have the same dtype");
  cr_expect_eq(out, SENTINEL);
  expect_filled(bf, 1);
  expect_filled(h, 1);
  tsr_tensor* all[] = {f, bf, h, bf3, f3, h3, bias};
  for (size_t i = 0; i < 7; ++i) tsr_tensor_release(all[i]);
}
