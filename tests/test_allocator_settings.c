/* Allocator settings (tsr_set_allocator_settings, TSR_ALLOC_CONF syntax):
 * PyTorch's test_allocator_settings (test/test_cuda.py) ported to the CPU
 * allocator, plus max_split_size_mb, garbage_collection_threshold and
 * expandable_segments checked against the rules of PyTorch's
 * c10/cuda/CUDACachingAllocator.cpp (round_size, get_free_block,
 * alloc_found_block, garbage_collect_cached_blocks).
 *
 * Tensors here are tsr_empty: their pages are never touched, so the large
 * sizes cost address space, not memory. Every test restores the default
 * settings and empties the cache in .fini. */
#include <stdint.h>
#include <stdio.h>

#include "alloc_helpers.h"

/* torch.rand(nelems, device=...): float32, 4 bytes per element. */
static tsr_tensor* floats(int64_t nelems) {
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_empty(1, &nelems, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t));
  return t;
}

/* PyTorch's key_allocated in test_allocator_settings. */
static int64_t active_bytes_allocated(void) { return stats().active_bytes.allocated; }
static int64_t requested_bytes_allocated(void) { return stats().requested_bytes.allocated; }

static char* settings_text(void) {
  char* s = NULL;
  TSR_ASSERT_OK(tsr_allocator_settings(&s));
  cr_assert_not_null(s);
  return s;
}

static void assert_settings_text(const char* expected) {
  char* s = settings_text();
  cr_assert_str_eq(s, expected);
  tsr_free_string(s);
}

static void restore_defaults(void) {
  tsr_set_allocator_settings("");
  tsr_set_memory_limit(TSR_CPU, 0);
  tsr_empty_cache(TSR_CPU);
}

/* ---- PyTorch's test_allocator_settings ---------------------------------- */

Test(allocator_settings, pytorch_test_allocator_settings, .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  const int64_t nelems = 21 * MIB;
  const int64_t nbytes = 4 * nelems;
  const int64_t nelems_big = 100 * MIB;
  const int64_t nbytes_big = 4 * nelems_big;

  int64_t start_mem = active_bytes_allocated();
  TSR_ASSERT_OK(tsr_set_allocator_settings(""));
  tsr_tensor* x = floats(nelems);

  /* roundup_power2_divisions, the single value syntax. */
  int64_t reg_mem = active_bytes_allocated();
  int64_t start_requested = requested_bytes_allocated();
  TSR_ASSERT_OK(tsr_set_allocator_settings("roundup_power2_divisions:4"));
  tsr_tensor* y = floats(nelems);
  int64_t pow2_div4_mem = active_bytes_allocated();
  int64_t current_requested = requested_bytes_allocated();
  cr_assert_eq(reg_mem - start_mem, nbytes);
  cr_assert_eq(pow2_div4_mem - reg_mem, power2_div(nbytes, 4));
  cr_assert_eq(power2_div(nbytes, 4), 96 * MIB);
  cr_assert_eq(current_requested - start_requested, nbytes);

  TSR_ASSERT_OK(tsr_set_allocator_settings("garbage_collection_threshold:0.5"));
  TSR_ASSERT_OK(
      tsr_set_allocator_settings("garbage_collection_threshold:0.5,max_split_size_mb:40"));
  /* Every set starts from the defaults: the power2 divisions are gone. */
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  start_mem = active_bytes_allocated();
  tsr_tensor* z = floats(nelems);
  reg_mem = active_bytes_allocated();
  cr_assert_eq(reg_mem - start_mem, nbytes);
  cr_assert_eq(stats().max_split_size, 40 * MIB);

  /* The table syntax. */
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  TSR_ASSERT_OK(tsr_set_allocator_settings(
      "garbage_collection_threshold:0.5,"
      "roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]"));
  start_mem = active_bytes_allocated();
  tsr_tensor* w = floats(nelems);
  int64_t pow2_div8_mem = active_bytes_allocated();
  cr_assert_eq(pow2_div8_mem - start_mem, power2_div(nbytes, 8));
  cr_assert_eq(power2_div(nbytes, 8), 88 * MIB);
  cr_assert_eq(stats().max_split_size, -1, "max_split_size_mb was not reset");

  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  start_mem = active_bytes_allocated();
  tsr_tensor* v = floats(nelems_big);
  int64_t pow2_div2_mem = active_bytes_allocated();
  cr_assert_eq(pow2_div2_mem - start_mem, power2_div(nbytes_big, 2));
  cr_assert_eq(power2_div(nbytes_big, 2), 512 * MIB);

  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  TSR_ASSERT_FAILS(tsr_set_allocator_settings("foo:1,bar:2"), TSR_ERR_INVALID_ARGUMENT, "foo");
  TSR_ASSERT_FAILS(tsr_set_allocator_settings("garbage_collection_threshold:1.2"),
                   TSR_ERR_INVALID_ARGUMENT, "garbage_collection_threshold");
  TSR_ASSERT_FAILS(tsr_set_allocator_settings("max_split_size_mb:2"), TSR_ERR_INVALID_ARGUMENT,
                   "max_split_size_mb");

  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(z);
  tsr_tensor_release(w);
  tsr_tensor_release(v);
}

