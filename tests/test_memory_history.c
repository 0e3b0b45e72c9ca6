/* Memory history, snapshots and the summary (allocator.h): recording on and
 * off, the ring of newest entries, labels (tsr_memory_set_trace_label and op
 * names), the snapshot JSON's main parts, the summary table, and errors.
 *
 * The JSON is checked with string searches: it is compact (no blanks) and
 * its top-level keys come in a fixed order (segments, device_traces,
 * allocator_settings, ...). tests/tools/check_snapshot.py checks one fully
 * (the memory_snapshot ctest). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_helpers.h"

static char* snapshot(void) {
  char* json = NULL;
  TSR_ASSERT_OK(tsr_memory_snapshot(TSR_CPU, &json));
  cr_assert_not_null(json);
  return json;
}

/* The trace part of a snapshot: the text of "device_traces" (a copy). */
static char* trace_of(const char* json) {
  const char* begin = strstr(json, "\"device_traces\":");
  cr_assert_not_null(begin, "no device_traces in %s", json);
  const char* end = strstr(begin, ",\"allocator_settings\":");
  cr_assert_not_null(end, "no allocator_settings after device_traces");
  size_t n = (size_t)(end - begin);
  char* out = malloc(n + 1);
  memcpy(out, begin, n);
  out[n] = '\0';
  return out;
}

static char* current_trace(void) {
  char* json = snapshot();
  char* t = trace_of(json);
  tsr_free_string(json);
  return t;
}

static int count(const char* hay, const char* needle) {
  int n = 0;
  for (const char* p = strstr(hay, needle); p; p = strstr(p + 1, needle)) ++n;
  return n;
}

static void history_off(void) {
  tsr_memory_record_history(TSR_CPU, false, 0);
  tsr_memory_set_trace_label(NULL);
  tsr_set_memory_limit(TSR_CPU, 0);
  tsr_empty_cache(TSR_CPU);
}

/* ---- recording on and off ------------------------------------------------ */

Test(memory_history, off_by_default_and_entries_while_on, .fini = history_off) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  tsr_tensor* before = bytes_tensor(3000);
  char* trace = current_trace();
  cr_assert_eq(count(trace, "\"action\""), 0, "history recorded while off: %s", trace);
  free(trace);
  tsr_tensor_release(before);

  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 100));
  tsr_tensor* t = bytes_tensor(3000); /* a new 2 MiB segment, a 3072 B block */
  tsr_tensor_release(t);
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  trace = current_trace();
  /* segment_alloc, alloc, free_requested, free_completed, segment_free,
   * snapshot: in that order. */
  const char* order[] = {"\"action\":\"segment_alloc\"", "\"action\":\"alloc\"",
                         "\"action\":\"free_requested\"", "\"action\":\"free_completed\"",
                         "\"action\":\"segment_free\"", "\"action\":\"snapshot\""};
  const char* at = trace;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i) {
    const char* found = strstr(at, order[i]);
    cr_assert_not_null(found, "%s missing or out of order in %s", order[i], trace);
    at = found + 1;
  }
  cr_assert_eq(count(trace, "\"action\""), 6, "%s", trace);
  /* alloc and both frees carry the requested bytes (PyTorch's orig_size). */
  cr_assert_eq(count(trace, "\"size\":3000"), 3);
  cr_assert_eq(count(trace, "\"size\":2097152"), 2);
  free(trace);

  /* Off: the entries are dropped, nothing new is recorded. */
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, false, 0));
  t = bytes_tensor(3000);
  tsr_tensor_release(t);
  trace = current_trace();
  cr_assert_eq(count(trace, "\"action\""), 0, "%s", trace);
  free(trace);
  /* On again: starts empty. */
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 10));
  trace = current_trace();
  cr_assert_eq(count(trace, "\"action\""), 1, "%s", trace); /* this snapshot */
  free(trace);
}

