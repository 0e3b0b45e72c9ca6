/* The caching allocator (allocator.h), through the public API only.
 *
 * Expected bytes follow the rules in allocator.h, which are PyTorch's
 * CUDACachingAllocator defaults: blocks round up to 512 B; requests <= 1 MiB
 * share 2 MiB segments; 1-10 MiB requests get a 20 MiB segment; >= 10 MiB
 * requests get their size rounded up to 2 MiB; a rest is split off when
 * >= 512 B (small pool) or > 1 MiB (large pool).
 *
 * Something may have allocated before a test runs, so every test measures
 * differences from baseline(), which empties the cache and resets peaks. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc_helpers.h"

static int64_t allocated_now(void) {
  int64_t v = -1;
  TSR_ASSERT_OK(tsr_memory_allocated(TSR_CPU, &v));
  return v;
}
static int64_t reserved_now(void) {
  int64_t v = -1;
  TSR_ASSERT_OK(tsr_memory_reserved(TSR_CPU, &v));
  return v;
}

/* Asserts the message contains the byte count n as the allocator prints it:
 * "3.00 MiB (3145728 bytes)<after>", or "512 bytes<after>" below 1 KiB. */
static void assert_mentions_bytes(const char* msg, int64_t n, const char* after) {
  char needle[128];
  if (n < 1024) snprintf(needle, sizeof needle, "%lld bytes%s", (long long)n, after);
  else snprintf(needle, sizeof needle, "(%lld bytes)%s", (long long)n, after);
  cr_assert(strstr(msg, needle) != NULL, "message \"%s\" lacks \"%s\"", msg, needle);
}

/* No limit may leak into another test if one fails half way. */
static void clear_limit(void) { tsr_set_memory_limit(TSR_CPU, 0); }

/* ---- rounding, pools, segments ------------------------------------------ */

Test(allocator, small_requests_round_to_512_and_share_one_2mib_segment) {
  tsr_memory_stats_t b = baseline();

  tsr_tensor* a = bytes_tensor(1);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current, 512);
  cr_assert_eq(s.requested_bytes.current - b.requested_bytes.current, 1);
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 2 * MIB);
  cr_assert_eq(s.segment.current - b.segment.current, 1);
  cr_assert_eq(s.allocation.current - b.allocation.current, 1);
  cr_assert_eq(s.active.current - b.active.current, 1);
  cr_assert_eq(s.active_bytes.current - b.active_bytes.current, 512);
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 1);
  /* The rest of the segment is one free split block. */
  cr_assert_eq(s.inactive_split.current - b.inactive_split.current, 1);
  cr_assert_eq(s.inactive_split_bytes.current, 2 * MIB - 512);

  tsr_tensor* c = bytes_tensor(1000); /* -> 1024 */
  tsr_tensor* d = bytes_tensor(512);  /* exact */
  s = stats();
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current, 512 + 1024 + 512);
  cr_assert_eq(s.requested_bytes.current - b.requested_bytes.current, 1 + 1000 + 512);
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 2 * MIB);
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 1);
  cr_assert_eq(s.inactive_split_bytes.current, 2 * MIB - 2048);
  cr_assert_eq(allocated_now(), s.allocated_bytes.current);
  cr_assert_eq(reserved_now(), s.reserved_bytes.current);
  /* Carved one after another from the front of the free rest. */
  cr_assert_eq(data(c), data(a) + 512);
  cr_assert_eq(data(d), data(c) + 1024);

  tsr_tensor_release(a);
  tsr_tensor_release(c);
  tsr_tensor_release(d);
  s = stats();
  cr_assert_eq(s.allocated_bytes.current, b.allocated_bytes.current);
  cr_assert_eq(s.requested_bytes.current, b.requested_bytes.current);
  cr_assert_eq(s.allocation.current, b.allocation.current);
  cr_assert_eq(s.allocated_bytes.peak, b.allocated_bytes.current + 2048);
  /* Cached, not returned; merged back into one whole segment. */
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 2 * MIB);
  cr_assert_eq(s.inactive_split.current, b.inactive_split.current);
  cr_assert_eq(s.inactive_split_bytes.current, 0);
  cr_assert_eq(s.num_device_free, b.num_device_free);
}

