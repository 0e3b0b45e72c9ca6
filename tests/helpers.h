/* Shared assertions for the Criterion tests. */
#ifndef TSR_TEST_HELPERS_H
#define TSR_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <tessera/tessera.h>

/* Asserts a call returned TSR_OK, printing the library's message if not. */
#define TSR_ASSERT_OK(call)                                                        \
  do {                                                                             \
    tsr_status st_ = (call);                                                       \
    cr_assert_eq(st_, TSR_OK, "%s failed: %s: %s", #call, tsr_status_name(st_),    \
                 tsr_last_error_message());                                        \
  } while (0)

/* Asserts a call failed with `status` and that the message contains `needle`. */
#define TSR_ASSERT_FAILS(call, status, needle)                                     \
  do {                                                                             \
    tsr_clear_last_error();                                                        \
    tsr_status st_ = (call);                                                       \
    cr_assert_eq(st_, (status), "%s: expected %s, got %s (%s)", #call,             \
                 tsr_status_name(status), tsr_status_name(st_),                    \
                 tsr_last_error_message());                                        \
    cr_assert_eq(tsr_last_error_code(), (status));                                 \
    cr_assert(strstr(tsr_last_error_message(), (needle)) != NULL,                  \
              "message \"%s\" lacks \"%s\"", tsr_last_error_message(), (needle));  \
  } while (0)

/* Asserts a tensor's sizes and strides equal the given arrays. */
static inline void tsr_assert_geometry(const tsr_tensor* t, int64_t ndim, const int64_t* sizes,
                                       const int64_t* strides) {
  cr_assert_eq(tsr_tensor_ndim(t), ndim, "ndim %lld != %lld", (long long)tsr_tensor_ndim(t),
               (long long)ndim);
  for (int64_t i = 0; i < ndim; ++i) {
    cr_assert_eq(tsr_tensor_sizes(t)[i], sizes[i], "size[%lld] = %lld, expected %lld",
                 (long long)i, (long long)tsr_tensor_sizes(t)[i], (long long)sizes[i]);
    if (strides)
      cr_assert_eq(tsr_tensor_strides(t)[i], strides[i], "stride[%lld] = %lld, expected %lld",
                   (long long)i, (long long)tsr_tensor_strides(t)[i], (long long)strides[i]);
  }
}

#define TSR_CPU TSR_DEVICE_CPU, 0

/* A non-NULL out value a failing call must leave untouched. */
#define SENTINEL ((tsr_tensor*)(uintptr_t)0x5e5e5e5e)

/* call succeeds and gives *out of dtype dt; out is released and set back to
 * SENTINEL (for the tests that then check failing calls leave it alone).
 * Used where torch 1.13 refuses a 16-bit float and tessera follows torch 2.x
 * (issue 31); tests/test_lowp_ops.c checks those values. */
#define TSR_EXPECT_RESULT_DTYPE(call, out, dt)          \
  do {                                                  \
    TSR_ASSERT_OK(call);                                \
    cr_expect_eq(tsr_tensor_dtype(out), (dt));          \
    tsr_tensor_release(out);                            \
    (out) = SENTINEL;                                   \
  } while (0)

/* t has no gradient (.grad is None): failed calls did not backpropagate. */
static inline void expect_no_grad(const tsr_tensor* t) {
  tsr_tensor* g = SENTINEL;
  TSR_ASSERT_OK(tsr_grad(t, &g));
  cr_expect_null(g);
}

/* x = arange(base_numel, float64).as_strided(sizes, strides, offset), the
 * input of the layout and view goldens. The caller releases x and *base;
 * base == NULL releases the arange here (x keeps its storage alive). */
static inline tsr_tensor* tsr_strided_arange(int64_t base_numel, int64_t ndim,
                                             const int64_t* sizes, const int64_t* strides,
                                             int64_t offset, tsr_tensor** base) {
  tsr_tensor *b, *x;
  TSR_ASSERT_OK(tsr_arange(0, (double)base_numel, 1, TSR_FLOAT64, TSR_CPU, &b));
  TSR_ASSERT_OK(tsr_as_strided(b, ndim, sizes, strides, offset, &x));
  if (base) *base = b;
  else tsr_tensor_release(b);
  return x;
}

#endif
