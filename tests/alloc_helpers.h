/* What the CPU allocator's tests share: statistics read with the
 * struct_size handshake, a baseline with the cache emptied, and tensors of
 * a given number of bytes. Tests measure differences from baseline():
 * something may have allocated before them. */
#ifndef TSR_TEST_ALLOC_HELPERS_H
#define TSR_TEST_ALLOC_HELPERS_H

#include <stdint.h>

#include "helpers.h"
#include "power2_div.h"

#define KIB ((int64_t)1024)
#define MIB ((int64_t)1024 * 1024)

static inline tsr_memory_stats_t stats(void) {
  tsr_memory_stats_t s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  TSR_ASSERT_OK(tsr_memory_stats(TSR_CPU, &s));
  cr_assert_eq(s.struct_size, sizeof s);
  return s;
}

/* Empties the cache and resets peaks. Free room inside partly used
 * segments would serve new requests and make expected reserved bytes
 * wrong, so there must be none. */
static inline tsr_memory_stats_t baseline(void) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  TSR_ASSERT_OK(tsr_reset_peak_memory_stats(TSR_CPU));
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.inactive_split_bytes.current, 0,
               "baseline has %lld cached bytes in partly used segments",
               (long long)s.inactive_split_bytes.current);
  cr_assert_eq(s.reserved_bytes.peak, s.reserved_bytes.current);
  return s;
}

/* A uint8 tensor of n bytes: its storage asks the allocator for n bytes. */
static inline tsr_tensor* bytes_tensor(int64_t n) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_empty(1, &n, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  return t;
}

static inline char* data(const tsr_tensor* t) { return (char*)tsr_tensor_data_ptr(t); }

#endif