/* One request per row, alone in a fresh cache: the block it gets and the
 * segment the allocator maps for it. */
Test(allocator, request_sizes_map_to_blocks_and_segments) {
  static const struct {
    int64_t request, block, segment;
  } rows[] = {
      {1, 512, 2 * MIB},
      {513, 1024, 2 * MIB},
      {1 * MIB, 1 * MIB, 2 * MIB},                /* largest small request */
      {1 * MIB + 1, 1 * MIB + 512, 20 * MIB},     /* large pool, shared 20 MiB */
      {3 * MIB, 3 * MIB, 20 * MIB},
      {10 * MIB - 512, 10 * MIB - 512, 20 * MIB}, /* last size below 10 MiB */
      {10 * MIB - 1, 10 * MIB, 10 * MIB},         /* rounds to 10 MiB: own segment */
      {10 * MIB + 1, 10 * MIB + 512, 12 * MIB},   /* own segment, 2 MiB multiple */
      /* The rest of the 20 MiB segment is 1 MiB - 512 bytes: too small to
       * split off in the large pool, so the whole segment is allocated. */
      {19 * MIB + 1, 20 * MIB, 20 * MIB},
      {19 * MIB, 20 * MIB, 20 * MIB}, /* a rest of exactly 1 MiB is not split */
      {19 * MIB - 512, 19 * MIB - 512, 20 * MIB}, /* 1 MiB + 512 is */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    tsr_memory_stats_t b = baseline();
    tsr_tensor* t = bytes_tensor(rows[i].request);
    tsr_memory_stats_t s = stats();
    cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current, rows[i].block,
                 "request %lld: allocated +%lld, expected %lld", (long long)rows[i].request,
                 (long long)(s.allocated_bytes.current - b.allocated_bytes.current),
                 (long long)rows[i].block);
    cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, rows[i].segment,
                 "request %lld: reserved +%lld, expected %lld", (long long)rows[i].request,
                 (long long)(s.reserved_bytes.current - b.reserved_bytes.current),
                 (long long)rows[i].segment);
    cr_assert_eq(s.requested_bytes.current - b.requested_bytes.current, rows[i].request);
    cr_assert_eq(s.inactive_split_bytes.current, rows[i].segment - rows[i].block);
    tsr_tensor_release(t);
  }
}

Test(allocator, mid_size_requests_share_a_20mib_segment) {
  tsr_memory_stats_t b = baseline();
  tsr_tensor* x = bytes_tensor(3 * MIB);
  tsr_tensor* y = bytes_tensor(5 * MIB);
  tsr_tensor* z = bytes_tensor(2 * MIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 20 * MIB);
  cr_assert_eq(s.segment.current - b.segment.current, 1);
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current, 10 * MIB);
  cr_assert_eq(data(y), data(x) + 3 * MIB);
  cr_assert_eq(data(z), data(y) + 5 * MIB);
  /* 10 MiB free remain; 11 MiB does not fit and needs a segment of its own. */
  tsr_tensor* w = bytes_tensor(11 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 20 * MIB + 12 * MIB);
  tsr_tensor_release(w);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(z);
}

Test(allocator, zero_bytes_allocate_nothing) {
  tsr_memory_stats_t b = baseline();
  int64_t zero = 0;
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_empty(1, &zero, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  cr_assert_null(tsr_tensor_data_ptr(t));
  tsr_memory_stats_t s = stats();
  cr_assert_eq(memcmp(&s, &b, sizeof s), 0, "a 0-byte tensor changed the statistics");
  tsr_tensor_release(t);
}

/* ---- reuse, best fit, merging -------------------------------------------- */

Test(allocator, freed_block_is_reused_for_the_same_size) {
  static const int64_t sizes[] = {3000, 700 * KIB, 4 * MIB, 12 * MIB};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    tsr_memory_stats_t b = baseline();
    tsr_tensor* t = bytes_tensor(sizes[i]);
    void* p = tsr_tensor_data_ptr(t);
    tsr_tensor_release(t);
    t = bytes_tensor(sizes[i]);
    cr_assert_eq(tsr_tensor_data_ptr(t), p, "size %lld: block not reused", (long long)sizes[i]);
    tsr_memory_stats_t s = stats();
    cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 1, "size %lld: mapped twice",
                 (long long)sizes[i]);
    cr_assert_eq(s.allocation.allocated - b.allocation.allocated, 2);
    cr_assert_eq(s.allocation.freed - b.allocation.freed, 1);
    tsr_tensor_release(t);
  }
}