Test(memory_history, ring_keeps_the_newest_entries, .fini = history_off) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  tsr_tensor* warm = bytes_tensor(512); /* the segment exists before recording */
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 3));
  tsr_tensor* held[5];
  for (int i = 0; i < 5; ++i) held[i] = bytes_tensor((i + 1) * KIB);
  char* json = snapshot();
  cr_assert(strstr(json, "\"trace_max_entries\":3") != NULL);
  char* trace = trace_of(json);
  /* alloc 1..5 KiB, then the snapshot entry: the newest three remain,
   * oldest first. */
  cr_assert_eq(count(trace, "\"action\""), 3, "%s", trace);
  const char* a4 = strstr(trace, "\"size\":4096");
  const char* a5 = strstr(trace, "\"size\":5120");
  const char* snap = strstr(trace, "\"action\":\"snapshot\"");
  cr_assert(a4 && a5 && snap && a4 < a5 && a5 < snap, "%s", trace);
  cr_assert_null(strstr(trace, "\"size\":3072"));
  free(trace);
  tsr_free_string(json);

  /* A larger ring keeps what there is and grows. */
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 100));
  for (int i = 0; i < 5; ++i) tsr_tensor_release(held[i]);
  trace = current_trace();
  cr_assert_eq(count(trace, "\"action\""), 3 + 5 * 2 + 1, "%s", trace);
  free(trace);
  /* A smaller one keeps the newest. */
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 2));
  trace = current_trace();
  cr_assert_eq(count(trace, "\"action\""), 2, "%s", trace);
  cr_assert_eq(count(trace, "\"action\":\"snapshot\""), 2, "%s", trace);
  free(trace);
  tsr_tensor_release(warm);
}

/* ---- labels ------------------------------------------------------------------ */

/* The label of the alloc entry with the given size, or "" if none; the
 * caller frees. */
static char* label_of_alloc(const char* trace, int64_t size) {
  char needle[96];
  snprintf(needle, sizeof needle, "\"action\":\"alloc\",\"addr\":");
  for (const char* p = strstr(trace, needle); p; p = strstr(p + 1, needle)) {
    const char* end = strchr(p, '}');
    char sz[48];
    snprintf(sz, sizeof sz, "\"size\":%lld,", (long long)size);
    const char* s = strstr(p, sz);
    if (!s || s > end) continue;
    const char* m = strstr(p, "\"user_metadata\":\"");
    cr_assert(m && m < end);
    m += strlen("\"user_metadata\":\"");
    const char* q = strchr(m, '"');
    char* out = malloc((size_t)(q - m) + 1);
    memcpy(out, m, (size_t)(q - m));
    out[q - m] = '\0';
    return out;
  }
  return NULL;
}

Test(memory_history, labels_from_the_caller_and_from_ops, .fini = history_off) {
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 1000));
  int64_t n = 1000; /* float32: 4000 bytes, block 4096 */
  tsr_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  TSR_ASSERT_OK(tsr_ones(1, &n, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_memory_set_trace_label("phase one"));
  tsr_tensor* labelled = bytes_tensor(7 * KIB);
  TSR_ASSERT_OK(tsr_add(a, a, &b)); /* the caller's label wins over the op */
  TSR_ASSERT_OK(tsr_memory_set_trace_label(NULL));
  TSR_ASSERT_OK(tsr_mul(a, a, &c));
  TSR_ASSERT_OK(tsr_memory_set_trace_label("x"));
  TSR_ASSERT_OK(tsr_memory_set_trace_label("")); /* "" clears too */
  TSR_ASSERT_OK(tsr_add(a, c, &d));
  tsr_tensor* plain = bytes_tensor(9 * KIB);

  char* trace = current_trace();
  char* l = label_of_alloc(trace, 7 * KIB);
  cr_assert_str_eq(l, "phase one");
  free(l);
  l = label_of_alloc(trace, 9 * KIB);
  cr_assert_str_eq(l, "");
  free(l);
  /* Four 4000-byte allocations (requested bytes): ones (a factory, no op),
   * add (labelled), mul, add. */
  cr_assert_eq(count(trace, "\"size\":4000"), 4, "%s", trace);
  cr_assert_eq(count(trace, "\"user_metadata\":\"phase one\""), 2, "%s", trace);
  cr_assert_eq(count(trace, "\"user_metadata\":\"mul\""), 1, "%s", trace);
  cr_assert_eq(count(trace, "\"user_metadata\":\"add\""), 1, "%s", trace);
  free(trace);

  tsr_tensor_release(a);
  tsr_tensor_release(b);
  tsr_tensor_release(c);
  tsr_tensor_release(d);
  tsr_tensor_release(labelled);
  tsr_tensor_release(plain);
}

