/* PyTorch's power2_div (test/test_cuda.py, test_allocator_settings): the
 * block size roundup_power2_divisions:div_factor gives a request of size
 * bytes, in integers. Plain C, for the Criterion tests and the standalone
 * tests/tools programs alike. */
#ifndef TSR_TEST_POWER2_DIV_H
#define TSR_TEST_POWER2_DIV_H

#include <stdint.h>

static inline int64_t power2_div(int64_t size, int64_t div_factor) {
  int64_t pow2 = 1;
  while (pow2 < size) pow2 *= 2;
  if (pow2 == size) return pow2;
  int64_t step = pow2 / 2 / div_factor;
  int64_t ret = pow2 / 2;
  while (ret < size) ret += step;
  return ret;
}

#endif