Test(allocator, best_fit_takes_the_smallest_free_block_that_fits) {
  baseline();
  /* [a 8 KiB][g1 512][c 4 KiB][g2 512][free rest of the 2 MiB segment] */
  tsr_tensor* a = bytes_tensor(8 * KIB);
  tsr_tensor* g1 = bytes_tensor(512);
  tsr_tensor* c = bytes_tensor(4 * KIB);
  tsr_tensor* g2 = bytes_tensor(512);
  cr_assert_eq(data(c), data(a) + 8 * KIB + 512);
  char* pa = data(a);
  char* pc = data(c);
  tsr_tensor_release(a);
  tsr_tensor_release(c);
  /* Free blocks: 4 KiB at pc, 8 KiB at pa (lower address), the rest. */
  tsr_tensor* x = bytes_tensor(4 * KIB);
  cr_assert_eq(data(x), pc, "4 KiB did not take the 4 KiB hole");
  tsr_tensor* y = bytes_tensor(6 * KIB);
  cr_assert_eq(data(y), pa, "6 KiB did not take the 8 KiB hole");
  /* The 2 KiB left of the 8 KiB hole serves the next 2 KiB request. */
  tsr_tensor* z = bytes_tensor(2 * KIB);
  cr_assert_eq(data(z), pa + 6 * KIB);
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(z);
  tsr_tensor_release(g1);
  tsr_tensor_release(g2);
}

Test(allocator, freed_neighbours_merge_within_a_segment) {
  tsr_memory_stats_t b = baseline();
  tsr_tensor* a = bytes_tensor(4 * KIB);
  tsr_tensor* m = bytes_tensor(4 * KIB);
  tsr_tensor* c = bytes_tensor(4 * KIB);
  char* pa = data(a);
  cr_assert_eq(data(m), pa + 4 * KIB);
  cr_assert_eq(data(c), pa + 8 * KIB);
  const int64_t tail = 2 * MIB - 12 * KIB;

  tsr_tensor_release(a);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.inactive_split.current - b.inactive_split.current, 2); /* hole + tail */
  cr_assert_eq(s.inactive_split_bytes.current, tail + 4 * KIB);
  tsr_tensor_release(m); /* merges with the hole before it */
  s = stats();
  cr_assert_eq(s.inactive_split.current - b.inactive_split.current, 2);
  cr_assert_eq(s.inactive_split_bytes.current, tail + 8 * KIB);
  /* The merged 8 KiB hole is an exact fit. */
  tsr_tensor* big = bytes_tensor(8 * KIB);
  cr_assert_eq(data(big), pa);
  tsr_tensor_release(big);
  tsr_tensor_release(c); /* merges with both sides: the segment is whole again */
  s = stats();
  cr_assert_eq(s.inactive_split.current, b.inactive_split.current);
  cr_assert_eq(s.inactive_split_bytes.current, 0);
  /* Only a whole segment can be returned: empty_cache drops it. */
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
  cr_assert_eq(s.num_device_free - b.num_device_free, 1);
}

Test(allocator, blocks_are_64_byte_aligned) {
  static const int64_t sizes[] = {1,   3,    63,   64,          65,          100,    511,
                                  513, 4097, 7777, 1 * MIB - 1, 1 * MIB + 1, 3 * MIB + 7};
  enum { N = sizeof sizes / sizeof sizes[0] };
  tsr_tensor* held[N];
  for (int i = 0; i < N; ++i) {
    held[i] = bytes_tensor(sizes[i]);
    uintptr_t p = (uintptr_t)tsr_tensor_data_ptr(held[i]);
    cr_assert_eq(p % 64, 0, "%lld bytes at %p", (long long)sizes[i], (void*)p);
    memset((void*)p, 0x5a, (size_t)sizes[i]); /* the whole request is usable */
  }
  for (int i = 0; i < N; ++i) tsr_tensor_release(held[i]);
}