/* ---- invalid settings change nothing ------------------------------------ */

Test(allocator_settings, invalid_texts_fail_naming_the_key_and_change_nothing,
     .fini = restore_defaults) {
  static const char* table = "roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]";
  TSR_ASSERT_OK(tsr_set_allocator_settings(table));
  assert_settings_text(table);
  static const struct {
    const char* text;
    const char* needle;
  } bad[] = {
      {"foo:1,bar:2", "foo"},
      {"garbage_collection_threshold:1.2", "garbage_collection_threshold"},
      {"garbage_collection_threshold:0", "garbage_collection_threshold"},
      {"max_split_size_mb:2", "max_split_size_mb"},
      {"max_split_size_mb:19", "max_split_size_mb"},
      {"nonsense:1", "nonsense"},
      {"roundup_power2_divisions:3", "roundup_power2_divisions"},
      {"expandable_segments:maybe", "expandable_segments"},
      /* A valid key before a bad one: nothing of it applies either. */
      {"max_split_size_mb:40,nonsense:1", "nonsense"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    TSR_ASSERT_FAILS(tsr_set_allocator_settings(bad[i].text), TSR_ERR_INVALID_ARGUMENT,
                     bad[i].needle);
    assert_settings_text(table);
    cr_assert_eq(stats().max_split_size, -1, "%s changed max_split_size", bad[i].text);
  }
  TSR_ASSERT_FAILS(tsr_set_allocator_settings("max_split_size_mb:19"), TSR_ERR_INVALID_ARGUMENT,
                   "must be >= 20");
  TSR_ASSERT_FAILS(tsr_set_allocator_settings(NULL), TSR_ERR_INVALID_ARGUMENT, "text");
  assert_settings_text(table);

  /* The next allocation still follows the table: 84 MiB -> 88 MiB. */
  baseline();
  int64_t before = active_bytes_allocated();
  tsr_tensor* t = floats(21 * MIB);
  cr_assert_eq(active_bytes_allocated() - before, 88 * MIB);
  tsr_tensor_release(t);

  TSR_ASSERT_FAILS(tsr_allocator_settings(NULL), TSR_ERR_INVALID_ARGUMENT, "out");

  TSR_ASSERT_OK(tsr_set_allocator_settings(""));
  assert_settings_text("");
}

/* ---- max_split_size_mb ---------------------------------------------------- */

Test(allocator_settings, max_split_size_must_be_at_least_20_mib, .fini = restore_defaults) {
  TSR_ASSERT_FAILS(tsr_set_allocator_settings("max_split_size_mb:19"), TSR_ERR_INVALID_ARGUMENT,
                   "max_split_size_mb too small, must be >= 20");
  cr_assert_eq(stats().max_split_size, -1);
  TSR_ASSERT_OK(tsr_set_allocator_settings("max_split_size_mb:21"));
  cr_assert_eq(stats().max_split_size, 21 * MIB);
}

/* Without max_split_size a cached 50 MiB block serves a 10 MiB request
 * (best fit, split). */
Test(allocator_settings, default_splits_a_large_cached_block, .fini = restore_defaults) {
  tsr_memory_stats_t b = baseline();
  tsr_tensor* t = bytes_tensor(50 * MIB);
  char* p = data(t);
  tsr_tensor_release(t);
  t = bytes_tensor(10 * MIB);
  cr_assert_eq(data(t), p);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 1);
  cr_assert_eq(s.oversize_segments.current, 0);
  cr_assert_eq(s.oversize_allocations.allocated, 0);
  cr_assert_eq(s.max_split_size, -1);
  tsr_tensor_release(t);
}