Test(memory_history, labels_survive_non_utf8_bytes, .fini = history_off) {
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 100));
  TSR_ASSERT_OK(tsr_memory_set_trace_label("bad \xff byte \"quoted\""));
  tsr_tensor* t = bytes_tensor(5000);
  char* trace = current_trace();
  /* U+FFFD for the bad byte, the quotes escaped. */
  cr_assert(strstr(trace, "\"user_metadata\":\"bad \xef\xbf\xbd byte \\\"quoted\\\"\"") != NULL,
            "%s", trace);
  free(trace);
  tsr_tensor_release(t);
}

/* ---- snapshot and summary contents --------------------------------------------- */

Test(memory_history, snapshot_has_segments_blocks_settings_and_stats, .fini = history_off) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  TSR_ASSERT_OK(tsr_set_allocator_settings("max_split_size_mb:64"));
  tsr_tensor* t = bytes_tensor(3000);
  tsr_tensor* big = bytes_tensor(12 * MIB);
  char* json = snapshot();
  cr_assert_eq(json[0], '{');
  static const char* keys[] = {
      "\"device\":{\"type\":\"cpu\",\"index\":0,\"name\":\"cpu\"}",
      "\"segments\":[{",
      "\"segment_type\":\"small\"",
      "\"segment_type\":\"large\"",
      "\"total_size\":2097152",
      "\"total_size\":12582912",
      "\"state\":\"active_allocated\"",
      "\"state\":\"inactive\"",
      "\"requested_size\":3000",
      "\"is_expandable\":false",
      "\"device_traces\":[[]]",
      "\"allocator_settings\":{\"max_split_size\":67108864",
      "\"text\":\"max_split_size_mb:64\"",
      "\"stats\":{",
      "\"allocated_bytes.all.current\":",
      "\"reserved_bytes.large_pool.current\":",
      "\"max_split_size\":67108864",
      "\"memory_limit\":0",
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
    cr_assert(strstr(json, keys[i]) != NULL, "snapshot lacks %s: %s", keys[i], json);
  int64_t allocated = -1;
  TSR_ASSERT_OK(tsr_memory_allocated(TSR_CPU, &allocated));
  char needle[96];
  snprintf(needle, sizeof needle, "\"allocated_bytes.all.current\":%lld", (long long)allocated);
  cr_assert(strstr(json, needle) != NULL, "lacks %s", needle);
  tsr_free_string(json);
  tsr_tensor_release(t);
  tsr_tensor_release(big);
  tsr_set_allocator_settings("");
}

/* torch's _format_size. */
static void format_size(int64_t sz, int64_t pref, char* buf, size_t n) {
  static const char* prefixes[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const char* prefix = prefixes[0];
  double pref_sz = (double)pref;
  for (int i = 1; i < 6; ++i) {
    if (pref_sz < 768 * 1024) break;
    prefix = prefixes[i];
    sz /= 1024;
    pref_sz /= 1024;
  }
  snprintf(buf, n, "%6lld %s", (long long)sz, prefix);
}

Test(memory_history, summary_shows_the_current_figures, .fini = history_off) {
  tsr_tensor* t = bytes_tensor(5 * MIB);
  tsr_memory_stats_t s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  TSR_ASSERT_OK(tsr_memory_stats(TSR_CPU, &s));
  char* text = NULL;
  TSR_ASSERT_OK(tsr_memory_summary(TSR_CPU, &text));
  cr_assert(strstr(text, "tessera memory summary, device cpu") != NULL, "%s", text);
  char cur[32], row[128];
  format_size(s.allocated_bytes.current, s.allocated_bytes.current, cur, sizeof cur);
  snprintf(row, sizeof row, "| %-24s | %s |", "Allocated memory", cur);
  cr_assert(strstr(text, row) != NULL, "summary lacks \"%s\":\n%s", row, text);
  format_size(s.reserved_bytes.current, s.reserved_bytes.current, cur, sizeof cur);
  snprintf(row, sizeof row, "| %-24s | %s |", "Device reserved memory", cur);
  cr_assert(strstr(text, row) != NULL, "summary lacks \"%s\":\n%s", row, text);
  cr_assert(strstr(text, "Oversize allocations") != NULL);
  /* Every line 78 wide between the outer bars: 80 with them. */
  for (const char* line = text; *line;) {
    const char* nl = strchr(line, '\n');
    cr_assert_not_null(nl, "last line not terminated");
    cr_assert_eq(nl - line, 80, "line of %d: %.*s", (int)(nl - line), (int)(nl - line), line);
    line = nl + 1;
  }
  tsr_free_string(text);
  tsr_tensor_release(t);
}

/* ---- out of memory ------------------------------------------------------------- */

Test(memory_history, oom_adds_an_entry_and_points_at_the_snapshot, .fini = history_off) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  int64_t reserved = 0;
  TSR_ASSERT_OK(tsr_memory_reserved(TSR_CPU, &reserved));
  TSR_ASSERT_OK(tsr_set_memory_limit(TSR_CPU, reserved + 20 * MIB));
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 100));
  int64_t n = 30 * MIB;
  tsr_tensor* out = SENTINEL;
  TSR_ASSERT_FAILS(tsr_empty(1, &n, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &out),
                   TSR_ERR_OUT_OF_MEMORY, "tsr_memory_snapshot");
  cr_assert_eq(out, SENTINEL);
  cr_assert(strstr(tsr_last_error_message(), "tsr_memory_record_history") != NULL);
  char* trace = current_trace();
  cr_assert_eq(count(trace, "\"action\":\"oom\""), 1, "%s", trace);
  /* The oom entry's size is the block asked for. */
  cr_assert(strstr(trace, "\"action\":\"oom\",\"addr\":") != NULL);
  const char* oom = strstr(trace, "\"action\":\"oom\"");
  cr_assert(strstr(oom, "\"size\":31457280") != NULL, "%s", trace);
  free(trace);
}