/* ---- empty_cache, peaks, totals ------------------------------------------ */

Test(allocator, empty_cache_returns_unused_segments_only) {
  tsr_memory_stats_t b = baseline();
  tsr_tensor* kept = bytes_tensor(12 * MIB);    /* own 12 MiB segment */
  tsr_tensor* dropped = bytes_tensor(12 * MIB); /* another */
  tsr_tensor* small = bytes_tensor(100);        /* 2 MiB segment, partly used */
  memset(data(kept), 0x3c, (size_t)(12 * MIB));
  tsr_tensor_release(dropped);
  cr_assert_eq(reserved_now() - b.reserved_bytes.current, 12 * MIB + 12 * MIB + 2 * MIB);

  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 12 * MIB + 2 * MIB);
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current, 12 * MIB + 512);
  cr_assert_eq(s.segment.current - b.segment.current, 2);
  cr_assert_eq(s.num_device_free - b.num_device_free, 1);
  cr_assert_eq(s.reserved_bytes.peak - b.reserved_bytes.current, 26 * MIB);
  cr_assert_eq(data(kept)[0], 0x3c);
  cr_assert_eq(data(kept)[12 * MIB - 1], 0x3c);

  tsr_tensor_release(kept);
  tsr_tensor_release(small);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
  cr_assert_eq(s.segment.current, b.segment.current);
  cr_assert_eq(s.num_device_free - b.num_device_free, 3);
}

Test(allocator, reset_peak_sets_peaks_to_current) {
  tsr_memory_stats_t b = baseline();
  tsr_tensor* t = bytes_tensor(4 * MIB);
  tsr_tensor_release(t);
  int64_t max_alloc = -1, max_res = -1;
  TSR_ASSERT_OK(tsr_max_memory_allocated(TSR_CPU, &max_alloc));
  TSR_ASSERT_OK(tsr_max_memory_reserved(TSR_CPU, &max_res));
  cr_assert_eq(max_alloc, b.allocated_bytes.current + 4 * MIB);
  cr_assert_eq(max_res, b.reserved_bytes.current + 20 * MIB);

  TSR_ASSERT_OK(tsr_reset_peak_memory_stats(TSR_CPU));
  TSR_ASSERT_OK(tsr_max_memory_allocated(TSR_CPU, &max_alloc));
  TSR_ASSERT_OK(tsr_max_memory_reserved(TSR_CPU, &max_res));
  cr_assert_eq(max_alloc, b.allocated_bytes.current);
  cr_assert_eq(max_res, b.reserved_bytes.current + 20 * MIB); /* still cached */
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.allocation.peak, s.allocation.current);
  cr_assert_eq(s.inactive_split_bytes.peak, s.inactive_split_bytes.current);

  /* A smaller request from the cached segment: a new, lower peak. */
  t = bytes_tensor(1 * MIB + 1);
  tsr_tensor_release(t);
  TSR_ASSERT_OK(tsr_max_memory_allocated(TSR_CPU, &max_alloc));
  TSR_ASSERT_OK(tsr_max_memory_reserved(TSR_CPU, &max_res));
  cr_assert_eq(max_alloc, b.allocated_bytes.current + 1 * MIB + 512);
  cr_assert_eq(max_res, b.reserved_bytes.current + 20 * MIB);
}