Test(allocator_settings, max_split_size_keeps_oversize_blocks_whole, .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_set_allocator_settings("max_split_size_mb:40"));
  tsr_memory_stats_t b = baseline();
  cr_assert_eq(b.max_split_size, 40 * MIB);

  /* 50 MiB >= 40 MiB: an oversize block in an oversize segment. */
  tsr_tensor* t50 = bytes_tensor(50 * MIB);
  char* p50 = data(t50);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 50 * MIB);
  cr_assert_eq(s.oversize_allocations.current - b.oversize_allocations.current, 1);
  cr_assert_eq(s.oversize_segments.current - b.oversize_segments.current, 1);
  tsr_tensor_release(t50);
  s = stats();
  cr_assert_eq(s.oversize_allocations.current, b.oversize_allocations.current);
  cr_assert_eq(s.oversize_allocations.freed - b.oversize_allocations.freed, 1);
  cr_assert_eq(s.oversize_segments.current - b.oversize_segments.current, 1, "still cached");

  /* 10 MiB < max_split_size: an oversize block is not used for it. */
  tsr_tensor* t10 = bytes_tensor(10 * MIB);
  cr_assert_neq(data(t10), p50);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 60 * MIB);
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 2);
  cr_assert_eq(s.oversize_segments.current - b.oversize_segments.current, 1);
  cr_assert_eq(s.oversize_allocations.current, b.oversize_allocations.current);

  /* 25 MiB neither. */
  tsr_tensor* t25 = bytes_tensor(25 * MIB);
  cr_assert_neq(data(t25), p50);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 60 * MIB + 26 * MIB);

  /* 45 MiB: oversize, and 50 < 45 + 20: it takes the whole 50 MiB block. */
  tsr_tensor* t45 = bytes_tensor(45 * MIB);
  cr_assert_eq(data(t45), p50);
  s = stats();
  cr_assert_eq(s.num_device_alloc - b.num_device_alloc, 3);
  /* (25 MiB took its whole 26 MiB segment: a rest of 1 MiB is not split
   * in the large pool.) */
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current,
               10 * MIB + 26 * MIB + 50 * MIB);
  cr_assert_eq(s.requested_bytes.current - b.requested_bytes.current,
               10 * MIB + 25 * MIB + 45 * MIB);
  cr_assert_eq(s.inactive_split_bytes.current - b.inactive_split_bytes.current, 0);
  cr_assert_eq(s.oversize_allocations.current - b.oversize_allocations.current, 1);
  cr_assert_eq(s.oversize_allocations.allocated - b.oversize_allocations.allocated, 2);
  tsr_tensor_release(t45);

  /* 70 MiB: nothing cached fits; then 45 MiB again with 50 and 70 cached:
   * best fit 50. Then with only 70 cached, 45 MiB is too far below it
   * (70 >= 45 + 20): a new segment. */
  tsr_tensor* t70 = bytes_tensor(70 * MIB);
  char* p70 = data(t70);
  tsr_tensor_release(t70);
  t45 = bytes_tensor(45 * MIB);
  cr_assert_eq(data(t45), p50);
  tsr_tensor* t45b = bytes_tensor(45 * MIB);
  cr_assert_neq(data(t45b), p70);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current,
               50 * MIB + 10 * MIB + 26 * MIB + 70 * MIB + 46 * MIB);
  cr_assert_eq(s.oversize_segments.current - b.oversize_segments.current, 3);
  /* 60 MiB: 70 < 60 + 20, the cached 70 MiB block serves it whole. */
  tsr_tensor* t60 = bytes_tensor(60 * MIB);
  cr_assert_eq(data(t60), p70);
  s = stats();
  cr_assert_eq(s.oversize_allocations.current - b.oversize_allocations.current, 3);

  tsr_tensor_release(t10);
  tsr_tensor_release(t25);
  tsr_tensor_release(t45);
  tsr_tensor_release(t45b);
  tsr_tensor_release(t60);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.oversize_segments.current, b.oversize_segments.current);
  cr_assert_eq(s.oversize_allocations.current, b.oversize_allocations.current);
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
}

/* A memory limit with max_split_size: when a new segment would pass the
 * limit, cached oversize segments are freed first
 * (release_available_cached_blocks), not the whole cache and without a
 * retry: one large enough for the request, else the largest ones until
 * enough is freed. */