/* ---- errors ---------------------------------------------------------------------- */

Test(memory_history, errors_leave_outs_and_state_alone, .fini = history_off) {
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 5));
  TSR_ASSERT_FAILS(tsr_memory_record_history(TSR_CPU, true, 0), TSR_ERR_INVALID_ARGUMENT,
                   "max_entries must be >= 1, got 0");
  TSR_ASSERT_FAILS(tsr_memory_record_history(TSR_CPU, true, -3), TSR_ERR_INVALID_ARGUMENT,
                   "got -3");
  TSR_ASSERT_FAILS(tsr_memory_record_history(TSR_DEVICE_CUDA, 0, true, 10), TSR_ERR_UNSUPPORTED,
                   "CUDA");
  TSR_ASSERT_FAILS(tsr_memory_record_history(TSR_DEVICE_CUDA_HOST, 0, false, 0),
                   TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_memory_record_history((tsr_device_type)5, 0, true, 10),
                   TSR_ERR_INVALID_ARGUMENT, "invalid device type 5");
  TSR_ASSERT_FAILS(tsr_memory_record_history(TSR_DEVICE_CPU, 2, true, 10), TSR_ERR_UNSUPPORTED,
                   "got 2");
  /* The ring is as it was: capacity 5. */
  char* json = snapshot();
  cr_assert(strstr(json, "\"trace_max_entries\":5") != NULL, "%s", json);
  tsr_free_string(json);
  /* Disabled with any max_entries is fine. */
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, false, -1));

  char* sentinel = (char*)"untouched";
  char* out = sentinel;
  TSR_ASSERT_FAILS(tsr_memory_snapshot(TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "json");
  TSR_ASSERT_FAILS(tsr_memory_snapshot(TSR_DEVICE_CUDA, 0, &out), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_memory_snapshot(TSR_DEVICE_CPU, 1, &out), TSR_ERR_UNSUPPORTED, "got 1");
  TSR_ASSERT_FAILS(tsr_memory_snapshot((tsr_device_type)0, 0, &out), TSR_ERR_INVALID_ARGUMENT,
                   "invalid device type 0");
  cr_assert_eq(out, sentinel);
  TSR_ASSERT_FAILS(tsr_memory_summary(TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "text");
  TSR_ASSERT_FAILS(tsr_memory_summary(TSR_DEVICE_CUDA, 0, &out), TSR_ERR_UNSUPPORTED, "CUDA");
  TSR_ASSERT_FAILS(tsr_memory_summary(TSR_DEVICE_CPU, -1, &out), TSR_ERR_UNSUPPORTED, "got -1");
  cr_assert_eq(out, sentinel);
  TSR_ASSERT_FAILS(tsr_allocator_settings(NULL), TSR_ERR_INVALID_ARGUMENT, "out");
}

/* A failed call must not leave a "snapshot" entry either. */
Test(memory_history, failed_snapshot_adds_no_entry, .fini = history_off) {
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 100));
  TSR_ASSERT_FAILS(tsr_memory_snapshot(TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "json");
  TSR_ASSERT_FAILS(tsr_memory_summary(TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT, "text");
  char* trace = current_trace();
  cr_assert_eq(count(trace, "\"action\":\"snapshot\""), 1, "%s", trace);
  free(trace);
}

/* The label is per thread. */
struct label_run {
  const char* label;
  int ok;
};
static void* allocate_with_label(void* arg) {
  struct label_run* r = arg;
  r->ok = tsr_memory_set_trace_label(r->label) == TSR_OK;
  int64_t n = 11 * KIB;
  tsr_tensor* t = NULL;
  r->ok = r->ok && tsr_empty(1, &n, TSR_UINT8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t) == TSR_OK;
  tsr_tensor_release(t);
  return NULL;
}

#include <pthread.h>
Test(memory_history, label_is_per_thread, .fini = history_off) {
  TSR_ASSERT_OK(tsr_memory_record_history(TSR_CPU, true, 100));
  TSR_ASSERT_OK(tsr_memory_set_trace_label("main"));
  struct label_run r = {"worker", 0};
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, allocate_with_label, &r), 0);
  pthread_join(th, NULL);
  cr_assert(r.ok);
  tsr_tensor* t = bytes_tensor(13 * KIB);
  char* trace = current_trace();
  char* l = label_of_alloc(trace, 11 * KIB);
  cr_assert_str_eq(l, "worker");
  free(l);
  l = label_of_alloc(trace, 13 * KIB);
  cr_assert_str_eq(l, "main");
  free(l);
  free(trace);
  tsr_tensor_release(t);
}