Test(allocator, accumulated_totals_and_their_reset) {
  baseline();
  TSR_ASSERT_OK(tsr_reset_accumulated_memory_stats(TSR_CPU));
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.allocated_bytes.allocated, 0);
  cr_assert_eq(s.reserved_bytes.freed, 0);
  cr_assert_eq(s.num_device_alloc + s.num_device_free + s.num_ooms + s.num_alloc_retries, 0);

  tsr_tensor* t = bytes_tensor(1000);
  tsr_tensor_release(t);
  t = bytes_tensor(3000);
  tsr_tensor_release(t);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.allocation.allocated, 2);
  cr_assert_eq(s.allocation.freed, 2);
  cr_assert_eq(s.allocated_bytes.allocated, 1024 + 3072);
  cr_assert_eq(s.allocated_bytes.freed, 1024 + 3072);
  cr_assert_eq(s.requested_bytes.allocated, 4000);
  cr_assert_eq(s.reserved_bytes.allocated, 2 * MIB);
  cr_assert_eq(s.reserved_bytes.freed, 2 * MIB);
  cr_assert_eq(s.segment.allocated, 1);
  cr_assert_eq(s.num_device_alloc, 1);
  cr_assert_eq(s.num_device_free, 1);
  /* Current values are not totals: a reset leaves them. */
  int64_t before = allocated_now();
  TSR_ASSERT_OK(tsr_reset_accumulated_memory_stats(TSR_CPU));
  s = stats();
  cr_assert_eq(s.allocated_bytes.allocated, 0);
  cr_assert_eq(s.num_device_free, 0);
  cr_assert_eq(s.allocated_bytes.current, before);
}

/* ---- out of memory ------------------------------------------------------- */

Test(allocator, limit_exceeded_is_out_of_memory_and_changes_no_stats, .fini = clear_limit) {
  tsr_memory_stats_t b = baseline();
  const int64_t limit = b.reserved_bytes.current + 20 * MIB;
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, limit));
  tsr_tensor* held = bytes_tensor(3 * MIB); /* a 20 MiB segment: at the limit */

  /* 18 MiB needs its own segment; 17 MiB are free, but in the split one. */
  tsr_memory_stats_t before = stats();
  tsr_tensor* sentinel = (tsr_tensor*)&before;
  tsr_tensor* out = sentinel;
  int64_t n = 18 * MIB;
  TSR_ASSERT_FAILS(tsr_empty(1, &n, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &out),
                   TSR_ERR_OUT_OF_MEMORY, "CPU out of memory. Tried to allocate 18.00 MiB");
  cr_assert_eq(out, sentinel, "out written on failure");
  const char* msg = tsr_last_error_message();
  const int64_t reserved = b.reserved_bytes.current + 20 * MIB;
  const int64_t allocated = b.allocated_bytes.current + 3 * MIB;
  assert_mentions_bytes(msg, n, ". A new segment of");
  assert_mentions_bytes(msg, limit, " set by tsr_set_memory_limit");
  assert_mentions_bytes(msg, reserved, " reserved by tessera");
  assert_mentions_bytes(msg, allocated, " is allocated");
  assert_mentions_bytes(msg, reserved - allocated, " is reserved but unallocated");

  tsr_memory_stats_t after = stats();
  cr_assert_eq(after.num_ooms - before.num_ooms, 1);
  cr_assert_eq(after.num_alloc_retries - before.num_alloc_retries, 1);
  after.num_ooms = before.num_ooms;
  after.num_alloc_retries = before.num_alloc_retries;
  cr_assert_eq(memcmp(&after, &before, sizeof after), 0, "a failed allocation changed stats");

  /* Without the limit the same request succeeds. */
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, 0));
  tsr_tensor* t = bytes_tensor(n);
  cr_assert_eq(reserved_now(), reserved + 18 * MIB);
  tsr_tensor_release(t);
  tsr_tensor_release(held);
}

Test(allocator, refused_segment_retries_after_freeing_the_cache, .fini = clear_limit) {
  tsr_memory_stats_t b = baseline();
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, b.reserved_bytes.current + 20 * MIB));
  tsr_tensor* t = bytes_tensor(1);
  tsr_tensor_release(t); /* leaves a cached, unused 2 MiB segment */
  cr_assert_eq(reserved_now(), b.reserved_bytes.current + 2 * MIB);

  /* 20 MiB + the cached 2 MiB would pass the limit: the cached segment goes
   * back to the OS, then the retry fits. */
  t = bytes_tensor(20 * MIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current + 20 * MIB);
  cr_assert_eq(s.num_alloc_retries - b.num_alloc_retries, 1);
  cr_assert_eq(s.num_ooms, b.num_ooms);
  cr_assert_eq(s.num_device_free - b.num_device_free, 1);
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 2);
  tsr_tensor_release(t);
}