Test(allocator_settings, max_split_size_frees_cached_oversize_segments_first,
     .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_set_allocator_settings("max_split_size_mb:40"));
  tsr_memory_stats_t b = baseline();
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, b.reserved_bytes.current + 100 * MIB));
  tsr_tensor* small = bytes_tensor(1000);
  tsr_tensor_release(small); /* a cached 2 MiB segment */
  tsr_tensor* t = bytes_tensor(90 * MIB);
  tsr_tensor_release(t); /* a cached 90 MiB oversize segment */
  /* 50 MiB: the 90 MiB block is too large for it (90 >= 50 + 20), a new
   * segment would pass the limit: the cached 90 MiB one goes, the small
   * one stays. */
  t = bytes_tensor(50 * MIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 50 * MIB + 2 * MIB);
  cr_assert_eq(s.num_device_free - b.num_device_free, 1);
  cr_assert_eq(s.num_alloc_retries, b.num_alloc_retries);
  cr_assert_eq(s.num_ooms, b.num_ooms);
  tsr_tensor_release(t);

  /* Two cached 46 MiB segments (45 MiB requests) and an 80 MiB request:
   * none is large enough alone; both go, largest first. */
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, 0));
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  small = bytes_tensor(1000);
  tsr_tensor_release(small);
  tsr_tensor* u = bytes_tensor(45 * MIB);
  tsr_tensor* v = bytes_tensor(45 * MIB);
  tsr_tensor_release(u);
  tsr_tensor_release(v);
  b = stats();
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, b.reserved_bytes.current + 6 * MIB));
  t = bytes_tensor(80 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 80 * MIB - 92 * MIB);
  cr_assert_eq(s.num_device_free - b.num_device_free, 2);
  cr_assert_eq(s.num_alloc_retries, b.num_alloc_retries);
  cr_assert_eq(s.segment.current - b.segment.current, -1); /* 2 freed, 1 new */
  tsr_tensor_release(t);

  /* Not enough oversize memory cached: everything cached goes (a retry). */
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, 0));
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  b = stats();
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, b.reserved_bytes.current + 100 * MIB));
  small = bytes_tensor(1000);
  tsr_tensor_release(small);
  t = bytes_tensor(90 * MIB);
  tsr_tensor_release(t);
  t = bytes_tensor(92 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 92 * MIB);
  cr_assert_eq(s.num_alloc_retries - b.num_alloc_retries, 1);
  cr_assert_eq(s.num_device_free - b.num_device_free, 2);
  tsr_tensor_release(t);
}

/* ---- garbage_collection_threshold ----------------------------------------- */

/* Two cached 30 MiB segments, then a 40 MiB request that fits under the
 * limit. Returns the number of segments freed on the way. */
static int64_t gc_sequence(void) {
  tsr_memory_stats_t b = baseline();
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, b.reserved_bytes.current + 100 * MIB));
  tsr_tensor* a = bytes_tensor(30 * MIB);
  tsr_tensor* c = bytes_tensor(30 * MIB);
  tsr_tensor_release(a);
  tsr_tensor_release(c);
  cr_assert_eq(stats().reserved_bytes.current - b.reserved_bytes.current, 60 * MIB);
  tsr_tensor* d = bytes_tensor(40 * MIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.num_ooms, b.num_ooms);
  cr_assert_eq(s.num_alloc_retries, b.num_alloc_retries, "GC must free before any retry");
  tsr_tensor_release(d);
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, 0));
  return s.num_device_free - b.num_device_free;
}

Test(allocator_settings, garbage_collection_frees_cached_segments_above_threshold,
     .fini = restore_defaults) {
  /* Without GC: 60 + 40 MiB fit the 100 MiB limit, nothing is freed. */
  cr_assert_eq(gc_sequence(), 0);
  /* With GC at 0.5: 60 MiB reserved > 50 MiB, both cached segments (equal
   * age, so both at least the average) go back before the new one. */
  TSR_ASSERT_OK(tsr_set_allocator_settings("garbage_collection_threshold:0.5"));
  cr_assert_eq(gc_sequence(), 2);
}

Test(allocator_settings, garbage_collection_below_threshold_frees_nothing,
     .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_set_allocator_settings("garbage_collection_threshold:0.5"));
  tsr_memory_stats_t b = baseline();
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, b.reserved_bytes.current + 100 * MIB));
  tsr_tensor* a = bytes_tensor(30 * MIB);
  tsr_tensor_release(a);
  /* 30 MiB reserved, threshold 50 MiB: the cached segment stays. */
  tsr_tensor* d = bytes_tensor(40 * MIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.num_device_free, b.num_device_free);
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 70 * MIB);
  tsr_tensor_release(d);
}