/* The per-pool statistics (snapshot "stats" and the summary's "from large
 * pool" / "from small pool" rows): each block counts in its pool and in
 * "all". */
static int64_t json_int(const char* json, const char* key) {
  char needle[128];
  snprintf(needle, sizeof needle, "\"%s\":", key);
  const char* p = strstr(json, needle);
  cr_assert_not_null(p, "no %s", key);
  return strtoll(p + strlen(needle), NULL, 10);
}

Test(memory_history, stats_are_kept_per_pool, .fini = history_off) {
  TSR_ASSERT_OK(tsr_empty_cache(TSR_CPU));
  char* json = snapshot();
  const int64_t small0 = json_int(json, "allocated_bytes.small_pool.current");
  const int64_t large0 = json_int(json, "allocated_bytes.large_pool.current");
  const int64_t rsmall0 = json_int(json, "reserved_bytes.small_pool.current");
  const int64_t rlarge0 = json_int(json, "reserved_bytes.large_pool.current");
  tsr_free_string(json);
  tsr_tensor* s = bytes_tensor(3000);     /* small pool: 3072 in 2 MiB */
  tsr_tensor* l = bytes_tensor(3 * MIB);  /* large pool: 3 MiB in 20 MiB */
  json = snapshot();
  cr_assert_eq(json_int(json, "allocated_bytes.small_pool.current") - small0, 3072);
  cr_assert_eq(json_int(json, "allocated_bytes.large_pool.current") - large0, 3 * MIB);
  cr_assert_eq(json_int(json, "reserved_bytes.small_pool.current") - rsmall0, 2 * MIB);
  cr_assert_eq(json_int(json, "reserved_bytes.large_pool.current") - rlarge0, 20 * MIB);
  cr_assert_eq(json_int(json, "allocated_bytes.all.current"),
               json_int(json, "allocated_bytes.small_pool.current") +
                   json_int(json, "allocated_bytes.large_pool.current"));
  cr_assert_eq(json_int(json, "segment.all.current"),
               json_int(json, "segment.small_pool.current") +
                   json_int(json, "segment.large_pool.current"));
  cr_assert_eq(json_int(json, "requested_bytes.small_pool.allocated") -
                   json_int(json, "requested_bytes.small_pool.freed"),
               json_int(json, "requested_bytes.small_pool.current"));
  const int64_t large_now = json_int(json, "allocated_bytes.large_pool.current");
  tsr_free_string(json);

  char* text = NULL;
  TSR_ASSERT_OK(tsr_memory_summary(TSR_CPU, &text));
  int64_t all = -1;
  TSR_ASSERT_OK(tsr_memory_allocated(TSR_CPU, &all));
  char cur[32], row[128];
  format_size(large_now, all, cur, sizeof cur);
  snprintf(row, sizeof row, "| %-24s | %s |", "      from large pool", cur);
  cr_assert(strstr(text, row) != NULL, "summary lacks \"%s\":\n%s", row, text);
  tsr_free_string(text);
  tsr_tensor_release(s);
  tsr_tensor_release(l);
}