Test(allocator, system_refusal_is_out_of_memory) {
  tsr_memory_stats_t b = baseline();
  /* 4 EiB: beyond any address space, so the OS refuses the mapping. */
  int64_t n = (int64_t)1 << 62;
  tsr_tensor* out = NULL;
  TSR_ASSERT_FAILS(tsr_empty(1, &n, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &out),
                   TSR_ERR_OUT_OF_MEMORY, "(4611686018427387904 bytes)");
  cr_assert_null(out);
  cr_assert(strstr(tsr_last_error_message(), "The system refused a new segment") != NULL,
            "%s", tsr_last_error_message());
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.num_ooms - b.num_ooms, 1);
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
  cr_assert_eq(s.allocated_bytes.current, b.allocated_bytes.current);
  cr_assert_eq(s.reserved_bytes.peak, b.reserved_bytes.peak);
}

Test(allocator, memory_limit_get_set_and_bad_values, .fini = clear_limit) {
  int64_t v = -1;
  TSR_ASSERT_OK(tsr_memory_limit(TSR_CPU, &v));
  cr_assert_eq(v, 0, "no limit by default");
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, 123 * MIB));
  TSR_ASSERT_OK(tsr_memory_limit(TSR_CPU, &v));
  cr_assert_eq(v, 123 * MIB);
  TSR_ASSERT_FAILS(tsr_set_memory_limit(TSR_CPU, -1), TSR_ERR_INVALID_ARGUMENT,
                   "memory limit must be >= 0 bytes, got -1");
  TSR_ASSERT_FAILS(tsr_set_memory_limit(TSR_DEVICE_CUDA, 0, 5), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_OK(tsr_memory_limit(TSR_CPU, &v));
  cr_assert_eq(v, 123 * MIB, "a failed call changed the limit");
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, 0));
  TSR_ASSERT_OK(tsr_memory_limit(TSR_CPU, &v));
  cr_assert_eq(v, 0);
}

/* ---- bad arguments --------------------------------------------------------- */

typedef tsr_status (*value_query)(tsr_device_type, int32_t, int64_t*);