Test(allocator_settings, garbage_collection_needs_a_memory_limit, .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_set_allocator_settings("garbage_collection_threshold:0.1"));
  tsr_memory_stats_t b = baseline();
  tsr_tensor* a = bytes_tensor(30 * MIB);
  tsr_tensor_release(a);
  tsr_tensor* d = bytes_tensor(40 * MIB);
  cr_assert_eq(stats().num_device_free, b.num_device_free);
  tsr_tensor_release(d);
}

/* ---- expandable_segments ---------------------------------------------------- */

static int segment_json_has(const char* needle) {
  char* json = NULL;
  TSR_ASSERT_OK(tsr_memory_snapshot(TSR_CPU, &json));
  int found = strstr(json, needle) != NULL;
  tsr_free_string(json);
  return found;
}

Test(allocator_settings, expandable_segments_grow_in_pages_and_give_them_back,
     .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_set_allocator_settings("expandable_segments:True"));
  tsr_memory_stats_t b = baseline();

  /* Small pool: 2 MiB pages. */
  tsr_tensor* s1 = bytes_tensor(4 * KIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 2 * MIB);
  tsr_tensor* s2 = bytes_tensor(1 * MIB);
  cr_assert_eq(data(s2), data(s1) + 4 * KIB);
  tsr_tensor* s3 = bytes_tensor(1 * MIB); /* needs a second page, right after */
  cr_assert_eq(data(s3), data(s2) + 1 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB);

  /* Large pool: 20 MiB pages; a 30 MiB request grows the segment after the
   * 3 MiB block, contiguous. */
  tsr_tensor* l1 = bytes_tensor(3 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB + 20 * MIB);
  tsr_tensor* l2 = bytes_tensor(30 * MIB);
  cr_assert_eq(data(l2), data(l1) + 3 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB + 40 * MIB);
  cr_assert_eq(s.allocated_bytes.current - b.allocated_bytes.current,
               4 * KIB + 2 * MIB + 33 * MIB);
  memset(data(l2), 0x11, (size_t)(30 * MIB)); /* the mapped pages are usable */
  cr_assert(segment_json_has("\"is_expandable\":true"));

  /* Freed in the middle: the 3 MiB hole and the rest merge with the 30 MiB
   * block and serve a 33 MiB request from the same address. */
  tsr_tensor_release(l1);
  tsr_tensor_release(l2);
  tsr_tensor* l3 = bytes_tensor(33 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB + 40 * MIB);
  tsr_tensor_release(l3);

  tsr_tensor_release(s1);
  tsr_tensor_release(s2);
  tsr_tensor_release(s3);
  s = stats();
  cr_assert_eq(s.allocated_bytes.current, b.allocated_bytes.current);
  /* empty_cache unmaps every free page. */
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  s = stats();
  cr_assert_eq(s.reserved_bytes.current, b.reserved_bytes.current);
  cr_assert_gt(s.num_device_free, b.num_device_free);
  cr_assert(!segment_json_has("\"is_expandable\":true"));

  /* And it grows again. */
  tsr_tensor* again = bytes_tensor(3 * MIB);
  s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 20 * MIB);
  tsr_tensor_release(again);
}

Test(allocator_settings, expandable_segments_off_again_uses_plain_segments,
     .fini = restore_defaults) {
  TSR_ASSERT_OK(tsr_set_allocator_settings("expandable_segments:True"));
  tsr_memory_stats_t b = baseline();
  tsr_tensor* keep = bytes_tensor(4 * KIB);
  TSR_ASSERT_OK(tsr_set_allocator_settings(""));
  /* The expandable segment's free room is no longer used. */
  tsr_tensor* t = bytes_tensor(4 * KIB);
  cr_assert_neq(data(t), data(keep) + 4 * KIB);
  tsr_memory_stats_t s = stats();
  cr_assert_eq(s.reserved_bytes.current - b.reserved_bytes.current, 4 * MIB);
  cr_assert(segment_json_has("\"is_expandable\":false"));
  cr_assert(segment_json_has("\"is_expandable\":true"));
  tsr_tensor_release(t);
  tsr_tensor_release(keep);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  cr_assert_eq(stats().reserved_bytes.current, b.reserved_bytes.current);
}