Test(allocator, bad_devices_and_null_outs_fail_and_change_nothing) {
  tsr_memory_stats_t b = baseline();
  /* A peak above current, so a wrongly run reset would show. */
  tsr_tensor* t = bytes_tensor(5000);
  tsr_tensor_release(t);
  tsr_memory_stats_t before = stats();
  cr_assert_gt(before.allocated_bytes.peak, before.allocated_bytes.current);
  cr_assert_gt(before.reserved_bytes.current, b.reserved_bytes.current);

  static const value_query queries[] = {tsr_memory_allocated, tsr_max_memory_allocated,
                                        tsr_memory_reserved, tsr_max_memory_reserved,
                                        tsr_memory_limit};
  for (size_t i = 0; i < sizeof queries / sizeof queries[0]; ++i) {
    int64_t v = -7;
    TSR_ASSERT_FAILS(queries[i](TSR_DEVICE_CUDA, 0, &v), TSR_ERR_UNSUPPORTED,
                     "CUDA plugin");
    TSR_ASSERT_FAILS(queries[i]((tsr_device_type)7, 0, &v), TSR_ERR_INVALID_ARGUMENT,
                     "invalid device type 7");
    TSR_ASSERT_FAILS(queries[i](TSR_DEVICE_CPU, 1, &v), TSR_ERR_UNSUPPORTED,
                     "CPU device index must be 0, got 1");
    cr_assert_eq(v, -7, "query %zu wrote its out on failure", i);
    TSR_ASSERT_FAILS(queries[i](TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  }
  TSR_ASSERT_FAILS(tsr_reset_peak_memory_stats(TSR_DEVICE_CUDA, 0), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_reset_accumulated_memory_stats(TSR_DEVICE_CPU, -1), TSR_ERR_UNSUPPORTED,
                   "got -1");
  TSR_ASSERT_FAILS(tsr_empty_cache((tsr_device_type)0, 0), TSR_ERR_INVALID_ARGUMENT,
                   "invalid device type 0");
  TSR_ASSERT_FAILS(tsr_memory_stats(TSR_DEVICE_CUDA, 0, NULL), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_memory_stats(TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");

  tsr_memory_stats_t after = stats();
  cr_assert_eq(memcmp(&after, &before, sizeof after), 0, "a failed call changed the stats");
}

/* The struct crosses the ABI: fields are only appended, never moved. */
Test(allocator, stats_struct_layout_is_pinned) {
  cr_assert_eq(sizeof(tsr_memory_stat_t), 32);
  cr_assert_eq(offsetof(tsr_memory_stat_t, peak), 8);
  cr_assert_eq(offsetof(tsr_memory_stat_t, freed), 24);
  cr_assert_eq(offsetof(tsr_memory_stats_t, struct_size), 0);
  cr_assert_eq(offsetof(tsr_memory_stats_t, allocation), 8);
  cr_assert_eq(offsetof(tsr_memory_stats_t, allocated_bytes), 8 + 4 * 32);
  cr_assert_eq(offsetof(tsr_memory_stats_t, requested_bytes), 8 + 8 * 32);
  cr_assert_eq(offsetof(tsr_memory_stats_t, num_alloc_retries), 8 + 9 * 32);
  cr_assert_eq(offsetof(tsr_memory_stats_t, num_device_free), 8 + 9 * 32 + 3 * 8);
  /* Appended in 0.2. */
  cr_assert_eq(offsetof(tsr_memory_stats_t, oversize_allocations), 8 + 9 * 32 + 4 * 8);
  cr_assert_eq(offsetof(tsr_memory_stats_t, oversize_segments), 8 + 10 * 32 + 4 * 8);
  cr_assert_eq(offsetof(tsr_memory_stats_t, num_sync_all_streams), 8 + 11 * 32 + 4 * 8);
  cr_assert_eq(offsetof(tsr_memory_stats_t, max_split_size), 8 + 11 * 32 + 5 * 8);
  cr_assert_eq(sizeof(tsr_memory_stats_t), 8 + 11 * 32 + 6 * 8);
}

Test(allocator, stats_struct_size_rules) {
  /* Smaller than the first field (allocation): refused, nothing written. */
  const size_t min_size = offsetof(tsr_memory_stats_t, allocation) + sizeof(tsr_memory_stat_t);
  cr_assert_eq(min_size, 40);
  const size_t too_small[] = {0, sizeof(size_t), min_size - 1};
  for (size_t i = 0; i < sizeof too_small / sizeof too_small[0]; ++i) {
    tsr_memory_stats_t s;
    memset(&s, 0xab, sizeof s);
    s.struct_size = too_small[i];
    char needle[96];
    snprintf(needle, sizeof needle, "out->struct_size is %zu, expected at least 40",
             too_small[i]);
    TSR_ASSERT_FAILS(tsr_memory_stats(TSR_CPU, &s), TSR_ERR_INVALID_ARGUMENT, needle);
    TSR_ASSERT_FAILS(tsr_memory_stats(TSR_CPU, &s), TSR_ERR_INVALID_ARGUMENT,
                     "set it to sizeof(tsr_memory_stats_t)");
    cr_assert_eq(s.struct_size, too_small[i]);
    tsr_memory_stats_t untouched;
    memset(&untouched, 0xab, sizeof untouched);
    cr_assert_eq(memcmp((char*)&s + sizeof(size_t), (char*)&untouched + sizeof(size_t),
                        sizeof s - sizeof(size_t)),
                 0, "struct_size %zu: fields written on failure", too_small[i]);
  }

  /* A caller built against an older header, whose struct ended before
   * num_device_free (or had only allocation): exactly its struct_size bytes
   * are filled, the field it lacks is left alone, struct_size stays. */
  const size_t older[] = {offsetof(tsr_memory_stats_t, num_device_free), min_size};
  for (size_t i = 0; i < sizeof older / sizeof older[0]; ++i) {
    tsr_memory_stats_t s;
    memset(&s, 0xab, sizeof s);
    s.struct_size = older[i];
    TSR_ASSERT_OK(tsr_memory_stats(TSR_CPU, &s));
    cr_assert_eq(s.struct_size, older[i]);
    cr_assert_eq(s.allocation.current, stats().allocation.current);
    cr_assert_eq(s.num_device_free, (int64_t)0xabababababababab, "wrote past struct_size %zu",
                 older[i]);
    if (older[i] == min_size)
      cr_assert_eq(s.segment.current, (int64_t)0xabababababababab, "wrote past allocation");
    else
      cr_assert_eq(s.num_device_alloc, stats().num_device_alloc);
  }

  /* A caller built against a future, larger struct: this version's fields
   * are filled, the rest left alone, struct_size says how much was filled. */
  struct {
    tsr_memory_stats_t v1;
    int64_t newer_field;
  } big;
  memset(&big, 0xab, sizeof big);
  big.v1.struct_size = sizeof big;
  TSR_ASSERT_OK(tsr_memory_stats(TSR_CPU, &big.v1));
  cr_assert_eq(big.v1.struct_size, sizeof(tsr_memory_stats_t));
  cr_assert_eq(big.newer_field, (int64_t)0xabababababababab);
  cr_assert_eq(big.v1.allocated_bytes.current, allocated_now());
  cr_assert_eq(big.v1.num_device_free, stats().num_device_free);
}

/* ---- threads --------------------------------------------------------------- */

enum { kThreads = 4, kRounds = 4000, kHeld = 8 };

/* Each thread keeps a few tensors alive, fills each with its own byte and
 * checks it before releasing: two threads handed overlapping blocks would
 * see each other's bytes. */
static void* churn(void* arg) {
  const unsigned char mark = (unsigned char)(uintptr_t)arg;
  uint32_t rng = 12345u * (mark + 1);
  tsr_tensor* held[kHeld] = {0};
  int64_t size[kHeld] = {0};
  int bad = 0;
  for (int r = 0; r < kRounds && !bad; ++r) {
    int slot = r % kHeld;
    if (held[slot]) {
      const unsigned char* p = tsr_tensor_data_ptr(held[slot]);
      for (int64_t i = 0; i < size[slot]; i += 61) bad |= p[i] != mark;
      bad |= p[size[slot] - 1] != mark;
      tsr_tensor_release(held[slot]);
    }
    rng = rng * 1664525u + 1013904223u;
    /* Mostly small pool, sometimes large pool. */
    size[slot] = (rng >> 8) % 64 == 0 ? 1 * MIB + (rng % (3 * MIB)) : 1 + (rng % (64 * KIB));
    if (tsr_empty(1, &size[slot], TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &held[slot]) !=
        TSR_OK)
      return (void*)1;
    memset(tsr_tensor_data_ptr(held[slot]), mark, (size_t)size[slot]);
  }
  for (int i = 0; i < kHeld; ++i) tsr_tensor_release(held[i]);
  return (void*)(uintptr_t)bad;
}

Test(allocator, concurrent_allocations_never_overlap) {
  tsr_memory_stats_t b = baseline();
  pthread_t th[kThreads];
  for (int i = 0; i < kThreads; ++i)
    cr_assert_eq(pthread_create(&th[i], NULL, churn, (void*)(uintptr_t)(i + 1)), 0);
  for (int i = 0; i < kThreads; ++i) {
    void* res = NULL;
    pthread_join(th[i], &res);
    cr_assert_null(res, "thread %d saw a failure or foreign bytes", i);
  }
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.allocated_bytes.current, b.allocated_bytes.current);
  cr_assert_eq(s.allocation.current, b.allocation.current);
  cr_assert_eq(s.requested_bytes.current, b.requested_bytes.current);
  cr_assert_eq(s.allocation.allocated - b.allocation.allocated, kThreads * kRounds);
  /* Everything merged back: no fragments, and empty_cache returns it all. */
  cr_assert_eq(s.inactive_split_bytes.current, 0);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  cr_assert_eq(reserved_now(), b.reserved_bytes.current);
}
